// Test runs: POST /definition/workflows/{id}/test-runs runs a definition's
// current version once, draft or active, as the caller, with the env and
// input given; the run is listed and recorded with test: true. Each test run
// is waited for the way `dispatched` waits: a kick of its own queues behind
// the route's and returns once the walk went as far as it goes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_INVOKE_DEPTH } from "../../src/workflows/dispatch";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { roleToken } from "../access/fixture";
import { policyGranting } from "./actions-support";
import { activateWorkflow, createWorkflow } from "./fixture";
import { descendants, dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

const testRun = (auth: string, workflowId: string, body?: object) =>
  call("POST", `/definition/workflows/${workflowId}/test-runs`, { auth, ...(body && { body }) });

/** Starts a test run and waits for its object to have walked it as far as it goes; answers its record. */
async function tested(t: TenantCreds, workflowId: string, body?: object, auth = t.auth) {
  const res = await testRun(auth, workflowId, body);
  expect(res.status, res.text).toBe(202);
  expect(Object.keys(res.json.data.workflow_run)).toEqual(["id"]);
  const runId = res.json.data.workflow_run.id as string;
  await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
  return runRecord(t, runId);
}

const runCount = (workflowId: string) =>
  systemQuery(`SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_id = $1`, [workflowId]).then((r) => r[0].n as number);

/** One job echoing what a step sees: the env value, the input, the trigger and the trigger's context data. */
const ECHO = {
  config: { env: { GREETING: null, PUNCT: "!" } },
  jobs: [
    {
      id: "a",
      input: { text: "{{ config.env.GREETING & ' ' & context.input.who & config.env.PUNCT }}", trigger: "{{ context.trigger }}", data: "{{ context.data }}" },
      actions: [{ stepId: "echo", name: "pipe", config: { value: "{{ input }}" } }],
    },
  ],
  triggers: [
    { id: "manual", webhook: { methods: ["POST"] } },
    { id: "nightly", cron: "0 3 * * *", contextData: { kind: "{{ context.trigger.type }}", who: "{{ context.input.who }}" } },
  ],
};

describe("POST /definition/workflows/{id}/test-runs", () => {
  it("runs a draft once with the env and input given: trigger { id: null, type: test }, test: true in the record and the list", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, ECHO);
    const run = await tested(t, id, { input: { who: "ann" }, env: { GREETING: "hello" } });
    expect(run).toMatchObject({
      workflow_id: id,
      workflow_version: 1,
      trigger: { id: null, type: "test" },
      test: true,
      status: "success",
      attempt: 0,
      context: { input: { who: "ann" }, trigger: { id: null, type: "test" }, run: { id: run.id } },
      outputs: { a: { echo: { text: "hello ann!", trigger: { id: null, type: "test" } } } },
      error: null,
    });
    const [row] = await systemQuery(`SELECT test, trigger_id, trigger_key, trigger_type, test_env, caller_token_id, depth FROM workflow_runs WHERE id = $1`, [
      run.id,
    ]);
    expect(row).toEqual({
      test: true,
      trigger_id: null,
      trigger_key: null,
      trigger_type: "test",
      test_env: { GREETING: "hello" },
      caller_token_id: t.tokenId,
      depth: 0,
    });
    // The definition is still a draft: nothing was activated, no trigger row made.
    expect((await call("GET", `/definition/workflows/${id}`, { auth: t.auth })).json.data.status).toBe("draft");
    expect(await systemQuery(`SELECT id FROM workflow_triggers WHERE workflow_id = $1`, [id])).toEqual([]);
    const list = await call("GET", `/workflows/runs/workflows?workflow_id=${id}`, { auth: t.auth });
    expect(list.json.data.map((r: any) => [r.id, r.test, r.trigger])).toEqual([[run.id, true, { id: null, type: "test" }]]);
  });

  it("simulates a trigger of any type named by trigger_id: its id and type in context.trigger, its contextData evaluated", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, ECHO);
    const run = await tested(t, id, { trigger_id: "nightly", input: { who: "bo" }, env: { GREETING: "hi", PUNCT: "?" } });
    expect(run.trigger).toEqual({ id: "nightly", type: "cron" });
    expect(run.context).toEqual({ input: { who: "bo" }, trigger: { id: "nightly", type: "cron" }, run: { id: run.id }, data: { kind: "cron", who: "bo" } });
    expect(run.outputs).toEqual({ a: { echo: { text: "hi bo?", trigger: { id: "nightly", type: "cron" }, data: { kind: "cron", who: "bo" } } } });
    // Left out, input is {}.
    const bare = await tested(t, id, { trigger_id: "manual", env: { GREETING: "yo" } });
    expect([bare.trigger, bare.context.input]).toEqual([{ id: "manual", type: "webhook" }, {}]);
  });

  it("runs an active definition's latest save with the env given, never the activation's env, and fires no trigger", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, ECHO);
    await activateWorkflow(t, id, { env: { GREETING: "from-activation" } });
    const saved = await call("PUT", `/definition/workflows/${id}`, {
      auth: t.auth,
      body: { name: `wf-${id.slice(0, 8)}`, definition_json: { ...ECHO, config: { env: { GREETING: null, PUNCT: "." } } } },
    });
    expect(saved.status, saved.text).toBe(200);
    // The activation's GREETING does not count: the test run must set it.
    const missing = expectError(await testRun(t.auth, id, { input: { who: "cy" } }), 422, "VALIDATION_FAILED");
    expect(missing.details.missing_env_vars).toEqual(["GREETING"]);
    const run = await tested(t, id, { input: { who: "cy" }, env: { GREETING: "hey" } });
    expect([run.workflow_version, run.test, run.outputs.a.echo.text]).toEqual([2, true, "hey cy."]);
    // A dispatched run of the same workflow is no test run, and follows the activated version and env.
    const normal = await runRecord(t, await dispatched(t, id, { who: "di" }));
    expect([normal.workflow_version, normal.test, normal.outputs.a.echo.text]).toEqual([1, false, "from-activation di!"]);
    const list = await call("GET", `/workflows/runs/workflows?workflow_id=${id}`, { auth: t.auth });
    expect(list.json.data.map((r: any) => [r.id, r.test]).sort()).toEqual(
      [
        [run.id, true],
        [normal.id, false],
      ].sort(),
    );
  });

  it("acts with the caller's permissions, not the workflow's policy", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    await createEntity(t.auth, "Product", "P-1", { sku: "s1", title: "one" });
    const { id } = await createWorkflow(t, { jobs: [{ id: "q", actions: [{ stepId: "find", name: "queryEntity", config: { typeName: "Product" } }] }] });
    // The activation's policy grants nothing: a dispatched run could not read.
    await activateWorkflow(t, id, { policy_id: await policyGranting(t, ["workflow:read"]) });
    const reader = await roleToken(t.auth, ["workflow:create", "entity:read"]);
    const allowed = await tested(t, id, {}, reader.auth);
    expect(allowed.status).toBe("success");
    expect(allowed.outputs.q.find.data.map((e: any) => e.attributes.sku)).toEqual(["s1"]);
    expect((await systemQuery(`SELECT caller_token_id FROM workflow_runs WHERE id = $1`, [allowed.id]))[0].caller_token_id).toBe(reader.tokenId);

    const blind = await roleToken(t.auth, ["workflow:create"]);
    const refused = await tested(t, id, {}, blind.auth);
    expect(refused.status).toBe("error");
    expect(refused.job_runs[0].action_runs[0].error).toMatchObject({ status: 403, code: "FORBIDDEN", details: { resource: "entity", action: "read" } });
  });

  it("needs workflow:create; another tenant's or an unknown workflow is 404; bad bodies and unknown triggers are 422 and start nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const { id } = await createWorkflow(t, ECHO);
    const reader = await roleToken(t.auth, ["workflow:read", "definition:read"]);
    expect(expectError(await testRun(reader.auth, id, { env: { GREETING: "x" } }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "workflow",
      action: "create",
    });
    expectError(await testRun(other.auth, id, { env: { GREETING: "x" } }), 404, "NOT_FOUND");
    expectError(await testRun(t.auth, crypto.randomUUID(), { env: { GREETING: "x" } }), 404, "NOT_FOUND");
    const unknown = expectError(await testRun(t.auth, id, { trigger_id: "nope", env: { GREETING: "x" } }), 422, "UNPROCESSABLE_ENTITY");
    expect(unknown.message).toBe(`Workflow ${id} has no trigger nope`);
    expect(unknown.details).toMatchObject({ workflow_id: id, trigger_id: "nope" });
    // A null leaves the sentinel unset, as no env at all does.
    for (const body of [undefined, {}, { env: { GREETING: null } }]) {
      const missing = expectError(await testRun(t.auth, id, body), 422, "VALIDATION_FAILED");
      expect(missing.details.missing_env_vars).toEqual(["GREETING"]);
    }
    for (const body of [
      { env: "GREETING=x" },
      { trigger_id: 7, env: { GREETING: "x" } },
      { trigger_id: "", env: { GREETING: "x" } },
      { env: { GREETING: "x" }, extra: 1 },
      { env: { "bad name": 1 } },
    ]) {
      expectError(await testRun(t.auth, id, body), 422, "VALIDATION_FAILED");
    }
    expect(await runCount(id)).toBe(0);
  });

  it("bounds a definition that invokes itself: the chain stops MAX_INVOKE_DEPTH runs below the test run, the last one failing with a clear error", async () => {
    const t = await createTenant();
    // The workflow names itself, so it is saved once to learn its id, then saved again naming it.
    const looping = await manualWorkflow(
      t,
      [{ id: "again", actions: [{ stepId: "self", name: "pipe", config: {} }] }],
      {},
      { policy_id: await policyGranting(t, ["workflow:create"]) },
    );
    const jobs = [{ id: "again", actions: [{ stepId: "self", name: "invokeWorkflow", config: { workflowId: looping.id, input: { from: "{{ input }}" } } }] }];
    const saved = await call("PUT", `/definition/workflows/${looping.id}`, {
      auth: t.auth,
      body: { name: `loop-${looping.id.slice(0, 8)}`, definition_json: { jobs, triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] } },
    });
    expect(saved.status, saved.text).toBe(200);
    await activateWorkflow(t, looping.id);

    const first = await tested(t, looping.id);
    await descendants(t, first.id);
    const chain = await systemQuery(`SELECT id, parent_run_id, depth, test, status FROM workflow_runs WHERE workflow_id = $1 ORDER BY depth`, [looping.id]);
    expect(chain.map((r) => r.depth)).toEqual([...Array(MAX_INVOKE_DEPTH + 1).keys()]);
    expect(chain[0]).toMatchObject({ id: first.id, parent_run_id: null, test: true });
    for (let i = 1; i < chain.length; i++) expect([chain[i].parent_run_id, chain[i].test]).toEqual([chain[i - 1].id, false]);
    expect(chain.slice(0, -1).map((r) => r.status)).toEqual(Array(MAX_INVOKE_DEPTH).fill("success"));
    const last = await runRecord(t, chain.at(-1)!.id);
    expect(last.status).toBe("error");
    expect(last.job_runs[0].action_runs[0].error).toEqual({
      status: 422,
      code: "UNPROCESSABLE_ENTITY",
      message: `Run ${last.id} is ${MAX_INVOKE_DEPTH} invokeWorkflow calls below the run that started its chain; a chain stops at ${MAX_INVOKE_DEPTH} (does the workflow invoke itself?)`,
      details: { workflow_id: looping.id, parent_run_id: last.id, max_depth: MAX_INVOKE_DEPTH },
    });
  });
});
