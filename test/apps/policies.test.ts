// App policies and job bindings on the config write, through the gateway.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { unchangedBy } from "../access/admin";
import { roleToken } from "../access/fixture";
import { addVersion, appFootprint, dashboards, insertSpec, publishJob, putConfig, shareSpec } from "./fixture";

const refused = unchangedBy(appFootprint);

const grantsOf = (policyId: string) =>
  systemQuery(`SELECT resource, actions, resource_name, resource_id FROM grants WHERE policy_id = $1 ORDER BY resource, resource_name`, [policyId]);

describe("app policies", () => {
  it("provisions each spec policy as <spec name>:<key>, binds defaultPolicy, narrows $app_config to the activation, and reconciles on every write", async () => {
    const t = await createTenant();
    const v1 = {
      dashboards,
      policies: {
        viewer: {
          grants: [
            { resource: "entity", actions: ["read"], resourceName: "Order" },
            { resource: "app", actions: ["read"], resourceName: "$app_config" },
          ],
        },
        editor: { grants: [{ resource: "entity", actions: ["update"] }] },
      },
      defaultPolicy: "viewer",
    };
    const spec = await insertSpec(t, [v1]);
    const a = (await putConfig(t, spec.id, {})).json.data;
    const policies = await systemQuery(`SELECT id, name, app_policy_key FROM policies WHERE app_activation_id = $1 ORDER BY name`, [a.id]);
    expect(policies.map((p) => p.name)).toEqual([`${spec.name}:editor`, `${spec.name}:viewer`]);
    const viewer = policies.find((p) => p.app_policy_key === "viewer")!;
    expect(a.policy_id).toBe(viewer.id);
    expect(await grantsOf(viewer.id)).toEqual([
      { resource: "app", actions: ["read"], resource_name: null, resource_id: a.id },
      { resource: "entity", actions: ["read"], resource_name: "Order", resource_id: null },
    ]);

    // A new version changes the grants; the ids stay.
    await addVersion(t, spec, { ...v1, policies: { viewer: { grants: [{ resource: "entity", actions: ["read", "update"], resourceName: "Order" }] } } });
    const again = (await putConfig(t, spec.id, {})).json.data;
    expect(again.policy_id).toBe(viewer.id);
    expect(await grantsOf(viewer.id)).toEqual([{ resource: "entity", actions: ["read", "update"], resource_name: "Order", resource_id: null }]);
    expect(await grantsOf(policies.find((p) => p.app_policy_key === "editor")!.id)).toEqual([]);
    // Rolling back to version 1 brings its grants back.
    await putConfig(t, spec.id, { spec_version: 1 });
    expect(await grantsOf(viewer.id)).toHaveLength(2);
  });

  it("lets policy_id or an inline policy override the default, and null return to it", async () => {
    const t = await createTenant();
    const spec = await insertSpec(t, [{ dashboards, policies: { base: { grants: [{ resource: "entity", actions: ["read"] }] } }, defaultPolicy: "base" }]);
    const base = (await putConfig(t, spec.id, {})).json.data.policy_id;
    const own = await call("POST", "/access/policies", {
      auth: t.auth,
      body: { name: `own-${spec.id.slice(0, 6)}`, grants: [{ resource: "entity", actions: ["create"] }] },
    });
    expect((await putConfig(t, spec.id, { policy_id: own.json.data.id })).json.data.policy_id).toBe(own.json.data.id);
    // A later write without a choice keeps it.
    expect((await putConfig(t, spec.id, { config: { x: 1 } })).json.data.policy_id).toBe(own.json.data.id);
    const inline = (await putConfig(t, spec.id, { policy: { grants: [{ resource: "workflow", actions: ["read"] }] } })).json.data.policy_id;
    const [row] = await systemQuery(`SELECT name FROM policies WHERE id = $1`, [inline]);
    expect(row.name).toBe(`${spec.name}:policy`);
    expect(await grantsOf(inline)).toEqual([{ resource: "workflow", actions: ["read"], resource_name: null, resource_id: null }]);
    expect((await putConfig(t, spec.id, { policy_id: null })).json.data.policy_id).toBe(base);
    expectError(await putConfig(t, spec.id, { policy_id: own.json.data.id, policy: { grants: [] } }), 422, "VALIDATION_FAILED");
  });

  it("refuses with 403 naming the first permission the caller lacks, writing nothing", async () => {
    const t = await createTenant();
    const spec = await insertSpec(t, [
      { dashboards, policies: { p: { grants: [{ resource: "entity", actions: ["delete"], resourceName: "Order" }] } }, defaultPolicy: "p" },
    ]);
    const operator = await roleToken(t.auth, ["app:*", "entity:read"]);
    const err = await refused(t, () => putConfig(operator, spec.id, {}), 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ permission: "entity:delete:Order", missing_permissions: ["entity:delete:Order"] });
    expect(err.message).toContain("entity:delete:Order");
    // Once someone who holds it provisioned it, the operator may write config.
    expect((await putConfig(t, spec.id, {})).status).toBe(200);
    expect((await putConfig(operator, spec.id, { config: { a: 1 } })).status).toBe(200);
    const inline = await refused(
      t,
      () => putConfig(operator, spec.id, { policy: { grants: [{ resource: "access", actions: ["update"] }] } }),
      403,
      "FORBIDDEN",
    );
    expect(inline.details.permission).toBe("access:update");
  });
});

