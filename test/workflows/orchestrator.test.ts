// The run orchestrator end to end: runs dispatched through the API, walked by
// their WorkflowRun objects, read back through the runs API. Time moves by
// setting an object's clock and firing its alarm, never by sleeping.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { sweepRuns } from "../../src/workflows/runs/sweep";
import { call, createTenant, expectError, systemQuery, withSystemDb } from "../support/api";
import { activeWorkflow } from "./fixture";
import { alarmOf, dispatched, fireAlarmAt, insertedRun, manualWorkflow, runRecord } from "./orchestrator-support";

const HOUR = 3_600_000;

const ASK = {
  stepId: "ask",
  name: "awaitInput",
  config: { schema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } }, timeoutMs: HOUR },
};
const approval = [{ id: "approve", actions: [ASK, { stepId: "after", name: "pipe", config: { value: "{{ outputs.ask.ok }}" } }] }];

describe("a dispatched run", () => {
  it("walks its jobs to success, with job runs, action runs and the action log in the record", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [
      { id: "prepare", input: { n: "{{ context.input.n }}" }, actions: [{ stepId: "shape", name: "pipe", config: { value: "{{ input.n }}" } }] },
      {
        id: "notify",
        dependencies: ["prepare"],
        input: { n: "{{ outputs.prepare.shape }}" },
        actions: [{ stepId: "echo", name: "pipe", config: { value: "{{ input.n * 2 }}" } }],
      },
    ]);
    const runId = await dispatched(t, id, { n: 7 });
    const run = await runRecord(t, runId);
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run.outputs).toEqual({ prepare: { shape: 7 }, notify: { echo: 14 } });
    expect(run.error).toBeNull();
    expect(typeof run.started_at).toBe("string");
    expect(typeof run.finished_at).toBe("string");
    expect(run.job_runs.map((j: any) => [j.job_id, j.status, j.output])).toEqual([
      ["prepare", "success", { shape: 7 }],
      ["notify", "success", { echo: 14 }],
    ]);
    const [prepare] = run.job_runs;
    expect(prepare.action_runs).toEqual([
      {
        id: expect.any(String),
        step_id: "shape",
        name: "pipe",
        status: "success",
        skipped_reason: null,
        error: null,
        attempts: 1,
        config: { value: 7 },
        result: 7,
        result_truncated: false,
        started_at: expect.any(String),
        finished_at: expect.any(String),
      },
    ]);
    expect(prepare.action_log.map((l: any) => [l.step_id, l.name, l.status, l.error])).toEqual([
      ["shape", "pipe", "running", null],
      ["shape", "pipe", "success", null],
    ]);
  });

  it("ends error with the action's error when a step fails, and a kick of a finished run changes nothing", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "bad", name: "pipe", config: { nope: "{{ 1 }}" } }] }]);
    const runId = await dispatched(t, id);
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const run = await runRecord(t, runId);
    expect(run.status).toBe("error");
    expect(run.error).toBeNull();
    const action = run.job_runs[0].action_runs[0];
    expect([action.status, action.error.code, action.error.details.errors]).toEqual(["error", "VALIDATION_FAILED", ["config.nope: is not allowed"]]);
    expect(run.job_runs[0].action_log.map((l: any) => l.status)).toEqual(["running", "error"]);
  });
});

describe("a run that starts later", () => {
  it("waits for its alarm at not_before, then runs", async () => {
    const t = await createTenant();
    const workflow = await activeWorkflow(t, {
      jobs: [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 1 } }] }],
      triggers: [{ id: "nightly", cron: "0 2 * * *" }],
    });
    const notBefore = Date.now() + HOUR;
    const runId = await insertedRun(t, workflow, notBefore);
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    expect((await runRecord(t, runId)).status).toBe("pending");
    expect(await alarmOf(runId)).toBe(notBefore);

    expect(await fireAlarmAt(runId, notBefore + 1)).toBe(true);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs]).toEqual(["success", { a: { p: 1 } }]);
    expect(await alarmOf(runId)).toBeNull();
  });
});

