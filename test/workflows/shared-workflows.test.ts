// A workflow definition shared with another tenant (POST /access/shares,
// resource_type workflow): the target reads it (source_type shared, never
// changes it) and activates it as its own, with its env, policy, triggers,
// schedules and runs; the owner's activation goes on untouched; a revoked
// share stops every firing of the target's activation at once.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, withSystemDb, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";
import { activateWorkflow, createWorkflow, minimalDefinition, type ActivationAnswer } from "./fixture";
import { dispatched, runRecord } from "./orchestrator-support";
import { dispatchDueSchedules } from "../../src/workflows/triggers/cron-tick";

const loose = { type: "object", required: ["code"], properties: { code: { type: "string" } } };

/** Reads the tenant's orders and echoes its env's LABEL: what a run reads tells whose run it is. */
function definition(orderTypeId: string) {
  return {
    config: { env: { LABEL: null } },
    jobs: [
      {
        id: "q",
        input: { label: "{{ config.env.LABEL }}" },
        actions: [
          { name: "queryEntity", stepId: "orders", config: { typeName: "Order" } },
          { name: "pipe", stepId: "label", config: { value: "{{ input.label }}" } },
        ],
      },
    ],
    triggers: [
      { id: "manual", webhook: { methods: ["POST"] } },
      { id: "on", source: { entityTypeId: orderTypeId, eventAction: "created" } },
      { id: "nightly", cron: "0 3 * * *" },
    ],
  };
}

