// PUT/GET /apps/{specId}/config through the gateway: the activation, the app
// scope's merge, schema, defaults and x-immutable rules, version pinning,
// shared specs, concurrency and refused inputs.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { unchangedBy } from "../access/admin";
import { roleToken } from "../access/fixture";
import { appFootprint, addVersion, dashboards, insertSpec, putConfig, registerSchema, shareSpec } from "./fixture";

const refused = unchangedBy(appFootprint);

const limits = {
  type: "object",
  properties: {
    limit: { type: "integer", maximum: 10 },
    theme: { type: "string", default: "light" },
    region: { type: "string", "x-immutable": true },
    nested: { type: "object", properties: { depth: { type: "integer", default: 2 } } },
  },
};

describe("app activation and the app config scope", () => {
  it("creates the one activation on the first write, merges later writes (RFC 7396) and answers the same on GET", async () => {
    const t = await createTenant();
    const spec = await insertSpec(t, [{ dashboards, config: { app: { title: "Hello", colors: ["red"], box: { a: 1 } } } }]);
    expectError(await call("GET", `/apps/${spec.id}/config`, { auth: t.auth }), 404, "NOT_FOUND");

    const first = await putConfig(t, spec.id, { config: { box: { b: 2 }, size: 3 } });
    expect(first.status, first.text).toBe(200);
    const a = first.json.data;
    expect(a).toMatchObject({
      spec_id: spec.id,
      config: { box: { b: 2 }, size: 3 },
      effective_config: { title: "Hello", colors: ["red"], box: { a: 1, b: 2 }, size: 3 },
      policy_id: null,
      spec_version: null,
      effective_spec_version: 1,
      job_bindings: {},
    });
    const second = await putConfig(t, spec.id, { config: { size: null, colors: ["blue", "green"], box: { b: { deep: true } } } });
    expect(second.status, second.text).toBe(200);
    expect(second.json.data.id).toBe(a.id);
    expect(second.json.data.config).toEqual({ box: { b: { deep: true } }, colors: ["blue", "green"] });
    expect(second.json.data.effective_config).toEqual({ title: "Hello", colors: ["blue", "green"], box: { a: 1, b: { deep: true } } });
    const got = await call("GET", `/apps/${spec.id}/config`, { auth: t.auth });
    expect(got.json.data).toEqual(second.json.data);
    // The definition's values are never copied into the row.
    const [row] = await systemQuery(`SELECT config, revision FROM app_activations WHERE id = $1`, [a.id]);
    expect(row).toEqual({ config: { box: { b: { deep: true } }, colors: ["blue", "green"] }, revision: 2 });
  });

  it("validates the effective config against the scope schema, stores defaults, and refuses x-immutable overrides with paths relative to the scope", async () => {
    const t = await createTenant();
    await registerSchema(t, "app-limits", limits);
    const spec = await insertSpec(t, [{ dashboards, config: { app: { region: "eu" } }, configSchemas: { app: "app-limits" } }]);
    const ok = await putConfig(t, spec.id, { config: { limit: 5, nested: {} } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.config).toEqual({ limit: 5, nested: { depth: 2 }, theme: "light" });
    expect(ok.json.data.effective_config).toEqual({ region: "eu", limit: 5, nested: { depth: 2 }, theme: "light" });

    const tooBig = await refused(t, () => putConfig(t, spec.id, { config: { limit: 11 } }), 422, "VALIDATION_FAILED");
    expect(tooBig.details.scope).toBe("app");
    expect(tooBig.details.validation_errors).toHaveLength(1);
    expect(tooBig.details.validation_errors[0]).toMatch(/^limit: /);
    const immutable = await refused(t, () => putConfig(t, spec.id, { config: { region: "us" } }), 422, "VALIDATION_FAILED");
    expect(immutable.details).toMatchObject({ scope: "app", validation_errors: ['region: is immutable: the definition sets it to "eu"'] });
    // Setting it to the definition's own value is no override.
    expect((await putConfig(t, spec.id, { config: { region: "eu" } })).status).toBe(200);
  });

  it("refuses an unregistered scope schema by name, an unknown version, and bad bodies, changing nothing", async () => {
    const t = await createTenant();
    await registerSchema(t, "nowhere", { type: "object" });
    const spec = await insertSpec(t, [{ dashboards, configSchemas: { app: "nowhere" } }]);
    // Publishing checks the name; a registry that lost the schema since is still refused at the write.
    // A direct delete: no route removes or renames a registered schema, so only a change made
    // outside the API (an operator's) reaches this state.
    await systemQuery(`DELETE FROM schemas WHERE tenant_id = $1 AND name = 'nowhere'`, [t.tenantId]);
    const unregistered = await refused(t, () => putConfig(t, spec.id, { config: { a: 1 } }), 422, "VALIDATION_FAILED");
    expect(unregistered.details).toMatchObject({ scope: "app", validation_errors: ["configSchemas.app: no schema named nowhere is registered"] });

    const plain = await insertSpec(t, [{ dashboards }]);
    expect((await putConfig(t, plain.id, {})).status).toBe(200);
    const version = await refused(t, () => putConfig(t, plain.id, { spec_version: 7 }), 422, "VALIDATION_FAILED");
    expect(version.details.validation_errors).toEqual([`spec_version: spec ${plain.id} has no version 7`]);
    await refused(t, () => putConfig(t, plain.id, { config: [1] }), 422, "VALIDATION_FAILED");
    await refused(t, () => putConfig(t, plain.id, { config: { "a\u0000b": 1 } }), 422, "VALIDATION_FAILED");
    await refused(
      t,
      () => call("PUT", `/apps/${plain.id}/config`, { auth: t.auth, rawBody: '{"config":{"k":"\\ud800"}}', headers: { "Content-Type": "application/json" } }),
      422,
      "VALIDATION_FAILED",
    );
    await refused(
      t,
      () =>
        call("PUT", `/apps/${plain.id}/config`, {
          auth: t.auth,
          rawBody: `{"config":${"[".repeat(10000)}${"]".repeat(10000)}}`,
          headers: { "Content-Type": "application/json" },
        }),
      422,
      "VALIDATION_FAILED",
    );
    await refused(t, () => putConfig(t, plain.id, { spec_version: "1" }), 422, "VALIDATION_FAILED");
    await refused(t, () => putConfig(t, plain.id, { policy_id: crypto.randomUUID() }), 422, "VALIDATION_FAILED");
    await refused(t, () => call("PUT", `/apps/not-a-uuid/config`, { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED");
    await refused(t, () => putConfig(t, crypto.randomUUID(), {}), 404, "NOT_FOUND");
  });

  it("pins a kept version (rollback), follows the latest with null, and checks config against the version in use", async () => {
    const t = await createTenant();
    await registerSchema(t, "v2-schema", { type: "object", properties: { n: { type: "integer", maximum: 1 } } });
    const spec = await insertSpec(t, [{ dashboards, config: { app: { from: "v1" } } }]);
    expect((await putConfig(t, spec.id, { config: { n: 5 } })).json.data).toMatchObject({ effective_spec_version: 1, effective_config: { from: "v1", n: 5 } });
    await addVersion(t, spec, { dashboards, config: { app: { from: "v2" } }, configSchemas: { app: "v2-schema" } });
    // Following the latest, the stored n = 5 now fails v2's schema.
    const failing = expectError(await putConfig(t, spec.id, { config: { x: 1 } }), 422, "VALIDATION_FAILED");
    expect(failing.details.validation_errors[0]).toMatch(/^n: /);
    const pinned = await putConfig(t, spec.id, { spec_version: 1, config: { x: 1 } });
    expect(pinned.json.data).toMatchObject({ spec_version: 1, effective_spec_version: 1, effective_config: { from: "v1", n: 5, x: 1 } });
    const latest = await putConfig(t, spec.id, { spec_version: null, config: { n: 1 } });
    expect(latest.status, latest.text).toBe(200);
    expect(latest.json.data).toMatchObject({ spec_version: null, effective_spec_version: 2, effective_config: { from: "v2", n: 1, x: 1 } });
  });

  it("lets a tenant activate a spec shared with it (schemas resolved in the owner's tenant); an unshared one is 404", async () => {
    const owner = await createTenant();
    const consumer = await createTenant();
    await registerSchema(owner, "owner-only", { type: "object", properties: { limit: { type: "integer", maximum: 3 } } });
    const spec = await insertSpec(owner, [{ dashboards, configSchemas: { app: "owner-only" } }]);
    expectError(await putConfig(consumer, spec.id, {}), 404, "NOT_FOUND");
    await shareSpec(owner, spec, consumer);
    const err = expectError(await putConfig(consumer, spec.id, { config: { limit: 4 } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors[0]).toMatch(/^limit: /);
    const ok = await putConfig(consumer, spec.id, { config: { limit: 3 } });
    expect(ok.status, ok.text).toBe(200);
    const [row] = await systemQuery(`SELECT tenant_id FROM app_activations WHERE id = $1`, [ok.json.data.id]);
    expect(row.tenant_id).toBe(consumer.tenantId);
    expectError(await call("GET", `/apps/${spec.id}/config`, { auth: owner.auth }), 404, "NOT_FOUND");
  });

  it("checks app:read / app:update on the activation (narrowed grants work) and app:create for the first write", async () => {
    const t = await createTenant();
    const spec = await insertSpec(t, [{ dashboards }]);
    const updater = await roleToken(t.auth, ["app:update", "app:read"]);
    expectError(await putConfig(updater, spec.id, {}), 403, "FORBIDDEN");
    const id = (await putConfig(t, spec.id, {})).json.data.id;
    expect((await putConfig(updater, spec.id, { config: { a: 1 } })).status).toBe(200);
    const reader = await roleToken(t.auth, ["app:read"]);
    await refused(t, () => putConfig(reader, spec.id, { config: { a: 2 } }), 403, "FORBIDDEN");

    const other = (await putConfig(t, (await insertSpec(t, [{ dashboards }])).id, {})).json.data.id;
    const policy = await call("POST", "/access/policies", {
      auth: t.auth,
      body: { name: `narrow-${id.slice(0, 6)}`, grants: [{ resource: "app", actions: ["read", "update"], resource_id: id }] },
    });
    const user = await call("POST", "/access/users", { auth: t.auth, body: { email: `n-${id.slice(0, 6)}@example.test` } });
    const role = await call("POST", "/access/roles", { auth: t.auth, body: { name: `nr-${id.slice(0, 6)}`, permissions: [] } });
    await call("POST", `/access/policies/${policy.json.data.id}/assignments`, { auth: t.auth, body: { role_name: role.json.data.name } });
    const narrowed = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: `nt-${id.slice(0, 6)}`, role_names: [role.json.data.name] } });
    expect([policy.status, user.status, role.status, narrowed.status]).toEqual([201, 201, 201, 201]);
    const auth = `Basic ${btoa(`${narrowed.json.data.client_id}:${narrowed.json.data.client_secret}`)}`;
    expect((await putConfig({ auth }, spec.id, { config: { b: 1 } })).status).toBe(200);
    const otherSpec = (await systemQuery(`SELECT spec_id FROM app_activations WHERE id = $1`, [other]))[0].spec_id;
    const denied = await refused(t, () => putConfig({ auth }, otherSpec, { config: { b: 1 } }), 403, "FORBIDDEN");
    expect(denied.details).toMatchObject({ resource: "app", action: "update", spec_id: otherSpec });
    expectError(await call("GET", `/apps/${otherSpec}/config`, { auth }), 403, "FORBIDDEN");
  });

  it("makes exactly one activation of two concurrent first writes, both answering 200", async () => {
    const t = await createTenant();
    const spec = await insertSpec(t, [{ dashboards }]);
    const [a, b] = await Promise.all([putConfig(t, spec.id, { config: { a: 1 } }), putConfig(t, spec.id, { config: { b: 2 } })]);
    expect([a.status, b.status], a.text + b.text).toEqual([200, 200]);
    expect(a.json.data.id).toBe(b.json.data.id);
    const rows = await systemQuery(`SELECT config FROM app_activations WHERE spec_id = $1`, [spec.id]);
    expect(rows).toEqual([{ config: { a: 1, b: 2 } }]);
  });

  it("converges concurrent random patches to the state of applying them in order (property)", async () => {
    const t = await createTenant();
    const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const value = fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.record({ x: fc.integer() }));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(key, { minLength: 2, maxLength: 6 }), fc.array(value, { minLength: 6, maxLength: 6 }), async (keys, values) => {
        const spec = await insertSpec(t, [{ dashboards }]);
        expect((await putConfig(t, spec.id, { config: { seed: 1 } })).status).toBe(200);
        // Disjoint keys: every patch lands, whatever the order.
        const patches = keys.map((k, i) => ({ [k]: values[i] }));
        const answers = await Promise.all(patches.map((p) => putConfig(t, spec.id, { config: p })));
        expect(answers.map((r) => r.status)).toEqual(patches.map(() => 200));
        const expected: Record<string, unknown> = { seed: 1 };
        for (const p of patches)
          for (const [k, v] of Object.entries(p))
            if (v === null) delete expected[k];
            else expected[k] = v;
        const got = await call("GET", `/apps/${spec.id}/config`, { auth: t.auth });
        expect(got.json.data.config).toEqual(expected);
      }),
      { numRuns: 6 },
    );
  });

  it("answers 409 when a concurrent change leaves the delta inapplicable", async () => {
    const t = await createTenant();
    await registerSchema(t, "sum", { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, not: { required: ["a", "b"] } });
    const spec = await insertSpec(t, [{ dashboards, configSchemas: { app: "sum" } }]);
    expect((await putConfig(t, spec.id, {})).status).toBe(200);
    // Each alone is valid; whichever lands second would hold both keys.
    const answers = await Promise.all([putConfig(t, spec.id, { config: { a: 1 } }), putConfig(t, spec.id, { config: { b: 1 } })]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([409, 422]).toContain(statuses[1]);
    const [row] = await systemQuery(`SELECT config FROM app_activations WHERE spec_id = $1`, [spec.id]);
    expect(Object.keys(row.config)).toHaveLength(1);
  });
});