/** Shares the owner's job `name` with `target` the one way a job is shared: a workflow whose reference step runs it, shared with /access/shares. */
async function shareJob(owner: TenantCreds, name: string, target: TenantCreds): Promise<string> {
  const workflow = await call("POST", "/definition/workflows", {
    auth: owner.auth,
    body: { name: `uses-${name}`, definition_json: { jobs: [{ id: "run", name }], triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] } },
  });
  expect(workflow.status, workflow.text).toBe(201);
  const share = await call("POST", "/access/shares", {
    auth: owner.auth,
    body: { resource_type: "workflow", resource_id: workflow.json.data.id, target_tenant_id: target.tenantId },
  });
  expect(share.status, share.text).toBe(201);
  return share.json.data.id;
}

const invisible = (id: string) => `job_bindings.enrich: no job definition ${id} visible to this tenant (its own jobs, and those of workflows shared with it)`;

describe("job bindings", () => {
  it("binds slots of a shared spec to jobs the consumer sees: its own, or the owner's once shared with it, never one left unshared", async () => {
    const owner = await createTenant();
    const consumer = await createTenant();
    const spec = await insertSpec(owner, [{ dashboards, jobs: { enrich: null, other: {}, inline: { actions: [{ name: "pipe", config: {} }] } } }]);
    await shareSpec(owner, spec, consumer);
    const ownersName = `job-${crypto.randomUUID().slice(0, 8)}`;
    const ownersJob = await publishJob(owner, ownersName);
    const ownJob = await publishJob(consumer);
    // The spec is shared, the owner's job is not: the whole write is refused, the consumer's own binding with it.
    const unshared = await refused(
      consumer,
      () => putConfig(consumer, spec.id, { job_bindings: { enrich: ownersJob, other: ownJob } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(unshared.details.validation_errors).toEqual([invisible(ownersJob)]);
    expect(await systemQuery(`SELECT id FROM app_activations WHERE tenant_id = $1`, [consumer.tenantId])).toEqual([]);

    await shareJob(owner, ownersName, consumer);
    const ok = await putConfig(consumer, spec.id, { job_bindings: { enrich: ownersJob, other: ownJob } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.job_bindings).toEqual({ enrich: ownersJob, other: ownJob });
    expect((await putConfig(consumer, spec.id, { job_bindings: { other: null } })).json.data.job_bindings).toEqual({ enrich: ownersJob });

    const notSlot = await refused(consumer, () => putConfig(consumer, spec.id, { job_bindings: { inline: ownJob, nope: ownJob } }), 422, "VALIDATION_FAILED");
    expect(notSlot.details.validation_errors).toEqual([
      "job_bindings.inline: not a job slot of the spec (a key of jobs whose value is null or {})",
      "job_bindings.nope: not a job slot of the spec (a key of jobs whose value is null or {})",
    ]);
    const stranger = await publishJob(await createTenant());
    const unknown = crypto.randomUUID();
    for (const id of [stranger, unknown]) {
      const err = await refused(consumer, () => putConfig(consumer, spec.id, { job_bindings: { enrich: id } }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([invisible(id)]);
    }
    expect((await call("GET", `/apps/${spec.id}/config`, { auth: consumer.auth })).json.data.job_bindings).toEqual({ enrich: ownersJob });
  });

  it("lets the owner bind its own jobs, shared or not, and refuses the consumer's, which it cannot see", async () => {
    const owner = await createTenant();
    const consumer = await createTenant();
    const spec = await insertSpec(owner, [{ dashboards, jobs: { enrich: null } }]);
    await shareSpec(owner, spec, consumer);
    const ownersJob = await publishJob(owner);
    const consumersJob = await publishJob(consumer);
    const err = await refused(owner, () => putConfig(owner, spec.id, { job_bindings: { enrich: consumersJob } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual([invisible(consumersJob)]);
    const ok = await putConfig(owner, spec.id, { job_bindings: { enrich: ownersJob } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.job_bindings).toEqual({ enrich: ownersJob });
  });
});
