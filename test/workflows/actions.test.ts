// The action catalog through executeAction: config checks, pipe, awaitInput.
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { catalog, executeAction } from "../../src/workflows/actions/catalog";
import { ACTION_NAMES } from "../../src/definition/language/workflow-schema";
import { ACTION_DECLARATIONS } from "../../src/definition/language/actions";
import { inputProblems } from "../../src/workflows/actions/await-input";
import { context, invocation } from "./actions-support";

// No action here touches the database; the context carries one all the same.
const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
afterAll(() => database.close());
const NOW = 1_700_000_000_000;
const ctx = () => context(database, { now: () => NOW });

function configLines(outcome: Awaited<ReturnType<typeof executeAction>>) {
  expect(outcome.kind).toBe("error");
  if (outcome.kind !== "error") return [];
  expect(outcome.error.status).toBe(422);
  expect(outcome.error.code).toBe("VALIDATION_FAILED");
  return outcome.error.details.validation_errors;
}

describe("executeAction: config checked against the module's schema", () => {
  it("refuses each module's bad config with the path of the bad field", async () => {
    expect(configLines(await executeAction(invocation("pipe", { value: 1, extra: true }), ctx()))).toEqual(["config.extra: is not allowed"]);
    expect(configLines(await executeAction(invocation("pipe", "text"), ctx()))).toEqual(["config: must be object, got string"]);
    expect(configLines(await executeAction(invocation("awaitInput", { timeoutMs: 999 }), ctx()))).toEqual(["config.timeoutMs: 999 is less than 1000"]);
    expect(configLines(await executeAction(invocation("awaitInput", { timeoutMs: 30 * 86_400_000 + 1 }), ctx()))).toEqual([
      "config.timeoutMs: 2592000001 is greater than 2592000000",
    ]);
    expect(configLines(await executeAction(invocation("awaitInput", { timeoutMs: 1500.5 }), ctx()))).toEqual(["config.timeoutMs: must be integer, got number"]);
    expect(configLines(await executeAction(invocation("awaitInput", { schema: "string" }), ctx()))).toEqual([
      "config.schema: must be object or boolean, got string",
    ]);
    expect(configLines(await executeAction(invocation("invokeWorkflow", { triggerId: "manual" }), ctx()))).toEqual(["config.workflowId: is required"]);
    expect(configLines(await executeAction(invocation("invokeWorkflow", { workflowId: "nope", triggerId: "" }), ctx()))).toEqual([
      "config.workflowId: must match the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
      "config.triggerId: String is too short (0 < 1)",
    ]);
  });

  it("has one module for every action name of the language, each under its own name", () => {
    expect(Object.keys(catalog).sort()).toEqual([...ACTION_NAMES].sort());
    for (const [name, module] of Object.entries(catalog)) expect(module!.name).toBe(name);
  });

  it("runs each action with the config schema the language declares for it, the one publish checks", () => {
    expect(Object.keys(ACTION_DECLARATIONS).sort()).toEqual([...ACTION_NAMES].sort());
    for (const name of ACTION_NAMES) expect(catalog[name]!.configSchema).toBe(ACTION_DECLARATIONS[name].configSchema);
  });
});

describe("pipe", () => {
  it("answers its resolved value, whatever JSON it is", async () => {
    for (const value of [{ a: [1, { b: null }] }, [1, 2], "text", 0, false, null]) {
      expect(await executeAction(invocation("pipe", { value }), ctx())).toEqual({ kind: "success", result: value });
    }
  });

  it("answers null for a config without value", async () => {
    expect(await executeAction(invocation("pipe", {}), ctx())).toEqual({ kind: "success", result: null });
  });
});

describe("awaitInput", () => {
  const schema = { type: "object", required: ["approved"], properties: { approved: { type: "boolean" } } };

  it("waits until now + timeoutMs, keeping its schema in the detail", async () => {
    expect(await executeAction(invocation("awaitInput", { schema, timeoutMs: 60_000 }), ctx())).toEqual({
      kind: "wait",
      until: NOW + 60_000,
      detail: { schema },
    });
  });

  it("waits with no deadline without timeoutMs", async () => {
    const outcome = await executeAction(invocation("awaitInput", {}), ctx());
    expect(outcome).toEqual({ kind: "wait", until: undefined, detail: { schema: undefined } });
  });

  it("fails with timeout_ms once executed again at or after its deadline", async () => {
    const config = { timeoutMs: 5000 };
    const waiting = invocation("awaitInput", config, { status: "waiting", until: NOW });
    expect(await executeAction(waiting, ctx())).toEqual({
      kind: "error",
      error: { status: 422, code: "UNPROCESSABLE_ENTITY", message: "No input arrived within 5000 ms", details: { timeout_ms: 5000 } },
    });
  });

  it("keeps waiting when executed again before its deadline", async () => {
    const waiting = invocation("awaitInput", { timeoutMs: 5000 }, { status: "waiting", until: NOW + 1 });
    expect((await executeAction(waiting, ctx())).kind).toBe("wait");
  });

  it("fails at once for a schema that cannot be evaluated", async () => {
    const outcome = await executeAction(invocation("awaitInput", { schema: { type: "nonsense" } }), ctx());
    const lines = configLines(outcome) as string[];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^config\.schema\.type: /);
  });

  it("inputProblems: data lines against the schema, none without one", () => {
    expect(inputProblems({ schema }, { approved: true })).toEqual([]);
    expect(inputProblems({ schema }, { approved: "yes" })).toEqual(["data.approved: must be boolean, got string"]);
    expect(inputProblems({ schema }, {})).toEqual(["data.approved: is required"]);
    expect(inputProblems({ schema: false }, 1)).toEqual(["data: is not allowed"]);
    expect(inputProblems({}, "anything")).toEqual([]);
  });
});
