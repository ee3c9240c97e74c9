// `llmCallback` in real runs against a scripted OpenAI-compatible provider.
import { describe, expect, it } from "vitest";
import { createTenant } from "../support/api";
import { scenario } from "../support/outbound";
import { fireDue, firstAction, putTenantSecret, rowsHolding, runActions } from "./outbound-support";

const completion = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "gpt-test-2024",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
});

const KEYED = {
  configEnv: { LLM_KEY: null },
  env: { LLM_KEY: "{{ secrets.tenant.LLM_KEY }}" },
  auth: { llm: { type: "bearer", token: "{{ config.env.LLM_KEY }}" } },
};

describe("llmCallback", () => {
  it("posts a chat completion (prompt as one user message) with the profile's key, and answers content, message, finish_reason, usage and model", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "LLM_KEY", "sk-llm-test-key-42");
    const s = await scenario({ "/v1/chat/completions": [{ json: completion("Paris") }] });
    const { run } = await runActions(
      t,
      [
        {
          stepId: "ask",
          name: "llmCallback",
          config: {
            url: s.url("/v1"),
            model: "gpt-test",
            prompt: "{{ input.q }}",
            temperature: 0,
            maxTokens: 20,
            responseFormat: { type: "text" },
            auth: "llm",
          },
        },
      ],
      { ...KEYED, input: { q: "Capital of France?" } },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run.outputs.call.ask).toEqual({
      content: "Paris",
      message: { role: "assistant", content: "Paris" },
      finish_reason: "stop",
      usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
      model: "gpt-test-2024",
    });
    const [seen] = await s.requests();
    expect([seen.method, seen.path, seen.headers.authorization, seen.headers["content-type"]]).toEqual([
      "POST",
      "/v1/chat/completions",
      "Bearer sk-llm-test-key-42",
      "application/json",
    ]);
    expect(JSON.parse(seen.body)).toEqual({
      model: "gpt-test",
      messages: [{ role: "user", content: "Capital of France?" }],
      temperature: 0,
      max_tokens: 20,
      response_format: { type: "text" },
    });
  });

  it("keeps a URL that already ends with /chat/completions, and sends messages as given", async () => {
    const t = await createTenant();
    const s = await scenario({ "/chat/completions": [{ json: completion("ok") }] });
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ];
    const { run } = await runActions(t, [{ stepId: "ask", name: "llmCallback", config: { url: s.url("/chat/completions"), model: "m", messages } }]);
    expect(run.outputs.call.ask.content).toBe("ok");
    const [seen] = await s.requests();
    expect([seen.path, JSON.parse(seen.body).messages]).toEqual(["/chat/completions", messages]);
  });

  it("retries a 429 as http does", async () => {
    const t = await createTenant();
    const s = await scenario({ "/chat/completions": [{ status: 429, json: { error: "slow down" } }, { json: completion("later") }] });
    const { runId, run } = await runActions(t, [{ stepId: "ask", name: "llmCallback", config: { url: s.url(""), model: "m", prompt: "x" } }]);
    expect(firstAction(run).status).toBe("waiting");
    const done = await fireDue(t, runId);
    expect([done.status, firstAction(done).attempts, done.outputs.call.ask.content]).toEqual(["success", 2, "later"]);
  });

  it("a provider error fails the action with its status and a preview with the key masked", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "LLM_KEY", "sk-llm-echoed-key-77");
    const s = await scenario({ "/chat/completions": [{ status: 401, json: { error: { message: "Incorrect API key provided: sk-llm-echoed-key-77" } } }] });
    const { runId, run } = await runActions(
      t,
      [{ stepId: "ask", name: "llmCallback", config: { url: s.url(""), model: "m", prompt: "x", auth: "llm" } }],
      KEYED,
    );
    const error = firstAction(run).error;
    expect([error.code, error.message, error.details.status]).toEqual(["UNPROCESSABLE_ENTITY", "The provider answered 401", 401]);
    expect(error.details.body_preview).toBe('{"error":{"message":"Incorrect API key provided: ***"}}');
    expect(await rowsHolding([runId], "sk-llm-echoed-key-77")).toEqual([]);
  });

  it("refuses both or neither of prompt and messages, a bad message, and an answer that is not a completion", async () => {
    const t = await createTenant();
    const s = await scenario({ "/chat/completions": [{ json: { nothing: true } }] });
    const ask = (stepId: string, extra: object) => ({ stepId, name: "llmCallback", config: { url: s.url(""), model: "m", ...extra }, errorPolicy: "continue" });
    const { run } = await runActions(t, [
      ask("both", { prompt: "x", messages: [{ role: "user", content: "y" }] }),
      ask("neither", {}),
      // Wrapped in $literal, so the save leaves it to the run: a literal config its schema refuses is refused at save.
      { ...ask("badRole", {}), config: { $literal: { url: s.url(""), model: "m", messages: [{ role: "robot", content: "y" }] } } },
      ask("odd", { prompt: "x" }),
    ]);
    const [both, neither, badRole, odd] = run.job_runs[0].action_runs;
    expect(both.error.details.errors).toEqual(["config: exactly one of messages and prompt is required"]);
    expect(neither.error.details.errors).toEqual(["config: exactly one of messages and prompt is required"]);
    expect(badRole.error.details.errors[0]).toMatch(/^config\.messages\[0\]\.role: /);
    expect([odd.error.code, odd.error.message]).toEqual(["UNPROCESSABLE_ENTITY", "The provider's answer is not a chat completion"]);
    expect((await s.requests()).length).toBe(1);
  });
});
