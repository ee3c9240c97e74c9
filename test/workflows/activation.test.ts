// Activation, config, trigger toggles and direct dispatch, through the API.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createRole, mintWithRoles, unchangedBy, UUID } from "../access/admin";
import { activateWorkflow, activeWorkflow, createWorkflow, minimalDefinition } from "./fixture";

/** Every row activation and dispatch may write for a tenant. */
const footprint = (tenantId: string) =>
  systemQuery(
    `SELECT (SELECT json_agg(d ORDER BY d.id) FROM (SELECT id, status, version FROM workflow_definitions WHERE tenant_id = $1) d) AS defs,
            (SELECT json_agg(a ORDER BY a.workflow_id) FROM (SELECT workflow_id, version, env, job_bindings, policy_id FROM workflow_activations WHERE tenant_id = $1) a) AS acts,
            (SELECT json_agg(t ORDER BY t.id) FROM (SELECT id, key, type, enabled FROM workflow_triggers WHERE tenant_id = $1) t) AS triggers,
            (SELECT json_agg(s ORDER BY s.id) FROM (SELECT id, cron, next_run_at FROM cron_schedules WHERE tenant_id = $1) s) AS schedules,
            (SELECT count(*) FROM workflow_runs WHERE tenant_id = $1) AS runs`,
    [tenantId],
  );
const unchanged = unchangedBy(footprint);

const activate = (t: TenantCreds, id: string, body: unknown) => call("POST", `/workflows/${id}/activate`, { auth: t.auth, body });