describe("awaitInput", () => {
  it("waits, refuses data its schema refuses, and goes on with the data posted", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    let run = await runRecord(t, runId);
    expect([run.status, run.job_runs[0].status, run.job_runs[0].action_runs.map((a: any) => a.status)]).toEqual(["running", "waiting", ["waiting"]]);

    const bad = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "ask", data: { ok: "yes" } } });
    expect(expectError(bad, 422, "VALIDATION_FAILED").details.errors).toEqual(["data.ok: must be boolean, got string"]);
    expectError(await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "other", data: {} } }), 404, "NOT_FOUND");
    const other = await createTenant();
    expectError(
      await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: other.auth, body: { step_id: "ask", data: { ok: true } } }),
      404,
      "NOT_FOUND",
    );

    const res = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "ask", data: { ok: true } } });
    expect(res.status).toBe(200);
    run = res.json.data;
    expect([run.status, run.outputs]).toEqual(["success", { approve: { ask: { ok: true }, after: true } }]);
    expect(run.job_runs[0].action_log.map((l: any) => [l.step_id, l.status])).toEqual([
      ["ask", "running"],
      ["ask", "waiting"],
      ["ask", "success"],
      ["after", "running"],
      ["after", "success"],
    ]);
    expect(await alarmOf(runId)).toBeNull();

    const again = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "ask", data: { ok: false } } });
    expect(expectError(again, 409, "CONFLICT").details.step_status).toBe("success");
  });

  it("fails the action when no input arrives before its timeout (the alarm)", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    const alarm = await alarmOf(runId);
    expect(alarm).toBeGreaterThan(Date.now() + HOUR - 60_000);

    expect(await fireAlarmAt(runId, alarm! + 1)).toBe(true);
    const run = await runRecord(t, runId);
    expect(run.status).toBe("error");
    const [ask] = run.job_runs[0].action_runs;
    expect([ask.status, ask.error.message]).toEqual(["error", `No input arrived within ${HOUR} ms`]);
    expect(run.job_runs[0].status).toBe("error");
    expect(run.job_runs[0].action_runs).toHaveLength(1);
  });

  it("a cancel while waiting ends the run, its step and its action, and removes the alarm", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    expect(await alarmOf(runId)).not.toBeNull();
    const res = await call("POST", `/workflows/runs/workflows/${runId}/cancel`, { auth: t.auth });
    expect(res.status).toBe(200);
    const run = res.json.data;
    expect([run.status, run.job_runs[0].status, run.job_runs[0].action_runs[0].status]).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(await alarmOf(runId)).toBeNull();
    const late = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "ask", data: { ok: true } } });
    expect(expectError(late, 409, "CONFLICT").details.step_status).toBe("cancelled");
  });
});

describe("retry", () => {
  it("reuses a `continue` step's output and runs an `allow` step again", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [
      { id: "first", rerunPolicy: "continue", actions: [{ stepId: "one", name: "pipe", config: { value: 1 } }] },
      { id: "second", dependencies: ["first"], actions: [{ stepId: "two", name: "pipe", config: { value: "{{ outputs.one }}" } }] },
    ]);
    const runId = await dispatched(t, id);
    expect((await runRecord(t, runId)).status).toBe("success");
    const res = await call("POST", `/workflows/runs/workflows/${runId}/retry`, { auth: t.auth });
    expect(res.status).toBe(200);
    const run = res.json.data;
    expect([run.status, run.attempt]).toEqual(["success", 1]);
    const log = Object.fromEntries(run.job_runs.map((j: any) => [j.job_id, j.action_log.map((l: any) => l.status)]));
    expect(log).toEqual({ first: ["running", "success"], second: ["running", "success", "running", "success"] });
  });

  it("ends the retried run skipped when a step that ran has rerunPolicy abort", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [{ id: "once", rerunPolicy: "abort", actions: [{ name: "pipe", config: {} }] }]);
    const runId = await dispatched(t, id);
    const res = await call("POST", `/workflows/runs/workflows/${runId}/retry`, { auth: t.auth });
    expect([res.json.data.status, res.json.data.attempt, typeof res.json.data.finished_at]).toEqual(["skipped", 1, "string"]);
  });
});

describe("the sweep", () => {
  it("kicks a pending run whose kick was lost, and ends one stuck past the deadline", async () => {
    const t = await createTenant();
    const workflow = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: "ok" } }] }]);
    const lost = await insertedRun(t, workflow, Date.now() - 2 * 60_000);
    const stuck = await insertedRun(t, workflow, Date.now() - 2 * HOUR);
    const fresh = await insertedRun(t, workflow, Date.now());
    await systemQuery(`UPDATE workflow_runs SET updated_at = now() - interval '2 hours' WHERE id = $1`, [stuck]);
    const outcome = await withSystemDb((db) => sweepRuns(db, env, new Date()));
    expect(outcome.expired).toBeGreaterThanOrEqual(1);
    expect((await runRecord(t, lost)).status).toBe("success");
    const expired = await runRecord(t, stuck);
    expect([expired.status, expired.error]).toEqual([
      "error",
      { status: 500, code: "INTERNAL_ERROR", message: "The run made no progress for 60 minutes and was stopped", details: {} },
    ]);
    expect((await runRecord(t, fresh)).status).toBe("pending");
  });

  it("resumes a running run whose row has not moved for ten minutes", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    await systemQuery(`UPDATE workflow_runs SET updated_at = now() - interval '11 minutes' WHERE id = $1`, [runId]);
    await withSystemDb((db) => sweepRuns(db, env, new Date()));
    const [{ fresh }] = await systemQuery(`SELECT updated_at > now() - interval '1 minute' AS fresh, status FROM workflow_runs WHERE id = $1`, [runId]);
    // A waiting run's kick touches its row: waiting is progress, not a stall.
    expect(fresh).toBe(true);
    expect((await runRecord(t, runId)).job_runs[0].status).toBe("waiting");
  });
});
