// `llmCallback`: one chat completion from an OpenAI-compatible provider,
// through the same guarded client, auth profiles and retries as `http`. The
// provider's answer is reduced to what a workflow reads: the content, the
// message, why it stopped, the usage and the model that answered.
import { action } from "../action";
import { bodyPreview, delays, failureError, prepare, retryAt, send, validationError } from "../../../lib/outbound/request";
import { errorValue } from "../../../lib/errors";
import { outboundDeclarations } from "../../../definition/language/actions/outbound";

/** Appended to the provider's base URL unless the URL already ends with it. */
export const COMPLETIONS_PATH = "/chat/completions";

export const llmCallback = action(outboundDeclarations.llmCallback, {
  permissions: [],
  async execute(config, invocation, ctx) {
    if ((config.messages === undefined) === (config.prompt === undefined)) {
      return { kind: "error", error: validationError("config: exactly one of messages and prompt is required") };
    }
    const bounds = delays(config);
    if ("error" in bounds) return { kind: "error", error: bounds.error };
    const base = config.url.replace(/\/+$/, "");
    const target = base.endsWith(COMPLETIONS_PATH) ? base : `${base}${COMPLETIONS_PATH}`;
    const request = {
      model: config.model,
      messages: config.messages ?? [{ role: "user", content: config.prompt }],
      ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
      ...(config.maxTokens === undefined ? {} : { max_tokens: config.maxTokens }),
      ...(config.responseFormat === undefined ? {} : { response_format: config.responseFormat }),
    };
    const prepared = await prepare(
      { ...config, url: target },
      { method: "POST", body: JSON.stringify(request), contentType: "application/json" },
      ctx,
      invocation.idempotencyKey,
    );
    if ("error" in prepared) return { kind: "error", error: prepared.error };
    const sent = await send(prepared, config, ctx);
    const until = retryAt(sent, invocation.record.attempt, config, bounds, ctx);
    if (until !== undefined) return { kind: "wait", retry: true, until };
    if (!("response" in sent)) return { kind: "error", error: failureError(sent, ctx) };
    const { status } = sent.response;
    const preview = bodyPreview(sent.response, ctx);
    if (status < 200 || status > 299) {
      return { kind: "error", error: errorValue("UNPROCESSABLE_ENTITY", `The provider answered ${status}`, { status, body_preview: preview }) };
    }
    const completion = parseCompletion(sent.response.body);
    if (!completion) {
      return { kind: "error", error: errorValue("UNPROCESSABLE_ENTITY", "The provider's answer is not a chat completion", { status, body_preview: preview }) };
    }
    return { kind: "success", result: ctx.redact(completion) };
  },
});

/** The first choice of a chat completion, or undefined when the answer is not one. */
function parseCompletion(bytes: Uint8Array): { content: unknown; message: unknown; finish_reason: unknown; usage: unknown; model: unknown } | undefined {
  let answer: { choices?: { message?: { content?: unknown }; finish_reason?: unknown }[]; usage?: unknown; model?: unknown };
  try {
    answer = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const choice = Array.isArray(answer?.choices) ? answer.choices[0] : undefined;
  const message = choice?.message;
  if (typeof message !== "object" || message === null) return undefined;
  return { content: message.content ?? null, message, finish_reason: choice!.finish_reason ?? null, usage: answer.usage ?? null, model: answer.model ?? null };
}