describe("activation", () => {
  it("activates a draft: the definition turns active, triggers get rows and absolute webhook URLs", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, minimalDefinition());
    const a = await activateWorkflow(t, id);
    // No policy named: the workflow's own, provisioned with what its actions need (a pipe needs nothing).
    expect(a).toMatchObject({ workflow_id: id, status: "active", version: 1, env: {}, job_bindings: {}, required_permissions: [], warnings: [] });
    expect(a.policy_id).toMatch(UUID);
    expect(a.triggers).toHaveLength(1);
    expect(a.triggers[0]).toMatchObject({ id: "manual", type: "webhook", enabled: true, config_status: "ready" });
    expect(a.triggers[0].trigger_id).toMatch(UUID);
    expect(a.triggers[0].webhook_url).toBe(`http://platform.test/workflows/hooks/${a.triggers[0].trigger_id}`);
    const def = await call("GET", `/definition/workflows/${id}`, { auth: t.auth });
    expect(def.json.data.status).toBe("active");
  });

  it("is idempotent: a repeated activation answers the same and keeps the trigger uuids", async () => {
    const t = await createTenant();
    const { id, activation } = await activeWorkflow(t, minimalDefinition());
    const before = await footprint(t.tenantId);
    expect(await activateWorkflow(t, id)).toEqual(activation);
    expect(await footprint(t.tenantId)).toEqual(before);
  });

  it("merges env: set sets, null unsets back to the default, unmentioned keys keep; sentinels must be supplied", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, minimalDefinition({ config: { env: { A: "a", B: null, C: 1 } } }));
    const err = await unchanged(t, () => activate(t, id, {}), 422, "VALIDATION_FAILED");
    expect(err.details.missing_env_vars).toEqual(["B"]);
    expect(err.details.errors).toEqual(["env.B: must be set (the definition leaves it to the activation)"]);
    expect((await activateWorkflow(t, id, { env: { B: "b" } })).env).toEqual({ A: "a", B: "b", C: 1 });
    expect((await activateWorkflow(t, id, { env: { A: "x", D: { deep: [1] } } })).env).toEqual({ A: "x", B: "b", C: 1, D: { deep: [1] } });
    expect((await activateWorkflow(t, id, { env: { A: null } })).env).toEqual({ A: "a", B: "b", C: 1, D: { deep: [1] } });
    const missing = await unchanged(t, () => activate(t, id, { env: { B: null } }), 422, "VALIDATION_FAILED");
    expect(missing.details.missing_env_vars).toEqual(["B"]);
    // Secret references are kept as written, never resolved.
    expect((await activateWorkflow(t, id, { env: { TOKEN: "{{ secrets.tenant.API_TOKEN }}" } })).env.TOKEN).toBe("{{ secrets.tenant.API_TOKEN }}");
  });

  it("refuses env names that are not identifiers and a body that is not an object", async () => {
    const t = await createTenant();
    const { id } = await createWorkflow(t, minimalDefinition());
    const bad = await unchanged(t, () => activate(t, id, { env: { "bad name": 1 } }), 422, "VALIDATION_FAILED");
    expect(bad.details.errors.join("\n")).toContain("env");
    await unchanged(t, () => activate(t, id, { env: [] }), 422, "VALIDATION_FAILED");
    await unchanged(t, () => activate(t, id, { surprise: true }), 422, "VALIDATION_FAILED");
    await unchanged(t, () => activate(t, id, { policy_id: "not-a-uuid" }), 422, "VALIDATION_FAILED");
  });

  it("validates the effective env against configSchemas.env", async () => {
    const t = await createTenant();
    const reg = await call("POST", "/schema/schemas", {
      auth: t.auth,
      body: { name: "wf-env", schema: { type: "object", required: ["LIMIT"], properties: { LIMIT: { type: "integer", minimum: 5 } } } },
    });
    expect(reg.status, reg.text).toBe(201);
    const { id } = await createWorkflow(t, minimalDefinition({ config: { env: { LIMIT: 1 } }, configSchemas: { env: "wf-env" } }));
    const err = await unchanged(t, () => activate(t, id, {}), 422, "VALIDATION_FAILED");
    expect(err.details.errors).toEqual(["env.LIMIT: 1 is less than 5"]);
    expect((await activateWorkflow(t, id, { env: { LIMIT: 7 } })).env).toEqual({ LIMIT: 7 });

    const { id: other } = await createWorkflow(t, minimalDefinition({ configSchemas: { env: "nowhere" } }));
    const unknown = await unchanged(t, () => activate(t, other, {}), 422, "VALIDATION_FAILED");
    expect(unknown.details.errors).toEqual(["definition_json.configSchemas.env: no schema named nowhere is registered"]);
  });

  it("reconciles triggers on re-activation: kept ones keep their uuid, removed ones go, added ones get rows and schedules", async () => {
    const t = await createTenant();
    const v1 = minimalDefinition({
      triggers: [
        { id: "manual", webhook: { methods: ["POST"] } },
        { id: "hook2", webhook: { methods: ["POST"] } },
      ],
    });
    const { id, activation } = await activeWorkflow(t, v1);
    const manual = activation.triggers.find((x) => x.id === "manual")!.trigger_id;
    const put = await call("PUT", `/definition/workflows/${id}`, {
      auth: t.auth,
      body: {
        name: "renamed",
        definition_json: minimalDefinition({
          triggers: [
            { id: "manual", webhook: { methods: ["POST"] } },
            { id: "hourly", cron: "0 * * * *" },
          ],
        }),
      },
    });
    expect(put.status, put.text).toBe(200);
    const again = await activateWorkflow(t, id);
    expect(again.version).toBe(2);
    expect(again.triggers.map((x) => [x.id, x.type])).toEqual([
      ["manual", "webhook"],
      ["hourly", "cron"],
    ]);
    expect(again.triggers[0].trigger_id).toBe(manual);
    expect(again.triggers[1].webhook_url).toBeUndefined();
    const schedules = await systemQuery(`SELECT trigger_id, cron, catch_up, offset_seconds FROM cron_schedules WHERE workflow_id = $1`, [id]);
    expect(schedules).toHaveLength(1);
    expect(schedules[0]).toMatchObject({ trigger_id: again.triggers[1].trigger_id, cron: "0 * * * *", catch_up: true });
    expect(schedules[0].offset_seconds).toBeGreaterThanOrEqual(0);
    expect(schedules[0].offset_seconds).toBeLessThanOrEqual(9);
    const rows = await systemQuery(`SELECT key FROM workflow_triggers WHERE workflow_id = $1 ORDER BY key`, [id]);
    expect(rows.map((r) => r.key)).toEqual(["hourly", "manual"]);
  });

  it("event triggers must name an entity type of the tenant", async () => {
    const t = await createTenant();
    const missingType = crypto.randomUUID();
    const { id } = await createWorkflow(
      t,
      minimalDefinition({ triggers: [{ id: "on-create", source: { entityTypeId: missingType, eventAction: "created" } }] }),
    );
    const err = await unchanged(t, () => activate(t, id, {}), 422, "VALIDATION_FAILED");
    expect(err.details.errors).toEqual([`definition_json.triggers[0].source.entityTypeId: no entity type ${missingType} in this tenant`]);

    const type = await call("POST", "/entity/entity-types", {
      auth: t.auth,
      body: { name: "Order", schema: { type: "object" }, config: { identifier_key: ["sku"] } },
    });
    expect(type.status, type.text).toBe(201);
    const { id: ok } = await createWorkflow(
      t,
      minimalDefinition({ triggers: [{ id: "on-create", source: { entityTypeId: type.json.data.id, eventAction: "created" } }] }),
    );
    const a = await activateWorkflow(t, ok);
    expect(a.triggers[0]).toMatchObject({ id: "on-create", type: "event", enabled: true });
    expect(a.triggers[0].webhook_url).toBeUndefined();
  });

  it("an unknown or another tenant's workflow is 404", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const { id } = await createWorkflow(other, minimalDefinition());
    expectError(await activate(t, id, {}), 404, "NOT_FOUND");
    expectError(await activate(t, crypto.randomUUID(), {}), 404, "NOT_FOUND");
    expectError(await activate(t, "nope", {}), 422, "VALIDATION_FAILED");
    const row = await systemQuery(`SELECT status FROM workflow_definitions WHERE id = $1`, [id]);
    expect(row[0].status).toBe("draft");
  });
});

