// /access/shares: the rows that say which resources a tenant shares with another .
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHARE_KEYS = ["actions", "created_at", "id", "resource_id", "resource_type", "source", "target_tenant_id"];

async function share(owner: TenantCreds, body: Record<string, unknown>) {
  const res = await call("POST", "/access/shares", { auth: owner.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

async function registerSchema(t: TenantCreds, name: string, schema: object) {
  const res = await call("POST", "/schema/schemas", { auth: t.auth, body: { name, schema } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; version: number };
}

async function sharesOf(tenantId: string) {
  return systemQuery("SELECT id, resource_type, resource_id, target_tenant_id, actions, source FROM shares WHERE tenant_id = $1 ORDER BY created_at", [
    tenantId,
  ]);
}

/** A token of `t` whose only role holds `permissions`. */
async function restrictedToken(t: TenantCreds, permissions: string[]) {
  const name = `r-${crypto.randomUUID().slice(0, 6)}`;
  expect((await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions } })).status).toBe(201);
  const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name, role_names: [name] } });
  expect(res.status, res.text).toBe(201);
  return basic(res.json.data.client_id, res.json.data.client_secret);
}

async function pair() {
  const [owner, target] = await Promise.all([createTenant(), createTenant()]);
  return { owner, target };
}

describe("POST /access/shares", () => {
  it("shares an entity type: 201 with the row, read by default, source api; the target's access version moves", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const [before] = await systemQuery("SELECT version FROM access_versions WHERE tenant_id = $1", [target.tenantId]);
    const started = Date.now();
    const res = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const data = res.json.data;
    expect(Object.keys(data).sort()).toEqual(SHARE_KEYS);
    expect(data).toMatchObject({ resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId, actions: ["read"], source: "api" });
    expect(data.id).toMatch(UUID);
    expect(Math.abs(Date.parse(data.created_at) - started)).toBeLessThan(120_000);

    expect(await sharesOf(owner.tenantId)).toEqual([
      { id: data.id, resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId, actions: ["read"], source: "api" },
    ]);
    const [after] = await systemQuery("SELECT version FROM access_versions WHERE tenant_id = $1", [target.tenantId]);
    expect(after.version).toBe(before.version + 1);
  });

  it("shares one live entity, with actions given explicitly", async () => {
    const { owner, target } = await pair();
    await createProductType(owner.auth);
    const entity = await createEntity(owner.auth, "Product", "Widget", { sku: "W-1", title: "Widget" });
    const data = await share(owner, { resource_type: "entity", resource_id: entity.id, target_tenant_id: target.tenantId, actions: ["read"] });
    expect(data).toMatchObject({ resource_type: "entity", resource_id: entity.id, actions: ["read"] });
    expect((await sharesOf(owner.tenantId)).map((r) => r.resource_id)).toEqual([entity.id]);
  });

  it("shares one version of a schema by its id", async () => {
    const { owner, target } = await pair();
    const v1 = await registerSchema(owner, "address", { type: "object" });
    const v2 = await registerSchema(owner, "address", { type: "object", required: ["city"] });
    expect([v1.version, v2.version]).toEqual([1, 2]);
    const data = await share(owner, { resource_type: "schema", resource_id: v1.id, target_tenant_id: target.tenantId });
    expect(data).toMatchObject({ resource_type: "schema", resource_id: v1.id, target_tenant_id: target.tenantId, actions: ["read"] });
    expect((await sharesOf(owner.tenantId)).map((r) => r.resource_id)).toEqual([v1.id]);
  });

  it("shares the same resource with two tenants as two rows", async () => {
    const { owner, target } = await pair();
    const third = await createTenant();
    const type = await createProductType(owner.auth);
    const a = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const b = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: third.tenantId });
    expect(a.id).not.toBe(b.id);
    expect((await sharesOf(owner.tenantId)).map((r) => r.target_tenant_id)).toEqual([target.tenantId, third.tenantId]);
  });

  it("refuses a second identical share with 409 CONFLICT naming the existing share, keeping one row", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const first = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const res = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId, actions: ["read"] },
    });
    const err = expectError(res, 409, "CONFLICT");
    expect(err.details.share_id).toBe(first.id);
    expect(err.message).toBe(`This entity_type is already shared with tenant ${target.tenantId}`);
    expect((await sharesOf(owner.tenantId)).map((r) => r.id)).toEqual([first.id]);
  });

  it("refuses the caller's own tenant as target with 422", async () => {
    const owner = await createTenant();
    const type = await createProductType(owner.auth);
    const res = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: owner.tenantId },
    });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["target_tenant_id: is the caller's own tenant; a share goes to another tenant"]);
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it("refuses an unknown target tenant with 422", async () => {
    const owner = await createTenant();
    const type = await createProductType(owner.auth);
    const nobody = crypto.randomUUID();
    const res = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: nobody },
    });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual([`target_tenant_id: no tenant ${nobody} exists`]);
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it.each([
    [{ actions: ["write"] }, ['actions[0]: must be one of ["read"]']],
    [{ actions: ["read", "update"] }, ['actions[1]: must be one of ["read"]']],
    [{ actions: [] }, ["actions: Array has too few items (0 < 1)"]],
    [{ actions: ["read", "read"] }, ["actions: Duplicate items at indexes 0 and 1"]],
    [{ actions: "read" }, ["actions: must be array, got string"]],
    [{ resource_type: "user" }, ['resource_type: must be one of ["entity_type","entity","spec","workflow","schema"]']],
    [{ resource_id: "not-a-uuid" }, ["resource_id: must match the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"]],
    [{ target_tenant_id: 42 }, ["target_tenant_id: must be string, got number"]],
    [{ tenant_id: "x" }, ["tenant_id: is not allowed"]],
  ])("refuses %j with 422 VALIDATION_FAILED and writes nothing", async (override, lines) => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const body = { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId, ...override };
    const err = expectError(await call("POST", "/access/shares", { auth: owner.auth, body }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(lines);
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it("refuses missing fields, NUL and lone surrogates, and an oversize id with 422", async () => {
    const owner = await createTenant();
    const missing = expectError(await call("POST", "/access/shares", { auth: owner.auth, body: {} }), 422, "VALIDATION_FAILED");
    expect(missing.details.validation_errors).toEqual(["resource_type: is required", "resource_id: is required", "target_tenant_id: is required"]);
    const nul = expectError(
      await call("POST", "/access/shares", {
        auth: owner.auth,
        rawBody: '{"resource_type":"entity\\u0000","resource_id":"x","target_tenant_id":"y"}',
        headers: { "Content-Type": "application/json" },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(nul.details.validation_errors).toEqual(["resource_type: must not contain NUL characters or unpaired surrogates"]);
    const surrogate = expectError(
      await call("POST", "/access/shares", {
        auth: owner.auth,
        rawBody: '{"resource_type":"entity","resource_id":"\\ud800","target_tenant_id":"y"}',
        headers: { "Content-Type": "application/json" },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(surrogate.details.validation_errors).toEqual(["resource_id: must not contain NUL characters or unpaired surrogates"]);
    const long = expectError(
      await call("POST", "/access/shares", {
        auth: owner.auth,
        body: { resource_type: "entity", resource_id: "a".repeat(100_000), target_tenant_id: crypto.randomUUID() },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(long.details.validation_errors).toEqual(["resource_id: must match the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"]);
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it("answers 404 naming the resource type for an unknown id, and for another tenant's entity type, entity and schema", async () => {
    const { owner, target } = await pair();
    const other = await createTenant();
    const otherType = await createProductType(other.auth);
    const otherEntity = await createEntity(other.auth, "Product", "Theirs", { sku: "T-1", title: "Theirs" });
    const otherSchema = await registerSchema(other, "theirs", { type: "object" });
    const unknown = crypto.randomUUID();
    const cases: [string, string, string][] = [
      ["entity_type", unknown, "Entity type"],
      ["entity", unknown, "Entity"],
      ["schema", unknown, "Schema"],
      ["entity_type", otherType.id, "Entity type"],
      ["entity", otherEntity.id, "Entity"],
      ["schema", otherSchema.id, "Schema"],
    ];
    for (const [resourceType, id, name] of cases) {
      const res = await call("POST", "/access/shares", {
        auth: owner.auth,
        body: { resource_type: resourceType, resource_id: id, target_tenant_id: target.tenantId },
      });
      expect(expectError(res, 404, "NOT_FOUND").message).toBe(`${name} ${id} not found`);
    }
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it("answers 404 for a deleted entity", async () => {
    const { owner, target } = await pair();
    await createProductType(owner.auth);
    const entity = await createEntity(owner.auth, "Product", "Gone", { sku: "G-1", title: "Gone" });
    expect((await call("DELETE", `/entity/entities/${entity.id}`, { auth: owner.auth })).status).toBe(200);
    const res = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity", resource_id: entity.id, target_tenant_id: target.tenantId },
    });
    expect(expectError(res, 404, "NOT_FOUND").message).toBe(`Entity ${entity.id} not found`);
    expect(await sharesOf(owner.tenantId)).toEqual([]);
  });

  it("a target cannot pass on a type shared with it: 404, nothing written", async () => {
    const { owner, target } = await pair();
    const third = await createTenant();
    const type = await createProductType(owner.auth);
    await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const res = await call("POST", "/access/shares", {
      auth: target.auth,
      body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: third.tenantId },
    });
    expect(expectError(res, 404, "NOT_FOUND").message).toBe(`Entity type ${type.id} not found`);
    expect(await sharesOf(target.tenantId)).toEqual([]);
  });
});

describe("GET /access/shares and /access/shares/received", () => {
  it("the owner lists its outgoing shares; the target sees them only under /received, with owner_tenant_id", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const schema = await registerSchema(owner, "s", { type: "object" });
    const a = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const b = await share(owner, { resource_type: "schema", resource_id: schema.id, target_tenant_id: target.tenantId });

    const outgoing = await call("GET", "/access/shares", { auth: owner.auth });
    expect(outgoing.status).toBe(200);
    expect(outgoing.json).toEqual({ data: [b, a], pagination: { page: 1, limit: 100, total: 2, total_pages: 1 } });
    expect((await call("GET", "/access/shares/received", { auth: owner.auth })).json).toEqual({
      data: [],
      pagination: { page: 1, limit: 100, total: 0, total_pages: 0 },
    });

    expect((await call("GET", "/access/shares", { auth: target.auth })).json).toEqual({
      data: [],
      pagination: { page: 1, limit: 100, total: 0, total_pages: 0 },
    });
    const received = await call("GET", "/access/shares/received", { auth: target.auth });
    expect(received.status).toBe(200);
    expect(received.json).toEqual({
      data: [b, a].map((s) => ({ ...s, owner_tenant_id: owner.tenantId })),
      pagination: { page: 1, limit: 100, total: 2, total_pages: 1 },
    });
  });

  it("filters by resource_type, resource_id and target_tenant_id, and pages", async () => {
    const { owner, target } = await pair();
    const third = await createTenant();
    const type = await createProductType(owner.auth);
    const schema = await registerSchema(owner, "s", { type: "object" });
    const typeToTarget = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const typeToThird = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: third.tenantId });
    const schemaToTarget = await share(owner, { resource_type: "schema", resource_id: schema.id, target_tenant_id: target.tenantId });
    const ids = async (q: string) => (await call("GET", `/access/shares?${q}`, { auth: owner.auth })).json.data.map((s: any) => s.id);

    expect(await ids("resource_type=entity_type")).toEqual([typeToThird.id, typeToTarget.id]);
    expect(await ids(`resource_id=${schema.id}`)).toEqual([schemaToTarget.id]);
    expect(await ids(`target_tenant_id=${target.tenantId}`)).toEqual([schemaToTarget.id, typeToTarget.id]);
    expect(await ids(`resource_type=entity_type&target_tenant_id=${third.tenantId}`)).toEqual([typeToThird.id]);
    expect(await ids("resource_type=entity")).toEqual([]);

    const page2 = await call("GET", "/access/shares?limit=2&page=2", { auth: owner.auth });
    expect(page2.json.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(page2.json.data.map((s: any) => s.id)).toEqual([typeToTarget.id]);

    const received = async (q: string) => (await call("GET", `/access/shares/received?${q}`, { auth: target.auth })).json.data.map((s: any) => s.id);
    expect(await received("resource_type=schema")).toEqual([schemaToTarget.id]);
    expect(await received(`owner_tenant_id=${owner.tenantId}`)).toEqual([schemaToTarget.id, typeToTarget.id]);
    expect(await received(`owner_tenant_id=${third.tenantId}`)).toEqual([]);
  });

  it("refuses bad filters with 422", async () => {
    const t = await createTenant();
    const badType = expectError(await call("GET", "/access/shares?resource_type=user", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(badType.details.validation_errors).toEqual(['resource_type: must be one of ["entity_type","entity","spec","workflow","schema"]']);
    expectError(await call("GET", "/access/shares?target_tenant_id=nope", { auth: t.auth }), 422, "VALIDATION_FAILED");
    const unknown = expectError(await call("GET", "/access/shares/received?target_tenant_id=" + t.tenantId, { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(unknown.details.validation_errors).toEqual(["target_tenant_id: is not allowed"]);
    expectError(await call("GET", "/access/shares?limit=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("GET /access/shares/{id}", () => {
  it("answers the owner's share; 404 to the target, for an unknown id; 422 for a malformed one", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const res = await call("GET", `/access/shares/${made.id}`, { auth: owner.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: made });
    expect(expectError(await call("GET", `/access/shares/${made.id}`, { auth: target.auth }), 404, "NOT_FOUND").message).toBe(`Share ${made.id} not found`);
    const unknown = crypto.randomUUID();
    expect(expectError(await call("GET", `/access/shares/${unknown}`, { auth: owner.auth }), 404, "NOT_FOUND").message).toBe(`Share ${unknown} not found`);
    expectError(await call("GET", "/access/shares/not-a-uuid", { auth: owner.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("DELETE /access/shares/{id}", () => {
  it("the target cannot revoke a share it received: 404 and the row stays", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    expect(expectError(await call("DELETE", `/access/shares/${made.id}`, { auth: target.auth }), 404, "NOT_FOUND").message).toBe(`Share ${made.id} not found`);
    expect((await sharesOf(owner.tenantId)).map((r) => r.id)).toEqual([made.id]);
  });

  it("another tenant cannot revoke it either", async () => {
    const { owner, target } = await pair();
    const stranger = await createTenant();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    expectError(await call("DELETE", `/access/shares/${made.id}`, { auth: stranger.auth }), 404, "NOT_FOUND");
    expect((await sharesOf(owner.tenantId)).map((r) => r.id)).toEqual([made.id]);
  });

  it("the owner revokes: { id, deleted: true }, the row is gone, the target's list empties and its access version moves", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const [before] = await systemQuery("SELECT version FROM access_versions WHERE tenant_id = $1", [target.tenantId]);
    const res = await call("DELETE", `/access/shares/${made.id}`, { auth: owner.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: made.id, deleted: true } });
    expect(await systemQuery("SELECT id FROM shares WHERE id = $1", [made.id])).toEqual([]);
    const [after] = await systemQuery("SELECT version FROM access_versions WHERE tenant_id = $1", [target.tenantId]);
    expect(after.version).toBe(before.version + 1);
    expect((await call("GET", "/access/shares/received", { auth: target.auth })).json.data).toEqual([]);
    expectError(await call("DELETE", `/access/shares/${made.id}`, { auth: owner.auth }), 404, "NOT_FOUND");
    // The same share can be made again once revoked.
    await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
  });
});

describe("permissions", () => {
  it("a token without access permissions gets 403 on every route and nothing is written or removed", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const other = await createProductType(owner.auth, "Other");
    const auth = await restrictedToken(owner, ["entity:read", "entity_type:*"]);

    const create = expectError(
      await call("POST", "/access/shares", { auth, body: { resource_type: "entity_type", resource_id: other.id, target_tenant_id: target.tenantId } }),
      403,
      "FORBIDDEN",
    );
    expect(create.details).toMatchObject({ resource: "access", action: "create" });
    expect(expectError(await call("GET", "/access/shares", { auth }), 403, "FORBIDDEN").details).toMatchObject({ resource: "access", action: "read" });
    expectError(await call("GET", "/access/shares/received", { auth }), 403, "FORBIDDEN");
    expectError(await call("GET", `/access/shares/${made.id}`, { auth }), 403, "FORBIDDEN");
    expect(expectError(await call("DELETE", `/access/shares/${made.id}`, { auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "access",
      action: "delete",
    });
    expect((await sharesOf(owner.tenantId)).map((r) => r.id)).toEqual([made.id]);
  });

  it("access:read alone lists but cannot create or revoke", async () => {
    const { owner, target } = await pair();
    const type = await createProductType(owner.auth);
    const made = await share(owner, { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId });
    const auth = await restrictedToken(owner, ["access:read"]);
    expect((await call("GET", "/access/shares", { auth })).json.data.map((s: any) => s.id)).toEqual([made.id]);
    expectError(await call("DELETE", `/access/shares/${made.id}`, { auth }), 403, "FORBIDDEN");
    expectError(
      await call("POST", "/access/shares", { auth, body: { resource_type: "entity_type", resource_id: type.id, target_tenant_id: target.tenantId } }),
      403,
      "FORBIDDEN",
    );
    expect((await sharesOf(owner.tenantId)).map((r) => r.id)).toEqual([made.id]);
  });
});
