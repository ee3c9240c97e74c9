// App policies and job bindings on the config write, through the gateway.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
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
        viewer: { grants: [{ resource: "entity", actions: ["read"], resourceName: "Order" }, { resource: "app", actions: ["read"], resourceName: "$app_config" }] },
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
    const own = await call("POST", "/access/policies", { auth: t.auth, body: { name: `own-${spec.id.slice(0, 6)}`, grants: [{ resource: "entity", actions: ["create"] }] } });
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
    const spec = await insertSpec(t, [{ dashboards, policies: { p: { grants: [{ resource: "entity", actions: ["delete"], resourceName: "Order" }] } }, defaultPolicy: "p" }]);
    const operator = await roleToken(t.auth, ["app:*", "entity:read"]);
    const err = await refused(t, () => putConfig(operator, spec.id, {}), 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ permission: "entity:delete:Order", missing_permissions: ["entity:delete:Order"] });
    expect(err.message).toContain("entity:delete:Order");
    // Once someone who holds it provisioned it, the operator may write config.
    expect((await putConfig(t, spec.id, {})).status).toBe(200);
    expect((await putConfig(operator, spec.id, { config: { a: 1 } })).status).toBe(200);
    const inline = await refused(t, () => putConfig(operator, spec.id, { policy: { grants: [{ resource: "access", actions: ["update"] }] } }), 403, "FORBIDDEN");
    expect(inline.details.permission).toBe("access:update");
  });
});

describe("job bindings", () => {
  it("binds slots of the spec to the tenant's or the owner's jobs, refusing non-slots and unknown jobs", async () => {
    const owner = await createTenant();
    const consumer = await createTenant();
    const spec = await insertSpec(owner, [{ dashboards, jobs: { enrich: null, other: {}, inline: { actions: [{ name: "pipe", config: {} }] } } }]);
    await shareSpec(owner, spec, consumer);
    const ownersJob = await publishJob(owner);
    const ownJob = await publishJob(consumer);
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
    const invisible = await refused(consumer, () => putConfig(consumer, spec.id, { job_bindings: { enrich: stranger } }), 422, "VALIDATION_FAILED");
    expect(invisible.details.validation_errors).toEqual([`job_bindings.enrich: no job definition ${stranger} visible to this tenant`]);
  });
});