/** Waits until the tenant's outbox is empty: the claim and the runs it starts commit together. */
async function settle(tenantId: string) {
  for (let i = 0; i < 200; i++) {
    const [row] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE tenant_id = $1", [tenantId]);
    if (row.n === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("events were not delivered");
}

async function runsOf(workflowId: string, tenantId: string, triggerKey: string) {
  return systemQuery<{ id: string; trigger_id: string; entity_id: string | null }>(
    "SELECT id, trigger_id, entity_id FROM workflow_runs WHERE workflow_id = $1 AND tenant_id = $2 AND trigger_key = $3 ORDER BY created_at, id",
    [workflowId, tenantId, triggerKey],
  );
}

const trigger = (activation: ActivationAnswer, key: string) => activation.triggers.find((t) => t.id === key)!;

async function tick(iso: string, triggerIds: string[]) {
  await systemQuery("UPDATE cron_schedules SET next_run_at = $2 WHERE trigger_id = ANY($1::uuid[])", [triggerIds, iso]);
  await withSystemDb((db) => dispatchDueSchedules(db, new Date(iso)));
}

async function shareWorkflow(owner: TenantCreds, workflowId: string, target: TenantCreds) {
  return call("POST", "/access/shares", { auth: owner.auth, body: { resource_type: "workflow", resource_id: workflowId, target_tenant_id: target.tenantId } });
}

describe("a workflow shared with another tenant", () => {
  let owner: TenantCreds;
  let target: TenantCreds;
  let orderTypes: { owner: string; target: string };
  let wf: string;
  let unshared: string;
  let shareId: string;
  let ownerActivation: ActivationAnswer;
  let targetActivation: ActivationAnswer;

  beforeAll(async () => {
    [owner, target] = await Promise.all([createTenant(), createTenant()]);
    const [a, b] = await Promise.all([
      createType(owner.auth, { name: "Order", schema: loose, config: { identifier_key: ["code"] } }),
      createType(target.auth, { name: "Order", schema: loose, config: { identifier_key: ["code"] } }),
    ]);
    orderTypes = { owner: a.id, target: b.id };
    await createEntity(owner.auth, "Order", "A-1", { code: "a1" });
    await createEntity(target.auth, "Order", "B-1", { code: "b1" });
    await Promise.all([settle(owner.tenantId), settle(target.tenantId)]);
    wf = (await createWorkflow(owner, definition(orderTypes.owner))).id;
    unshared = (await createWorkflow(owner, minimalDefinition())).id;
    ownerActivation = await activateWorkflow(owner, wf, { env: { LABEL: "owner" } });
    const res = await shareWorkflow(owner, wf, target);
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ resource_type: "workflow", resource_id: wf, target_tenant_id: target.tenantId, actions: ["read"], source: "api" });
    shareId = res.json.data.id;
  });

  it("a share names a workflow of the owner's: another tenant's or an unknown one is 404, and nothing is shared", async () => {
    const own = await createWorkflow(target, minimalDefinition());
    for (const id of [own.id, crypto.randomUUID()]) {
      const err = expectError(await shareWorkflow(owner, id, target), 404, "NOT_FOUND");
      expect(err.message).toContain(id);
    }
    const [{ n }] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM shares WHERE tenant_id = $1", [owner.tenantId]);
    expect(n).toBe(1);
  });

  it("the target lists and reads it with source_type shared; the owner reads it without", async () => {
    const own = await createWorkflow(target, minimalDefinition());
    const list = await call("GET", "/definition/workflows", { auth: target.auth });
    expect(list.status, list.text).toBe(200);
    const byId = new Map((list.json.data as { id: string; source_type?: string }[]).map((w) => [w.id, w]));
    expect(byId.get(wf)?.source_type).toBe("shared");
    expect(byId.has(own.id)).toBe(true);
    expect(byId.get(own.id)).not.toHaveProperty("source_type");
    expect(byId.has(unshared)).toBe(false);

    const read = await call("GET", `/definition/workflows/${wf}`, { auth: target.auth });
    expect(read.status, read.text).toBe(200);
    expect(read.json.data).toMatchObject({ id: wf, source_type: "shared", version: 1, definition_json: definition(orderTypes.owner) });
    const ownerRead = await call("GET", `/definition/workflows/${wf}`, { auth: owner.auth });
    expect(ownerRead.json.data).not.toHaveProperty("source_type");
  });

  it("the target's PUT and DELETE are 403 FORBIDDEN and change nothing", async () => {
    const put = await call("PUT", `/definition/workflows/${wf}`, { auth: target.auth, body: { name: "taken-over", definition_json: minimalDefinition() } });
    expectError(put, 403, "FORBIDDEN");
    expectError(await call("DELETE", `/definition/workflows/${wf}`, { auth: target.auth }), 403, "FORBIDDEN");
    const [row] = await systemQuery("SELECT version, name FROM workflow_definitions WHERE id = $1", [wf]);
    expect(row.version).toBe(1);
    expect(row.name).not.toBe("taken-over");
  });

  it("an unshared workflow of the owner is 404 on every verb in the target", async () => {
    const attempts = [
      call("GET", `/definition/workflows/${unshared}`, { auth: target.auth }),
      call("PUT", `/definition/workflows/${unshared}`, { auth: target.auth, body: { name: "x", definition_json: minimalDefinition() } }),
      call("DELETE", `/definition/workflows/${unshared}`, { auth: target.auth }),
      call("POST", `/workflows/${unshared}/activate`, { auth: target.auth, body: {} }),
      call("POST", "/workflows/wr", { auth: target.auth, body: { workflow_id: unshared, trigger_id: "manual" } }),
    ];
    for (const res of await Promise.all(attempts)) expectError(res, 404, "NOT_FOUND");
  });

  it("the target activates it as its own: its env, policy, triggers and schedules; job bindings stay the owner's", async () => {
    const missing = expectError(await call("POST", `/workflows/${wf}/activate`, { auth: target.auth, body: {} }), 422, "VALIDATION_FAILED");
    expect(missing.details.missing_env_vars).toEqual(["LABEL"]);
    const rebind = await call("POST", `/workflows/${wf}/activate`, {
      auth: target.auth,
      body: { env: { LABEL: "target" }, job_bindings: { q: crypto.randomUUID() } },
    });
    expect(expectError(rebind, 422, "VALIDATION_FAILED").details.errors[0]).toMatch(/^job_bindings: the workflow is shared with this tenant/);

    targetActivation = await activateWorkflow(target, wf, { env: { LABEL: "target" } });
    expect(targetActivation).toMatchObject({
      workflow_id: wf,
      status: "active",
      version: 1,
      env: { LABEL: "target" },
      required_permissions: ["entity:read:Order"],
    });
    expect(targetActivation.policy_id).not.toBe(ownerActivation.policy_id);
    for (const key of ["manual", "on", "nightly"]) expect(trigger(targetActivation, key).trigger_id).not.toBe(trigger(ownerActivation, key).trigger_id);
    expect(trigger(targetActivation, "manual").webhook_url).toBe(`http://platform.test/workflows/hooks/${trigger(targetActivation, "manual").trigger_id}`);

    const activations = await systemQuery("SELECT tenant_id, env, policy_id FROM workflow_activations WHERE workflow_id = $1", [wf]);
    expect(new Map(activations.map((a) => [a.tenant_id, a.env.LABEL]))).toEqual(
      new Map([
        [owner.tenantId, "owner"],
        [target.tenantId, "target"],
      ]),
    );
    const [policy] = await systemQuery("SELECT tenant_id, name FROM policies WHERE id = $1", [targetActivation.policy_id]);
    expect(policy.tenant_id).toBe(target.tenantId);
    // The target's event trigger names its own Order type, the owner's the owner's.
    const events = await systemQuery("SELECT tenant_id, entity_type_id FROM workflow_triggers WHERE workflow_id = $1 AND key = 'on'", [wf]);
    expect(new Map(events.map((t) => [t.tenant_id, t.entity_type_id]))).toEqual(
      new Map([
        [owner.tenantId, orderTypes.owner],
        [target.tenantId, orderTypes.target],
      ]),
    );
    const schedules = await call("GET", `/workflows/schedules?workflow_id=${wf}`, { auth: target.auth });
    expect(schedules.json.data.map((s: { trigger_id: string }) => s.trigger_id)).toEqual([trigger(targetActivation, "nightly").trigger_id]);

    // The owner's activation is as it was.
    const again = await call("GET", `/workflows/schedules?workflow_id=${wf}`, { auth: owner.auth });
    expect(again.json.data.map((s: { trigger_id: string }) => s.trigger_id)).toEqual([trigger(ownerActivation, "nightly").trigger_id]);
    const [def] = await systemQuery("SELECT status FROM workflow_definitions WHERE id = $1", [wf]);
    expect(def.status).toBe("active");
  });

  it("each tenant's dispatch runs with its env and reads its entities; each sees only its own runs", async () => {
    const targetRun = await dispatched(target, wf);
    const ownerRun = await dispatched(owner, wf);
    const t = await runRecord(target, targetRun);
    expect(t.status).toBe("success");
    expect(t.outputs.q.label).toBe("target");
    expect(t.outputs.q.orders.data.map((e: { name: string }) => e.name)).toEqual(["B-1"]);
    const o = await runRecord(owner, ownerRun);
    expect(o.outputs.q.label).toBe("owner");
    expect(o.outputs.q.orders.data.map((e: { name: string }) => e.name)).toEqual(["A-1"]);

    expectError(await call("GET", `/workflows/runs/workflows/${targetRun}`, { auth: owner.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/workflows/runs/workflows/${ownerRun}`, { auth: target.auth }), 404, "NOT_FOUND");
    const listed = await call("GET", `/workflows/runs/workflows?workflow_id=${wf}`, { auth: target.auth });
    expect(listed.json.data.map((r: { id: string }) => r.id)).toEqual([targetRun]);
    const [row] = await systemQuery("SELECT tenant_id FROM workflow_runs WHERE id = $1", [targetRun]);
    expect(row.tenant_id).toBe(target.tenantId);
  });

  it("the target's webhook starts a run of the target's activation", async () => {
    const res = await call("POST", `/workflows/hooks/${trigger(targetActivation, "manual").trigger_id}`, { body: { via: "hook" } });
    expect(res.status, res.text).toBe(202);
    const [row] = await systemQuery("SELECT tenant_id, trigger_id, context FROM workflow_runs WHERE id = $1", [res.json.data.workflow_run.id]);
    expect(row).toMatchObject({ tenant_id: target.tenantId, trigger_id: trigger(targetActivation, "manual").trigger_id });
    expect(row.context.input.body).toEqual({ via: "hook" });
  });

  it("an event fires the activation of its own tenant only", async () => {
    const b2 = await createEntity(target.auth, "Order", "B-2", { code: "b2" });
    await settle(target.tenantId);
    expect((await runsOf(wf, target.tenantId, "on")).map((r) => r.entity_id)).toEqual([b2.id]);
    expect(await runsOf(wf, owner.tenantId, "on")).toEqual([]);
    const a2 = await createEntity(owner.auth, "Order", "A-2", { code: "a2" });
    await settle(owner.tenantId);
    expect((await runsOf(wf, owner.tenantId, "on")).map((r) => r.entity_id)).toEqual([a2.id]);
    expect((await runsOf(wf, target.tenantId, "on")).map((r) => r.entity_id)).toEqual([b2.id]);
  });

  it("the cron tick runs each tenant's schedule in that tenant", async () => {
    const ids = [trigger(ownerActivation, "nightly").trigger_id, trigger(targetActivation, "nightly").trigger_id];
    await tick("2003-02-03T03:00:00Z", ids);
    expect((await runsOf(wf, owner.tenantId, "nightly")).map((r) => r.trigger_id)).toEqual([ids[0]]);
    expect((await runsOf(wf, target.tenantId, "nightly")).map((r) => r.trigger_id)).toEqual([ids[1]]);
  });

  it("the owner cannot delete it while the target's activation stands: 409 with the count", async () => {
    const err = expectError(await call("DELETE", `/definition/workflows/${wf}`, { auth: owner.auth }), 409, "CONFLICT");
    expect(err.details).toMatchObject({ workflow_id: wf, activations: 1 });
    const [{ n }] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM workflow_definitions WHERE id = $1", [wf]);
    expect(n).toBe(1);
  });

  it("a revoked share stops the target at once: no read, dispatch, webhook, event or cron run; the owner goes on", async () => {
    const revoked = await call("DELETE", `/access/shares/${shareId}`, { auth: owner.auth });
    expect(revoked.status, revoked.text).toBe(200);
    const before = (await systemQuery("SELECT id FROM workflow_runs WHERE workflow_id = $1 AND tenant_id = $2", [wf, target.tenantId])).length;

    expectError(await call("GET", `/definition/workflows/${wf}`, { auth: target.auth }), 404, "NOT_FOUND");
    expectError(await call("POST", "/workflows/wr", { auth: target.auth, body: { workflow_id: wf, trigger_id: "manual" } }), 404, "NOT_FOUND");
    expectError(await call("POST", `/workflows/${wf}/activate`, { auth: target.auth, body: {} }), 404, "NOT_FOUND");
    expectError(await call("PUT", `/workflows/${wf}/triggers/manual/disable`, { auth: target.auth }), 404, "NOT_FOUND");
    expectError(await call("POST", `/workflows/hooks/${trigger(targetActivation, "manual").trigger_id}`, { body: {} }), 404, "NOT_FOUND");
    await createEntity(target.auth, "Order", "B-3", { code: "b3" });
    await settle(target.tenantId);
    await tick("2003-02-04T03:00:00Z", [trigger(targetActivation, "nightly").trigger_id]);
    const after = await systemQuery("SELECT id FROM workflow_runs WHERE workflow_id = $1 AND tenant_id = $2", [wf, target.tenantId]);
    expect(after.length).toBe(before);
    // The target's past runs stay its own rows.
    const listed = await call("GET", `/workflows/runs/workflows?workflow_id=${wf}`, { auth: target.auth });
    expect(listed.json.data.length).toBe(before);

    const ownerRun = await dispatched(owner, wf);
    expect((await runRecord(owner, ownerRun)).status).toBe("success");

    // Revoked, the target's activation no longer holds the owner back.
    const deleted = await call("DELETE", `/definition/workflows/${wf}`, { auth: owner.auth });
    expect(deleted.status, deleted.text).toBe(200);
    const [{ n }] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM workflow_activations WHERE workflow_id = $1", [wf]);
    expect(n).toBe(0);
  });
});