describe("the bound policy", () => {
  async function policyWith(t: TenantCreds, grants: { resource: string; actions: string[] }[]) {
    const res = await call("POST", "/access/policies", { auth: t.auth, body: { name: `p-${crypto.randomUUID().slice(0, 6)}`, grants } });
    expect(res.status, res.text).toBe(201);
    return res.json.data.id as string;
  }

  it("binds, keeps when left out, unbinds with null; a bound policy cannot be deleted", async () => {
    const t = await createTenant();
    const policy = await policyWith(t, [{ resource: "entity", actions: ["read"] }]);
    const { id } = await createWorkflow(t, minimalDefinition());
    expect((await activateWorkflow(t, id, { policy_id: policy })).policy_id).toBe(policy);
    expect((await activateWorkflow(t, id)).policy_id).toBe(policy);
    const del = await call("DELETE", `/access/policies/${policy}`, { auth: t.auth });
    expect(expectError(del, 409, "CONFLICT").details).toMatchObject({ policy_id: policy });
    expect((await activateWorkflow(t, id, { policy_id: null })).policy_id).toBeNull();
    expect((await call("DELETE", `/access/policies/${policy}`, { auth: t.auth })).status).toBe(200);
  });

  it("refuses a policy granting more than the caller holds, and an unknown policy", async () => {
    const t = await createTenant();
    const policy = await policyWith(t, [{ resource: "entity", actions: ["delete"] }]);
    await createRole(t, "wf-admin", ["workflow:*", "definition:*"]);
    const narrow = await mintWithRoles(t, ["wf-admin"]);
    const { id } = await createWorkflow(t, minimalDefinition());
    const err = await unchanged(
      { ...t, auth: narrow.auth },
      () => call("POST", `/workflows/${id}/activate`, { auth: narrow.auth, body: { policy_id: policy } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:delete"]);
    const unknown = crypto.randomUUID();
    const e2 = await unchanged(t, () => activate(t, id, { policy_id: unknown }), 422, "VALIDATION_FAILED");
    expect(e2.details.errors).toEqual([`policy_id: no policy ${unknown}`]);
  });

  it("adding grants to a policy a workflow binds needs the caller to hold them", async () => {
    const t = await createTenant();
    const policy = await policyWith(t, []);
    const { id } = await createWorkflow(t, minimalDefinition());
    await activateWorkflow(t, id, { policy_id: policy });
    await createRole(t, "policy-editor", ["access:*"]);
    const editor = await mintWithRoles(t, ["policy-editor"]);
    const res = await call("PUT", `/access/policies/${policy}`, { auth: editor.auth, body: { grants: [{ resource: "entity", actions: ["delete"] }] } });
    expect(expectError(res, 403, "FORBIDDEN").details.missing_permissions).toEqual(["entity:delete"]);
  });

  it("activation needs workflow:update", async () => {
    const t = await createTenant();
    await createRole(t, "reader", ["workflow:read"]);
    const reader = await mintWithRoles(t, ["reader"]);
    const { id } = await createWorkflow(t, minimalDefinition());
    expectError(await call("POST", `/workflows/${id}/activate`, { auth: reader.auth, body: {} }), 403, "FORBIDDEN");
    expectError(await call("POST", `/workflows/${id}/activate`, { body: {} }), 401, "UNAUTHORIZED");
  });
});

describe("config", () => {
  it("needs an activation; then merges env, and a write of job_bindings alone leaves env as it is", async () => {
    const t = await createTenant();
    const job = await call("POST", "/definition/jobs", {
      auth: t.auth,
      body: { name: "shared-job", definition_json: { actions: [{ name: "pipe", config: {} }] } },
    });
    expect(job.status, job.text).toBe(201);
    const { id } = await createWorkflow(
      t,
      minimalDefinition({
        config: { env: { A: null } },
        jobs: [
          { id: "inline", actions: [{ name: "pipe", config: {} }] },
          { id: "ref", name: "shared-job" },
        ],
      }),
    );
    const early = await call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { env: { A: "1" } } });
    expectError(early, 409, "CONFLICT");
    await activateWorkflow(t, id, { env: { A: "1" } });
    const env = await call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { env: { B: 2 } } });
    expect(env.status, env.text).toBe(200);
    expect(env.json.data.env).toEqual({ A: "1", B: 2 });
    const bind = await call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { job_bindings: { ref: job.json.data.id } } });
    expect(bind.json.data).toMatchObject({ env: { A: "1", B: 2 }, job_bindings: { ref: job.json.data.id } });
    expect(bind.json.data.triggers.map((x: { id: string }) => x.id)).toEqual(["manual"]);
    const unset = await unchanged(t, () => call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { env: { A: null } } }), 422, "VALIDATION_FAILED");
    expect(unset.details.missing_env_vars).toEqual(["A"]);
    const inline = await unchanged(
      t,
      () => call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { job_bindings: { inline: job.json.data.id } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(inline.details.errors).toEqual(["job_bindings.inline: not a reference step of the definition"]);
    const ghost = crypto.randomUUID();
    const unknown = await unchanged(
      t,
      () => call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { job_bindings: { ref: ghost } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(unknown.details.errors).toEqual([`job_bindings.ref: no job definition ${ghost}`]);
    const unbound = await call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: { job_bindings: { ref: null } } });
    expect(unbound.json.data.job_bindings).toEqual({});
    await unchanged(t, () => call("PUT", `/workflows/${id}/config`, { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED");
  });
});

describe("trigger toggles", () => {
  it("disables and enables by definition id or uuid; unknown triggers and other tenants' workflows are 404", async () => {
    const t = await createTenant();
    const { id, activation } = await activeWorkflow(t, minimalDefinition());
    const uuid = activation.triggers[0].trigger_id;
    const off = await call("PUT", `/workflows/${id}/triggers/manual/disable`, { auth: t.auth });
    expect(off.status, off.text).toBe(200);
    expect(off.json.data).toMatchObject({ id: "manual", trigger_id: uuid, enabled: false });
    const on = await call("PUT", `/workflows/${id}/triggers/${uuid}/enable`, { auth: t.auth });
    expect(on.json.data.enabled).toBe(true);
    expectError(await call("PUT", `/workflows/${id}/triggers/nope/enable`, { auth: t.auth }), 404, "NOT_FOUND");
    const other = await createTenant();
    expectError(await call("PUT", `/workflows/${id}/triggers/manual/disable`, { auth: other.auth }), 404, "NOT_FOUND");
    const still = await systemQuery(`SELECT enabled FROM workflow_triggers WHERE id = $1`, [uuid]);
    expect(still[0].enabled).toBe(true);
  });

  it("enabling a cron trigger schedules it from now, without making up the ticks it missed", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(t, minimalDefinition({ triggers: [{ id: "daily", cron: "0 3 * * *" }] }));
    await call("PUT", `/workflows/${id}/triggers/daily/disable`, { auth: t.auth });
    await systemQuery(`UPDATE cron_schedules SET next_run_at = '2020-01-01T03:00:00Z' WHERE workflow_id = $1`, [id]);
    await call("PUT", `/workflows/${id}/triggers/daily/enable`, { auth: t.auth });
    const [s] = await systemQuery(`SELECT next_run_at FROM cron_schedules WHERE workflow_id = $1`, [id]);
    const next = new Date(s.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getUTCHours()).toBe(3);
    expect(next.getUTCMinutes()).toBe(0);
  });
});

