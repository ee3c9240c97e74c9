// The orchestrator when things break: a walk that throws ends the run
// `error` with a workflow-level error; a storage write that fails mid-walk
// leaves the run to be resumed, and the resumed walk executes nothing twice;
// an object that dies resumes by its alarm within seconds, resends an action
// whose answer it never recorded as a new attempt under the same key, and a
// mirror that lost its last writes is repaired by the alarm or the sweep.
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { catalog } from "../../src/workflows/actions/catalog";
import { pipe } from "../../src/workflows/actions/pipe";
import { kickRuns, runClient } from "../../src/workflows/runs/run-client";
import { RESUME_MS } from "../../src/workflows/runs/run-watch";
import { sweepRuns } from "../../src/workflows/runs/sweep";
import { call, createTenant, systemQuery, withSystemDb, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { alarmOf, descendants, dispatched, inObject, insertedRun, manualWorkflow, runRecord, stub } from "./orchestrator-support";
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
      await descendants(t, runId);
      const children = await systemQuery(`SELECT status FROM workflow_runs WHERE parent_run_id = $1`, [runId]);
      expect(
        children.map((c) => c.status),
        `fault at write ${fault}`,
      ).toEqual(["success", "success"]);
    }
  });
});

describe("a start lost between the answer and the kick", () => {
  it("was armed before the dispatch answered: the object knows its run and holds an alarm seconds ahead", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 1 } }] }]);
    const res = await call("POST", "/workflows/wr", { auth: t.auth, body: { workflow_id: wf.id, trigger_id: "manual" } });
    expect(res.status).toBe(202);
    const runId = res.json.data.workflow_run.id;
    // Only arming stores `ref` on a start that reaches the database: the route armed the object before it answered.
    expect(await inObject(runId, (_, state) => state.storage.get("ref"))).toEqual({ tenantId: t.tenantId, runId });
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    expect((await runRecord(t, runId)).status).toBe("success");
  });

  it("starts by the object's own alarm when the kick never arrives", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 7 } }] }]);
    const runId = await insertedRun(t, wf, Date.now() - 1000);
    const before = Date.now();
    await runClient(env).arm({ tenantId: t.tenantId, runId });
    const alarm = await alarmOf(runId);
    expect(alarm).toBeGreaterThanOrEqual(before + RESUME_MS);
    expect(alarm).toBeLessThanOrEqual(Date.now() + RESUME_MS);
    expect((await runRecord(t, runId)).status).toBe("pending");
    expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs]).toEqual(["success", { a: { p: 7 } }]);
    // Arming a started run changes nothing: no alarm comes back once it ended.
    await runClient(env).arm({ tenantId: t.tenantId, runId });
    expect(await alarmOf(runId)).toBeNull();
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
        .then(
          () => "finished",
          (e: Error) => e.message,
        );
      expect(died, `abort after write ${boundary}`).toContain("injected abort");
      expect((await runRecord(t, runId)).status, `abort after write ${boundary}`).not.toBe("success");
      await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
      const run = await runRecord(t, runId);
      expect(run.status, `abort after write ${boundary}`).toBe("success");
      expect(run.outputs.fan.done).toBe(true);
      await descendants(t, runId);
      const children = await systemQuery(`SELECT status FROM workflow_runs WHERE parent_run_id = $1`, [runId]);
      expect(
        children.map((c) => c.status),
        `abort after write ${boundary}`,
      ).toEqual(["success", "success"]);
    }
  });
});

/** The object dies as a crash or an eviction would: what it kept stays, what it was doing is gone. */
async function crash(runId: string): Promise<void> {
  await inObject(runId, (_, state) => state.abort("crash")).catch(() => {});
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe("an object that dies with an action in flight", () => {
  /** A run of one `http` POST whose first answer takes 60 s (the object dies before it), the next at once. */
  async function inFlight(t: TenantCreds) {
    const s = await scenario({
      "/slow": [
        { status: 200, json: { n: 1 }, delayMs: 60_000 },
        { status: 200, json: { n: 2 } },
      ],
    });
    const wf = await manualWorkflow(t, [
      { id: "call", actions: [{ stepId: "post", name: "http", config: { url: s.url("/slow"), method: "POST", body: { x: 1 } } }] },
    ]);
    const runId = await insertedRun(t, wf, Date.now());
    const started = stub(runId)
      .start(t.tenantId, runId)
      .catch((e: Error) => e.message);
    await until("the request left", async () => ((await s.requests()).length === 1 ? true : undefined));
    return { s, runId, started };
  }

  it("holds an alarm seconds ahead while it works; an alarm meanwhile only keeps watch", async () => {
    const t = await createTenant();
    const { s, runId, started } = await inFlight(t);
    const alarm = await alarmOf(runId);
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeLessThanOrEqual(5_000);
    // The object is alive and at work: the alarm starts no second walk, it only stands again.
    expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
    expect((await s.requests()).length).toBe(1);
    expect(await alarmOf(runId)).not.toBeNull();
    await crash(runId);
    expect(await started).toContain("crash");
    expect((await runRecord(t, runId)).status).toBe("running");
    // Restarted, the object resumes by that alarm, within seconds rather than at the sweep.
    expect(await alarmOf(runId)).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs]).toEqual(["success", { call: { post: { status: 200, headers: expect.any(Object), body: { n: 2 } } } }]);
    expect(await alarmOf(runId)).toBeNull();
  });

  it("resends the action once as attempt 2, with the Idempotency-Key of the attempt it repeats, and logs the resend", async () => {
    const t = await createTenant();
    const { s, runId, started } = await inFlight(t);
    await crash(runId);
    await started;
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const requests = await s.requests();
    expect(requests.map((r) => [r.method, r.body, r.headers["idempotency-key"]])).toEqual([
      ["POST", '{"x":1}', `${runId}:call:post`],
      ["POST", '{"x":1}', `${runId}:call:post`],
    ]);
    const run = await runRecord(t, runId);
    const job = run.job_runs[0];
    expect([run.status, job.action_runs[0].status, job.action_runs[0].attempts]).toEqual(["success", "success", 2]);
    expect(job.action_log.map((l: { status: string }) => l.status)).toEqual(["running", "running", "success"]);
  });
});

