// Retry that fixes things: POST /workflows/runs/workflows/{id}/retry with
// `config: current` runs with the activation's env and job bindings as they
// are now (the definition version stays the run's), and `from_step` redrives
// that step and its dependents whatever their rerunPolicy, reusing the other
// steps' records. Without a body a retry keeps the env it started with.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { activeWorkflow } from "./fixture";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

const retry = (t: TenantCreds, runId: string, body?: unknown) =>
  call("POST", `/workflows/runs/workflows/${runId}/retry`, { auth: t.auth, ...(body !== undefined && { body }) });

const pipe = (stepId: string, value: string, more: object = {}) => ({ stepId, name: "pipe", config: { value }, ...more });

/**
 * a → b → d, and c on its own. `b` fails while the env's MODE is `bad`; `a`
 * would end any plain retry `skipped` (rerunPolicy abort), and `b` would be
 * reused by one (continue) once it succeeded.
 */
const JOBS = [
  { id: "a", rerunPolicy: "abort", actions: [pipe("one", "{{ 1 }}")] },
  {
    id: "b",
    dependencies: ["a"],
    rerunPolicy: "continue",
    input: { mode: "{{ config.env.MODE }}", n: "{{ outputs.a.one }}" },
    actions: [pipe("two", "{{ input.mode }}", { errorWhen: "result = 'bad'" })],
  },
  { id: "c", actions: [pipe("three", "{{ 3 }}")] },
  { id: "d", dependencies: ["b"], input: { got: "{{ outputs.b.two }}" }, actions: [pipe("four", "{{ input.got & '!' }}")] },
];

/** Each job's status and its first action's attempts, by job id. */
const shape = (run: any) => Object.fromEntries(run.job_runs.map((j: any) => [j.job_id, [j.status, j.action_runs[0]?.attempts ?? null]]));

async function failedRun(t: TenantCreds) {
  const wf = await activeWorkflow(
    t,
    { jobs: JOBS, triggers: [{ id: "manual", webhook: { methods: ["POST"] } }], config: { env: { MODE: null } } },
    { env: { MODE: "bad" } },
  );
  const runId = await dispatched(t, wf.id);
  const run = await runRecord(t, runId);
  expect(run.status).toBe("error");
  expect(shape(run)).toMatchObject({ a: ["success", 1], b: ["error", 1], c: ["success", 1] });
  return { wf, runId };
}

const setMode = async (t: TenantCreds, workflowId: string, MODE: string) => {
  const res = await call("PUT", `/workflows/${workflowId}/config`, { auth: t.auth, body: { env: { MODE } } });
  expect(res.status, res.text).toBe(200);
};

