// The orchestrator when things break: a walk that throws ends the run
// `error` with a workflow-level error; a storage write that fails mid-walk
// leaves the run to be resumed, and the resumed walk executes nothing twice.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { catalog } from "../../src/workflows/actions/catalog";
import { pipe } from "../../src/workflows/actions/pipe";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { alarmOf, inObject, insertedRun, manualWorkflow, runRecord, stub } from "./orchestrator-support";
import { policyGranting } from "./actions-support";

afterEach(() => {
  catalog.pipe = pipe;
});

/** A workflow whose one job starts two child runs and then pipes, its policy allowing the children. */
async function fanOut(t: TenantCreds) {
  const child = await manualWorkflow(t, [{ id: "c", actions: [{ name: "pipe", config: {} }] }]);
  const policy_id = await policyGranting(t, ["workflow:create"]);
  const fan = [
    { stepId: "one", name: "invokeWorkflow", config: { workflowId: child.id } },
    { stepId: "two", name: "invokeWorkflow", config: { workflowId: child.id } },
    { stepId: "done", name: "pipe", config: { value: true } },
  ];
  return manualWorkflow(t, [{ id: "fan", actions: fan }], {}, { policy_id });
}

describe("a walk that throws", () => {
  it("ends the run error with the workflow-level INTERNAL_ERROR, its open step and action cancelled", async () => {
    catalog.pipe = { ...pipe, execute: async () => Promise.reject(new Error("the action module broke")) };
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: {} }] }]);
    const res = await call("POST", "/workflows/wr", { auth: t.auth, body: { workflow_id: id, trigger_id: "manual" } });
    const runId = res.json.data.workflow_run.id;
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const run = await runRecord(t, runId);
    expect([run.status, run.error]).toEqual(["error", { status: 500, code: "INTERNAL_ERROR", message: "the action module broke", details: {} }]);
    expect([run.job_runs[0].status, run.job_runs[0].action_runs[0].status]).toEqual(["cancelled", "cancelled"]);
    expect(typeof run.finished_at).toBe("string");
  });
});

describe("a storage fault mid-walk", () => {
  // Writes of one run: doc, state running, step running, then per action running and success, step success, state.
  const WRITES = 11;

  it("is resumed by the alarm, and each invokeWorkflow action starts exactly one child whichever write failed", async () => {
    const t = await createTenant();
    const parent = await fanOut(t);
    for (let fault = 2; fault <= WRITES; fault++) {
      // Inserted without a kick, so the fault is armed before the object writes anything.
      const runId = await insertedRun(t, parent, Date.now());
      await inObject(runId, (instance) => void (instance.store.writesUntilFault = fault));
      await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
      expect((await runRecord(t, runId)).status, `fault at write ${fault}`).toBe("running");
      expect(await alarmOf(runId), `fault at write ${fault}`).not.toBeNull();
      expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
      const run = await runRecord(t, runId);
      expect(run.status, `fault at write ${fault}`).toBe("success");
      expect(run.outputs.fan.done).toBe(true);
      const children = await systemQuery(`SELECT status FROM workflow_runs WHERE parent_run_id = $1`, [runId]);
      expect(children.map((c) => c.status), `fault at write ${fault}`).toEqual(["success", "success"]);
    }
  });
});

describe("a start that cannot reach the database", () => {
  it("keeps whom it runs for and tries again by its alarm, until the run ends", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 7 } }] }]);
    const runId = await insertedRun(t, wf, Date.now() - 1000);
    // Every connection refused, as when a burst of runs has taken them all.
    await inObject(runId, async (instance) => {
      const real = (instance as unknown as { env: Env }).env;
      (instance as unknown as { env: Env }).env = { ...real, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/nowhere" };
      try {
        await instance.start(t.tenantId, runId);
      } finally {
        (instance as unknown as { env: Env }).env = real;
      }
    });
    expect((await runRecord(t, runId)).status).toBe("pending");
    const [alarm, tries] = await inObject(runId, async (_, state) => [await state.storage.getAlarm(), await state.storage.get("startTries")]);
    expect(tries).toBe(1);
    expect(alarm).toBeGreaterThan(Date.now() - 60_000);
    expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs]).toEqual(["success", { a: { p: 7 } }]);
    expect(await inObject(runId, (_, state) => state.storage.get("startTries"))).toBeUndefined();
  });
});

describe("an object aborted at each boundary", () => {
  // Writes of one run: doc, state running, step running, then per action running and success, step success, state.
  const WRITES = 11;

  it("is resumed by the next start, and each invokeWorkflow action starts exactly one child wherever it died", async () => {
    const t = await createTenant();
    const parent = await fanOut(t);
    for (let boundary = 1; boundary < WRITES; boundary++) {
      const runId = await insertedRun(t, parent, Date.now());
      await inObject(runId, (instance) => void (instance.store.writesUntilAbort = boundary));
      // The aborted call fails; what it kept survives in storage, and the next start replays it.
      const died = await stub(runId)
        .start(t.tenantId, runId)
        .then(() => "finished", (e: Error) => e.message);
      expect(died, `abort after write ${boundary}`).toContain("injected abort");
      expect((await runRecord(t, runId)).status, `abort after write ${boundary}`).not.toBe("success");
      await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
      const run = await runRecord(t, runId);
      expect(run.status, `abort after write ${boundary}`).toBe("success");
      expect(run.outputs.fan.done).toBe(true);
      const children = await systemQuery(`SELECT status FROM workflow_runs WHERE parent_run_id = $1`, [runId]);
      expect(children.map((c) => c.status), `abort after write ${boundary}`).toEqual(["success", "success"]);
    }
  });
});
