// `httpCallback` in real runs: the request carries a signed callback URL, the
// action waits, and a call to that URL resumes the run with the callback as
// the result. Deadlines pass by firing the run's alarm.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callbackUrl } from "../../src/workflows/actions/outbound/callback-link";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { alarmOf, fireAlarmAt, inObject, runRecord } from "./orchestrator-support";
import { fireDue, firstAction, runActions } from "./outbound-support";

/** The path of a callback URL (its origin is PUBLIC_URL; the test calls the Worker directly). */
const pathOf = (url: string) => new URL(url).pathname;

async function callback(url: string, body: unknown, headers: Record<string, string> = {}) {
  return call("POST", pathOf(url), { body, headers });
}

const start = (url: string, extra: object = {}) => ({
  stepId: "job",
  name: "httpCallback",
  config: { url, method: "POST", body: { task: "render" }, ...extra },
});

async function started(t: TenantCreds, routes: Record<string, object[]>, extra: object = {}, after: object[] = []) {
  const s = await scenario(routes);
  const { runId, run } = await runActions(t, [start(s.url("/start"), extra), ...after]);
  return { s, runId, run };
}

describe("httpCallback", () => {
  it("sends X-Callback-Url (and the callbackField), waits, and a callback resumes the run with its body and headers as the result", async () => {
    const t = await createTenant();
    const { s, runId, run } = await started(t, { "/start": [{ status: 202, json: { queued: true } }] }, { callbackField: "reply_to" }, [
      { stepId: "after", name: "pipe", config: { value: "{{ outputs.job.body.pages }}" } },
    ]);
    expect([run.status, firstAction(run).status]).toEqual(["running", "waiting"]);
    const [sent] = await s.requests();
    const url = sent.headers["x-callback-url"];
    expect(url).toMatch(/^https?:\/\/[^/]+\/workflows\/callbacks\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(JSON.parse(sent.body)).toEqual({ task: "render", reply_to: url });
    // The URL answers the action: it is in no record a reader of runs sees.
    const stored = await systemQuery(
      `SELECT count(*)::int AS n FROM workflow_action_runs a JOIN workflow_job_runs j ON j.id = a.job_run_id WHERE j.run_id = $1 AND a.detail::text LIKE '%/workflows/callbacks/%'`,
      [runId],
    );
    expect(stored[0].n).toBe(0);
    expect(JSON.stringify(run)).not.toContain("/workflows/callbacks/");

    const res = await callback(url, { pages: 12 }, { "X-Job": "j-1" });
    expect([res.status, res.json]).toEqual([202, { data: { accepted: true } }]);
    const done = await runRecord(t, runId);
    expect(done.status).toBe("success");
    expect(done.outputs.call.after).toBe(12);
    expect(done.outputs.call.job.body).toEqual({ pages: 12 });
    expect(done.outputs.call.job.headers["x-job"]).toBe("j-1");
    expect(await alarmOf(runId)).toBeNull();

    // Answered already: a second callback is refused.
    const again = await callback(url, { pages: 13 });
    expect(expectError(again, 409, "CONFLICT").details.step_status).toBe("success");
  });

  it("refuses a wrong signature, a malformed, forged or expired token (401) and a signed token naming an unknown run (404)", async () => {
    const t = await createTenant();
    const { s, runId } = await started(t, { "/start": [{ status: 200 }] });
    const url = (await s.requests())[0].headers["x-callback-url"];
    const [claim, signature] = pathOf(url).split("/").at(-1)!.split(".");
    const flipped = `${claim}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    expectError(await call("POST", `/workflows/callbacks/${flipped}`, { body: {} }), 401, "UNAUTHORIZED");
    expectError(await call("POST", `/workflows/callbacks/not-a-token`, { body: {} }), 401, "UNAUTHORIZED");
    // A claim for another run, signed by someone without the key: still only a bad signature.
    const forged = btoa(JSON.stringify({ t: t.tenantId, r: crypto.randomUUID(), k: "call/0", a: 1, e: Date.now() + 60_000 })).replace(/=+$/, "");
    expectError(await call("POST", `/workflows/callbacks/${forged}.${signature}`, { body: {} }), 401, "UNAUTHORIZED");
    // Signed with the service's key, but for a run that does not exist.
    const unknown = await callbackUrl(env.MASTER_KEY, "http://x.test", {
      tenantId: t.tenantId,
      runId: crypto.randomUUID(),
      key: "call/0",
      attempt: 1,
      expiresAt: Date.now() + 60_000,
    });
    expectError(await callback(unknown, {}), 404, "NOT_FOUND");
    const expired = await callbackUrl(env.MASTER_KEY, "http://x.test", { tenantId: t.tenantId, runId, key: "call/0", attempt: 1, expiresAt: Date.now() - 1 });
    expect(expectError(await callback(expired, {}), 401, "UNAUTHORIZED").message).toBe("The callback URL has expired");
    expect((await runRecord(t, runId)).status).toBe("running");
  });

  it("the callback's own errorWhen decides: a body saying failed fails the action", async () => {
    const t = await createTenant();
    const s = await scenario({ "/start": [{ status: 200 }] });
    const { runId } = await runActions(t, [{ ...start(s.url("/start")), errorWhen: "result.body.state = 'failed'" }]);
    await callback((await s.requests())[0].headers["x-callback-url"], { state: "failed" });
    const run = await runRecord(t, runId);
    expect([run.status, firstAction(run).error.code]).toEqual(["error", "UNPROCESSABLE_ENTITY"]);
  });

  it("fails when no callback arrives within callbackTimeoutMs; a late callback is refused", async () => {
    const t = await createTenant();
    const { s, runId } = await started(t, { "/start": [{ status: 200 }] }, { callbackTimeoutMs: 60_000 });
    const due = (await alarmOf(runId))!;
    await fireAlarmAt(runId, due);
    const run = await runRecord(t, runId);
    const action = firstAction(run);
    expect([run.status, action.error.code, action.error.message, action.error.details]).toEqual([
      "error",
      "UNPROCESSABLE_ENTITY",
      "No callback arrived within 60000 ms",
      { callback_timeout_ms: 60_000 },
    ]);
    // The run ended: a late callback whose signature has not yet expired is a conflict.
    const late = await callback((await s.requests())[0].headers["x-callback-url"], {});
    expect(expectError(late, 409, "CONFLICT").details.step_status).toBe("error");
  });

  it("a failed send follows the http retry rules; the superseded attempt's URL answers 409", async () => {
    const t = await createTenant();
    const { s, runId, run } = await started(t, { "/start": [{ status: 503 }, { status: 202 }] });
    expect(firstAction(run).status).toBe("waiting");
    const waiting = await fireDue(t, runId);
    expect([firstAction(waiting).status, firstAction(waiting).attempts]).toEqual(["waiting", 2]);
    const [first, second] = await s.requests();
    expect(first.headers["x-callback-url"]).not.toBe(second.headers["x-callback-url"]);
    expect(expectError(await callback(first.headers["x-callback-url"], {}), 409, "CONFLICT").details.step_status).toBe("superseded");
    expect((await callback(second.headers["x-callback-url"], { ok: 1 })).status).toBe(202);
    expect((await runRecord(t, runId)).status).toBe("success");
  });

  it("a non-2xx answer after the retries fails the action with the status", async () => {
    const t = await createTenant();
    const { run } = await started(t, { "/start": [{ status: 400, body: "bad task" }] });
    const action = firstAction(run);
    expect([run.status, action.error.code, action.error.details]).toEqual(["error", "UNPROCESSABLE_ENTITY", { status: 400, body_preview: "bad task" }]);
  });

  it("answers HTTP_AUTH_ARM_NOT_PERSISTED and sends nothing when its state cannot be saved", async () => {
    const t = await createTenant();
    const { s, runId } = await started(t, { "/start": [{ status: 503 }, { status: 202 }] });
    // The retry's walk keeps the action `running` (one write), then arms it (the next): that one fails.
    await inObject(runId, (instance) => void (instance.store.writesUntilFault = 2));
    const run = await fireDue(t, runId);
    const action = firstAction(run);
    expect([action.status, action.error.status, action.error.code]).toEqual(["error", 500, "INTERNAL_ERROR"]);
    expect(action.error.details).toEqual({
      code: "HTTP_AUTH_ARM_NOT_PERSISTED",
      action_run_id: `${runId}:call/0`,
      iteration: 2,
      reason: "injected storage fault",
    });
    expect((await s.requests()).length).toBe(1);
  });

  it("refuses a bad config with the field's path", async () => {
    const t = await createTenant();
    const s = await scenario({ "/start": [{ status: 200 }] });
    const { run } = await runActions(t, [start(s.url("/start"), { callbackTimeoutMs: "{{ 999 }}", callbackField: "" })]);
    expect(firstAction(run).error.details.errors).toEqual([
      "config.callbackTimeoutMs: 999 is less than 1000",
      "config.callbackField: String is too short (0 < 1)",
    ]);
    expect(await s.requests()).toEqual([]);
  });
});