describe("an httpCallback whose object dies with its request in flight", () => {
  it("resends the same callback URL under the same key, and the target's callback to it is taken", async () => {
    const t = await createTenant();
    const s = await scenario({ "/start": [{ status: 202, delayMs: 60_000 }, { status: 202 }] });
    const wf = await manualWorkflow(t, [
      { id: "call", actions: [{ stepId: "job", name: "httpCallback", config: { url: s.url("/start"), method: "POST", body: {} } }] },
    ]);
    const runId = await insertedRun(t, wf, Date.now());
    const started = stub(runId)
      .start(t.tenantId, runId)
      .catch(() => undefined);
    await until("the request left", async () => ((await s.requests()).length === 1 ? true : undefined));
    await crash(runId);
    await started;
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const [first, second] = await s.requests();
    expect(second.headers["x-callback-url"]).toBe(first.headers["x-callback-url"]);
    expect([first.headers["idempotency-key"], second.headers["idempotency-key"]]).toEqual([`${runId}:call/0:1`, `${runId}:call/0:1`]);
    expect(firstActionOf(await runRecord(t, runId))).toEqual(["waiting", 2]);
    const res = await call("POST", new URL(first.headers["x-callback-url"]).pathname, { body: { done: true } });
    expect(res.status).toBe(202);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs.call.job.body, ...firstActionOf(run)]).toEqual(["success", { done: true }, "success", 2]);
  });
});

const firstActionOf = (run: { job_runs: { action_runs: { status: string; attempts: number }[] }[] }) => [
  run.job_runs[0].action_runs[0].status,
  run.job_runs[0].action_runs[0].attempts,
];

describe("a mirror that lost the run's last writes", () => {
  // Writes of a one-action run: doc, state running, step running, action running and success, step success, state.
  const LAST_WRITE = 7;

  /** A run whose object finished it and died before its last records reached Postgres. */
  async function finishedUnmirrored(t: TenantCreds) {
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 7 } }] }]);
    const runId = await insertedRun(t, wf, Date.now());
    await inObject(runId, (instance) => void (instance.store.writesUntilAbort = LAST_WRITE));
    expect(
      await stub(runId)
        .start(t.tenantId, runId)
        .then(
          () => "finished",
          (e: Error) => e.message,
        ),
    ).toContain("injected abort");
    const [state, dirty] = await inObject(runId, async (_, storage) => [await storage.storage.get("state"), await storage.storage.get("dirty")]);
    expect([state, dirty]).toEqual([{ status: "success", outputs: { a: { p: 7 } }, errorsContinued: 0 }, true]);
    expect((await runRecord(t, runId)).status).toBe("running");
    return runId;
  }

  it("is repaired by the object's alarm within seconds", async () => {
    const t = await createTenant();
    const runId = await finishedUnmirrored(t);
    expect(await alarmOf(runId)).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(await runDurableObjectAlarm(stub(runId))).toBe(true);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs, run.job_runs[0].status, run.job_runs[0].action_runs[0].status]).toEqual([
      "success",
      { a: { p: 7 } },
      "success",
      "success",
    ]);
    expect(await inObject(runId, (_, state) => state.storage.get("dirty"))).toBeUndefined();
  });

  it("is repaired to success by the sweep, never ended error by its deadline", async () => {
    const t = await createTenant();
    const runId = await finishedUnmirrored(t);
    await systemQuery(`UPDATE workflow_runs SET updated_at = now() - interval '2 hours' WHERE id = $1`, [runId]);
    await withSystemDb((db) => sweepRuns(db, env, new Date()));
    const run = await runRecord(t, runId);
    expect([run.status, run.error, run.outputs, run.job_runs[0].status]).toEqual(["success", null, { a: { p: 7 } }, "success"]);
    expect(await inObject(runId, (_, state) => state.storage.get("dirty"))).toBeUndefined();
  });

  it("a row left running for ten minutes is re-synced from the journal even when the object is clean", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 7 } }] }]);
    const runId = await dispatched(t, wf.id);
    // As if the end never reached Postgres, with nothing in the object saying so.
    await systemQuery(
      `UPDATE workflow_runs SET status = 'running', outputs = NULL, finished_at = NULL, updated_at = now() - interval '11 minutes' WHERE id = $1`,
      [runId],
    );
    await systemQuery(`UPDATE workflow_job_runs SET status = 'running', finished_at = NULL WHERE run_id = $1`, [runId]);
    await withSystemDb((db) => sweepRuns(db, env, new Date()));
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs, run.job_runs[0].status, typeof run.finished_at]).toEqual(["success", { a: { p: 7 } }, "success", "string"]);
  });
});
