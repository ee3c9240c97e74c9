// `http`: one outbound request through the guarded client, with the auth
// profile it names, retried on the answers worth retrying (in a run through
// the run's alarm; inside an app request while the request waits, within its
// deadline), and its answer as the result. After the last attempt a 4xx or 5xx answer is still a result,
// so the action's `errorWhen` (by default `result.status >= 400`) decides.
import { openTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import type { ActionContext } from "../types";
import { action } from "../action";
import type { Accepted } from "../../../lib/validate";
import type { ActionOutcome } from "../../engine/types";
import { requestIdempotencyKey } from "../../engine/positions";
import { DEFAULTS, delays, failureError, prepare, responseResult, retryAt, send, validationError, type Payload } from "../../../lib/outbound/request";
import { sendWithinDeadline } from "../../../lib/outbound/within-deadline";
import { requestDeadlinePassed } from "../context";
import { type httpProperties, outboundDeclarations } from "../../../definition/language/actions/outbound";

/** The config of `http`, and of `httpCallback` past its own fields: what builds the request. */
export type HttpConfig = Accepted<{ type: "object"; required: ["url"]; properties: typeof httpProperties; additionalProperties: false }>;

/** A JSON body (anything but a string) goes as JSON; a string goes as written. */
export function jsonPayload(config: HttpConfig, body: unknown): Payload {
  const method = config.method ?? DEFAULTS.method;
  const redirect = config.redirect ?? DEFAULTS.redirect;
  if (body === undefined) return { method, redirect };
  if (typeof body === "string") return { method, redirect, body };
  return { method, redirect, body: JSON.stringify(body), contentType: "application/json" };
}

/** The request's payload: the JSON or text body, or the temp file's bytes (the run's policy must allow reading them, as the REST download does). */
export async function payloadOf(config: HttpConfig, ctx: ActionContext): Promise<Payload | ActionOutcome> {
  if (!config.binaryUpload) return jsonPayload(config, config.body);
  if (config.body !== undefined) return { kind: "error", error: validationError("config.binaryUpload: cannot be set together with body") };
  const { tempFileId } = config.binaryUpload;
  // An unknown or expired file is the action's 404, as the REST download answers it.
  return withServices(ctx, async (services): Promise<Payload> => {
    const file = await openTempFile(services, tempFileId);
    // Read whole (at most 25 MiB): the client sends bytes, and a retry reads the file again.
    const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
    return { ...jsonPayload(config, undefined), body: bytes, contentType: file.ref.content_type };
  });
}

export const http = action(outboundDeclarations.http, {
  permissions: (config) => (config.binaryUpload === undefined ? [] : ["entity:read"]),
  async execute(config, invocation, ctx) {
    const bounds = delays(config);
    if ("error" in bounds) return { kind: "error", error: bounds.error };
    const payload = await payloadOf(config, ctx);
    if ("kind" in payload) return payload;
    const prepared = await prepare(config, payload, ctx, requestIdempotencyKey(ctx.runId, invocation.record));
    if ("error" in prepared) return { kind: "error", error: prepared.error };
    // A file's bytes are not sent twice in one attempt: a refreshed token waits for the next one.
    const resend = !config.binaryUpload;
    const sent = ctx.deadline === undefined ? await send(prepared, config, ctx, resend) : await sendWithinDeadline(prepared, config, ctx, ctx.deadline, resend);
    if ("late" in sent) return { kind: "error", error: requestDeadlinePassed("http") };
    // Within a request the retries were made while it waited; a run's wait for its alarm.
    const until = ctx.deadline === undefined ? retryAt(sent, invocation.record.attempt, config, bounds, ctx) : undefined;
    if (until !== undefined) return { kind: "wait", retry: true, until };
    if (!("response" in sent)) return { kind: "error", error: failureError(sent, ctx) };
    return { kind: "success", result: responseResult(sent.response, ctx) };
  },
});
