// invokeWorkflow: a child run through the dispatch path, once per attempt,
// handed to its own object without the parent waiting for it.
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { executeAction } from "../../src/workflows/actions/catalog";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { activeWorkflow, createWorkflow, minimalDefinition } from "./fixture";
import { context, invocation, policyGranting } from "./actions-support";
import { dispatched, inObject, manualWorkflow, runRecord } from "./orchestrator-support";

const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
afterAll(() => database.close());

/** A real parent run: the child's parent_run_id names it. */
async function parentRun(t: TenantCreds): Promise<string> {
  const { id } = await activeWorkflow(t, minimalDefinition());
  const res = await call("POST", "/workflows/wr", { auth: t.auth, body: { workflow_id: id, trigger_id: "manual" } });
  expect(res.status, res.text).toBe(202);
  return res.json.data.workflow_run.id;
}

const childRows = (parentId: string) =>
  systemQuery(
    `SELECT id, workflow_id, trigger_key, trigger_type, status, context, idempotency_key, parent_run_id FROM workflow_runs WHERE parent_run_id = $1 ORDER BY created_at, id`,
    [parentId],
  );

describe("invokeWorkflow", () => {
  it("starts exactly one pending child run with parent_run_id, even when the same attempt executes twice, and hands it over each time", async () => {
    const t = await createTenant();
    const parent = await parentRun(t);
    const { id: childWorkflow } = await activeWorkflow(t, minimalDefinition());
    const ctx = context(database, { runId: parent, tenantId: t.tenantId, policyId: await policyGranting(t, ["workflow:create"]) });
    const inv = invocation("invokeWorkflow", { workflowId: childWorkflow, input: { order: 7 } }, {}, parent);

    const first = await executeAction(inv, ctx);
    const second = await executeAction(inv, ctx);

    const rows = await childRows(parent);
    expect(rows).toHaveLength(1);
    const child = rows[0];
    expect(child).toMatchObject({
      workflow_id: childWorkflow,
      trigger_key: "manual",
      trigger_type: "webhook",
      status: "pending",
      idempotency_key: `${parent}:a/0:1`,
      parent_run_id: parent,
      context: { input: { order: 7 }, trigger: { id: "manual", type: "webhook" }, run: { id: child.id } },
    });
    expect(first).toEqual({ kind: "success", result: { run_id: child.id }, detail: { child_run_id: child.id } });
    expect(second).toEqual(first);
    expect(ctx.handedOver).toEqual([
      { tenantId: t.tenantId, runId: child.id },
      { tenantId: t.tenantId, runId: child.id },
    ]);
  });

  it("starts a new child for a new attempt, through the named trigger, with {} as the default input", async () => {
    const t = await createTenant();
    const parent = await parentRun(t);
    const { id: childWorkflow } = await activeWorkflow(t, minimalDefinition({ triggers: [{ id: "hook", webhook: { methods: ["POST"] } }] }));
    const ctx = context(database, { runId: parent, tenantId: t.tenantId, policyId: await policyGranting(t, ["workflow:create"]) });
    const config = { workflowId: childWorkflow, triggerId: "hook" };
    const one = await executeAction(invocation("invokeWorkflow", config, { attempt: 1 }, parent), ctx);
    const two = await executeAction(invocation("invokeWorkflow", config, { attempt: 2 }, parent), ctx);
    const byKey: Record<string, any> = Object.fromEntries((await childRows(parent)).map((r) => [r.idempotency_key, r]));
    expect(Object.keys(byKey).sort()).toEqual([`${parent}:a/0:1`, `${parent}:a/0:2`]);
    expect(one).toMatchObject({ kind: "success", result: { run_id: byKey[`${parent}:a/0:1`].id } });
    expect(two).toMatchObject({ kind: "success", result: { run_id: byKey[`${parent}:a/0:2`].id } });
    for (const row of Object.values(byKey)) {
      expect(row).toMatchObject({ trigger_key: "hook", parent_run_id: parent });
      expect(row.context.input).toEqual({});
    }
  });

  it("answers the dispatch refusals as error outcomes and starts nothing", async () => {
    const t = await createTenant();
    const parent = await parentRun(t);
    const type = await call("POST", "/entity/entity-types", {
      auth: t.auth,
      body: { name: "Thing", schema: { type: "object" }, config: { identifier_key: ["sku"] } },
    });
    const { id: withEvent } = await activeWorkflow(
      t,
      minimalDefinition({
        triggers: [
          { id: "manual", webhook: { methods: ["POST"] } },
          { id: "ev", source: { entityTypeId: type.json.data.id, eventAction: "created" } },
        ],
      }),
    );
    const { id: draft } = await createWorkflow(t, minimalDefinition());
    const unknown = crypto.randomUUID();
    const ctx = context(database, { runId: parent, tenantId: t.tenantId, policyId: await policyGranting(t, ["workflow:create"]) });
    const run = (config: object) => executeAction(invocation("invokeWorkflow", config, {}, parent), ctx);

    expect(await run({ workflowId: unknown })).toEqual({
      kind: "error",
      error: { status: 404, code: "NOT_FOUND", message: `Workflow ${unknown} not found`, details: {} },
    });
    expect(await run({ workflowId: draft })).toEqual({
      kind: "error",
      error: {
        status: 422,
        code: "UNPROCESSABLE_ENTITY",
        message: `Workflow ${draft} is not activated`,
        details: { workflow_id: draft, trigger_id: "manual" },
      },
    });
    expect(await run({ workflowId: withEvent, triggerId: "ev" })).toEqual({
      kind: "error",
      error: {
        status: 422,
        code: "UNPROCESSABLE_ENTITY",
        message: "Trigger ev fires only from its entity event; it cannot be dispatched",
        details: { workflow_id: withEvent, trigger_id: "ev" },
      },
    });
    expect(await run({ workflowId: withEvent, triggerId: "missing" })).toMatchObject({
      kind: "error",
      error: { status: 422, message: `Workflow ${withEvent} has no trigger missing` },
    });
    expect(await childRows(parent)).toEqual([]);
    expect(ctx.handedOver).toEqual([]);
  });

  it("cannot reach another tenant's workflow", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const parent = await parentRun(t);
    const { id: foreign } = await activeWorkflow(other, minimalDefinition());
    const outcome = await executeAction(
      invocation("invokeWorkflow", { workflowId: foreign }, {}, parent),
      context(database, { runId: parent, tenantId: t.tenantId, policyId: await policyGranting(t, ["workflow:create"]) }),
    );
    expect(outcome).toMatchObject({ kind: "error", error: { status: 404, code: "NOT_FOUND" } });
    expect(await systemQuery(`SELECT id FROM workflow_runs WHERE workflow_id = $1`, [foreign])).toEqual([]);
  });

  it("needs workflow:create in the run's policy: without it, or without a policy, the action fails and starts nothing", async () => {
    const t = await createTenant();
    const parent = await parentRun(t);
    const { id: childWorkflow } = await activeWorkflow(t, minimalDefinition());
    for (const policyId of [null, await policyGranting(t, ["workflow:read", "entity:create"])]) {
      const ctx = context(database, { runId: parent, tenantId: t.tenantId, policyId });
      expect(await executeAction(invocation("invokeWorkflow", { workflowId: childWorkflow }, {}, parent), ctx)).toEqual({
        kind: "error",
        error: {
          status: 403,
          code: "FORBIDDEN",
          message: "The run's policy does not allow workflow:create",
          details: { resource: "workflow", action: "create" },
        },
      });
      expect(ctx.handedOver).toEqual([]);
    }
    expect(await childRows(parent)).toEqual([]);
  });

  it("goes on without waiting: the parent ends while its child's slow first action is still out, and the child then runs to success", async () => {
    const t = await createTenant();
    // The child's first answer comes seconds later: a parent that waited for its child would end after it.
    const s = await scenario({ "/slow": [{ status: 200, json: { done: true }, delayMs: 4000 }] });
    const child = await manualWorkflow(t, [{ id: "fetch", actions: [{ stepId: "get", name: "http", config: { url: s.url("/slow") } }] }]);
    const parent = await manualWorkflow(
      t,
      [
        {
          id: "go",
          actions: [
            { stepId: "child", name: "invokeWorkflow", config: { workflowId: child.id, input: { n: 1 } } },
            { stepId: "after", name: "pipe", config: { value: "went on" } },
          ],
        },
      ],
      {},
      { policy_id: await policyGranting(t, ["workflow:create"]) },
    );

    const parentId = await dispatched(t, parent.id);
    const parentRun = await runRecord(t, parentId);
    expect([parentRun.status, parentRun.outputs.go.after]).toEqual(["success", "went on"]);
    const [row] = await childRows(parentId);
    expect(parentRun.outputs.go.child).toEqual({ run_id: row.id });
    expect(parentRun.job_runs[0].action_runs[0]).toMatchObject({ status: "success", result: { run_id: row.id } });
    // The parent's walk is over, its child's is not: the child was handed over, not run inside the action.
    expect(["pending", "running"]).toContain((await runRecord(t, row.id)).status);
    // Handed over durably: the child's object was armed before the action ended, so a lost start is taken up by its alarm.
    expect(await inObject(row.id, (_, state) => state.storage.get("ref"))).toEqual({ tenantId: t.tenantId, runId: row.id });

    // A second start waits behind the child's walk and returns once it ended.
    await kickRuns(env, [{ tenantId: t.tenantId, runId: row.id }]);
    const childRun = await runRecord(t, row.id);
    expect([childRun.status, childRun.outputs.fetch.get.body, childRun.context.input]).toEqual(["success", { done: true }, { n: 1 }]);
    expect((await s.requests()).length).toBe(1);
    expect(Date.parse(parentRun.finished_at)).toBeLessThan(Date.parse(childRun.job_runs[0].action_runs[0].finished_at));
  });
});