describe("direct dispatch", () => {
  const dispatch = (t: TenantCreds, body: unknown, headers?: Record<string, string>) => call("POST", "/workflows/wr", { auth: t.auth, body, headers });

  it("starts a run, answered pending, with the input as context.input", async () => {
    const t = await createTenant();
    const { id, activation } = await activeWorkflow(t, minimalDefinition());
    const res = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 42 } });
    expect(res.status, res.text).toBe(202);
    expect(res.json.data.workflow_run.status).toBe("pending");
    // The route kicks the run once it answered; a second kick waits behind that walk, so the run has ended.
    await kickRuns(env, [{ tenantId: t.tenantId, runId: res.json.data.workflow_run.id }]);
    const [run] = await systemQuery(`SELECT * FROM workflow_runs WHERE id = $1`, [res.json.data.workflow_run.id]);
    expect(run).toMatchObject({
      tenant_id: t.tenantId,
      workflow_id: id,
      workflow_version: 1,
      trigger_id: activation.triggers[0].trigger_id,
      trigger_key: "manual",
      trigger_type: "webhook",
      status: "success",
      context: { input: { order: 42 }, trigger: { id: "manual", type: "webhook" }, run: { id: run.id } },
    });
  });

  it("applies contextData and the idempotency key: a repeated key answers the earlier run", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(
      t,
      minimalDefinition({
        triggers: [
          {
            id: "manual",
            webhook: { methods: ["POST"] },
            idempotencyKey: "{{ context.input.order }}",
            contextData: { source: "{{ 'order-' & context.input.order }}" },
          },
        ],
      }),
    );
    const first = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 7 } });
    const second = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 7 } });
    const third = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 8 } });
    expect(second.json.data.workflow_run.id).toBe(first.json.data.workflow_run.id);
    expect(third.json.data.workflow_run.id).not.toBe(first.json.data.workflow_run.id);
    const runs = await systemQuery(`SELECT idempotency_key, context->'data' AS data FROM workflow_runs WHERE workflow_id = $1 ORDER BY idempotency_key`, [id]);
    expect(runs).toEqual([
      { idempotency_key: "7", data: { source: "order-7" } },
      { idempotency_key: "8", data: { source: "order-8" } },
    ]);
  });

  it("refuses event triggers, disabled triggers, unknown triggers and unactivated workflows with 422, unknown workflows with 404", async () => {
    const t = await createTenant();
    const type = await call("POST", "/entity/entity-types", {
      auth: t.auth,
      body: { name: "Thing", schema: { type: "object" }, config: { identifier_key: ["sku"] } },
    });
    const { id } = await activeWorkflow(
      t,
      minimalDefinition({
        triggers: [
          { id: "manual", webhook: { methods: ["POST"] } },
          { id: "ev", source: { entityTypeId: type.json.data.id, eventAction: "created" } },
        ],
      }),
    );
    const ev = await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: "ev" }), 422, "UNPROCESSABLE_ENTITY");
    expect(ev.details).toMatchObject({ workflow_id: id, trigger_id: "ev" });
    await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: "missing" }), 422, "UNPROCESSABLE_ENTITY");
    await call("PUT", `/workflows/${id}/triggers/manual/disable`, { auth: t.auth });
    await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: "manual" }), 422, "UNPROCESSABLE_ENTITY");
    const { id: draft } = await createWorkflow(t, minimalDefinition());
    await unchanged(t, () => dispatch(t, { workflow_id: draft, trigger_id: "manual" }), 422, "UNPROCESSABLE_ENTITY");
    await unchanged(t, () => dispatch(t, { workflow_id: crypto.randomUUID(), trigger_id: "manual" }), 404, "NOT_FOUND");
    const other = await createTenant();
    const { id: theirs } = await activeWorkflow(other, minimalDefinition());
    await unchanged(t, () => dispatch(t, { workflow_id: theirs, trigger_id: "manual" }), 404, "NOT_FOUND");
    expect(await systemQuery(`SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_id = $1`, [theirs])).toEqual([{ n: 0 }]);
  });

  it("refuses bad bodies", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(t, minimalDefinition());
    await unchanged(t, () => dispatch(t, { trigger_id: "manual" }), 422, "VALIDATION_FAILED");
    await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: 5 }), 422, "VALIDATION_FAILED");
    await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: "manual", input: { text: "a\u0000b" } }), 422, "VALIDATION_FAILED");
    const huge = `{"workflow_id":"${id}","trigger_id":"manual","input":1e400}`;
    await unchanged(
      t,
      () => call("POST", "/workflows/wr", { auth: t.auth, rawBody: huge, headers: { "Content-Type": "application/json" } }),
      422,
      "VALIDATION_FAILED",
    );
  });

  it("a failing idempotency expression is 422 naming the field, and starts nothing", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(
      t,
      minimalDefinition({ triggers: [{ id: "manual", webhook: { methods: ["POST"] }, idempotencyKey: "{{ $error('nope') }}" }] }),
    );
    const err = await unchanged(t, () => dispatch(t, { workflow_id: id, trigger_id: "manual" }), 422, "UNPROCESSABLE_ENTITY");
    expect(err.details).toMatchObject({ trigger_id: "manual", field: "idempotencyKey" });
  });

  it("answers through the deprecated /engine alias too", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(t, minimalDefinition());
    const res = await call("POST", "/engine/wr", { auth: t.auth, body: { workflow_id: id, trigger_id: "manual" } });
    expect(res.status, res.text).toBe(202);
    expect(res.headers.get("Deprecation")).toBe("true");
  });
});