describe("POST /workflows/runs/workflows/{id}/retry with a body", () => {
  it("config: current with from_step re-runs that step and its dependents with the activation's env now, reusing the rest", async () => {
    const t = await createTenant();
    const { wf, runId } = await failedRun(t);
    await setMode(t, wf.id, "good");
    const res = await retry(t, runId, { config: "current", from_step: "b" });
    expect(res.status, res.text).toBe(200);
    const run = res.json.data;
    expect([run.status, run.attempt, run.error, run.workflow_version]).toEqual(["success", 1, null, 1]);
    expect(run.outputs).toEqual({ a: { one: 1 }, b: { two: "good" }, c: { three: 3 }, d: { four: "good!" } });
    // a and c were not run again (their single attempt stands), b ran its second attempt, d its first.
    expect(shape(run)).toEqual({ a: ["success", 1], b: ["success", 2], c: ["success", 1], d: ["success", 1] });
    const [row] = await systemQuery(`SELECT retry_request FROM workflow_runs WHERE id = $1`, [runId]);
    expect(row.retry_request).toEqual({ config: "current", from_step: "b" });
  });

  it("without a body, or with config: original, keeps the env the run started with; a plain retry obeys rerunPolicy (abort ends it skipped)", async () => {
    const t = await createTenant();
    const { wf, runId } = await failedRun(t);
    await setMode(t, wf.id, "good");
    // from_step alone: the env the run started with, so b fails again.
    const original = await retry(t, runId, { config: "original", from_step: "b" });
    expect(original.status, original.text).toBe(200);
    expect([original.json.data.status, original.json.data.attempt]).toEqual(["error", 1]);
    expect(shape(original.json.data)).toMatchObject({ a: ["success", 1], b: ["error", 2], c: ["success", 1] });
    // No body: today's retry, where a's rerunPolicy abort ends the run skipped.
    const plain = await retry(t, runId);
    expect(plain.status, plain.text).toBe(200);
    expect([plain.json.data.status, plain.json.data.attempt]).toEqual(["skipped", 2]);
    expect((await systemQuery(`SELECT retry_request FROM workflow_runs WHERE id = $1`, [runId]))[0].retry_request).toBeNull();
    // config: current alone still obeys rerunPolicy.
    const current = await retry(t, runId, { config: "current" });
    expect([current.json.data.status, current.json.data.attempt]).toEqual(["skipped", 3]);
  });

  it("from_step on a successful run re-runs only that step's subtree, even a step whose rerunPolicy is continue", async () => {
    const t = await createTenant();
    const { wf, runId } = await failedRun(t);
    await setMode(t, wf.id, "good");
    expect((await retry(t, runId, { config: "current", from_step: "b" })).json.data.status).toBe("success");
    await setMode(t, wf.id, "better");
    const res = await retry(t, runId, { config: "current", from_step: "d" });
    expect(res.json.data.status).toBe("success");
    // d ran again with b's reused output; b (continue) and the rest stand as they were.
    expect(res.json.data.outputs).toEqual({ a: { one: 1 }, b: { two: "good" }, c: { three: 3 }, d: { four: "good!" } });
    expect(shape(res.json.data)).toEqual({ a: ["success", 1], b: ["success", 2], c: ["success", 1], d: ["success", 2] });
    const redriveB = await retry(t, runId, { config: "current", from_step: "b" });
    expect(redriveB.json.data.outputs).toEqual({ a: { one: 1 }, b: { two: "better" }, c: { three: 3 }, d: { four: "better!" } });
    expect(shape(redriveB.json.data)).toEqual({ a: ["success", 1], b: ["success", 3], c: ["success", 1], d: ["success", 3] });
  });

  it("config: current re-reads the activation's job bindings: a reference step runs the job version bound now", async () => {
    const t = await createTenant();
    const publish = async (value: string, more: object = {}) => {
      const res = await call("POST", "/definition/jobs", { auth: t.auth, body: { name: "greet", definition_json: { actions: [pipe("say", value, more)] } } });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id as string;
    };
    await publish("v1", { errorWhen: "result = 'v1'" });
    const wf = await activeWorkflow(t, { jobs: [{ id: "r", name: "greet" }], triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] });
    const runId = await dispatched(t, wf.id);
    expect((await runRecord(t, runId)).status).toBe("error");
    const v2 = await publish("v2");
    const bound = await call("PUT", `/workflows/${wf.id}/config`, { auth: t.auth, body: { job_bindings: { r: v2 } } });
    expect(bound.status, bound.text).toBe(200);
    // The original bindings still name v1.
    expect((await retry(t, runId)).json.data.status).toBe("error");
    const res = await retry(t, runId, { config: "current" });
    expect([res.json.data.status, res.json.data.outputs, res.json.data.workflow_version]).toEqual(["success", { r: { say: "v2" } }, 1]);
  });

  it("a retry whose call never reached the run's object is run as asked when the run is next kicked", async () => {
    const t = await createTenant();
    const { wf, runId } = await failedRun(t);
    await setMode(t, wf.id, "good");
    // The row moved as the route moves it; the object was not told.
    await systemQuery(
      `UPDATE workflow_runs SET status = 'pending', attempt = attempt + 1, finished_at = NULL, error = NULL, retry_request = $2 WHERE id = $1`,
      [runId, { config: "current", from_step: "b" }],
    );
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const run = await runRecord(t, runId);
    expect([run.status, run.outputs.d]).toEqual(["success", { four: "good!" }]);
    expect(shape(run)).toEqual({ a: ["success", 1], b: ["success", 2], c: ["success", 1], d: ["success", 1] });
  });

  it("an unknown from_step and wrong types are 422, a running run 409, another tenant's run 404; none of them moves the run", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const { runId } = await failedRun(t);
    const before = await systemQuery(`SELECT status, attempt, retry_request, updated_at FROM workflow_runs WHERE id = $1`, [runId]);
    const unknown = expectError(await retry(t, runId, { from_step: "zz" }), 422, "VALIDATION_FAILED");
    expect(unknown.details.errors).toEqual(["from_step: the run's workflow version has no job zz"]);
    for (const body of [{ config: "latest" }, { from_step: 5 }, { from_step: "" }, { config: "current", extra: true }, ["b"]]) {
      expectError(await retry(t, runId, body), 422, "VALIDATION_FAILED");
    }
    expectError(await retry(other, runId, { from_step: "b" }), 404, "NOT_FOUND");
    expectError(await retry(other, runId), 404, "NOT_FOUND");
    expect(await systemQuery(`SELECT status, attempt, retry_request, updated_at FROM workflow_runs WHERE id = $1`, [runId])).toEqual(before);

    const waiting = await manualWorkflow(t, [{ id: "w", actions: [{ stepId: "ask", name: "awaitInput", config: {} }] }]);
    const running = await dispatched(t, waiting.id);
    const busy = expectError(await retry(t, running, { from_step: "w" }), 409, "CONFLICT");
    expect(busy.details.run_status).toBe("running");
    expect((await runRecord(t, running)).attempt).toBe(0);
  });
});
