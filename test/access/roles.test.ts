// Roles (/access/roles) and GET /access/me/permissions.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { UUID, createRole, mintWithRoles } from "./admin";

describe("POST /access/roles", () => {
  it("creates a role: 201 data {id, name, permissions, created_at, updated_at}", async () => {
    const t = await createTenant();
    const before = Date.now();
    const res = await call("POST", "/access/roles", { auth: t.auth, body: { name: "editor", permissions: ["entity:read", "entity:update"] } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const role = res.json.data;
    expect(Object.keys(role).sort()).toEqual(["created_at", "id", "name", "permissions", "updated_at"]);
    expect(role.updated_at).toBe(role.created_at);
    expect(role.id).toMatch(UUID);
    expect(role.name).toBe("editor");
    expect(role.permissions).toEqual(["entity:read", "entity:update"]);
    expect(Math.abs(Date.parse(role.created_at) - before)).toBeLessThan(120_000);

    const [row] = await systemQuery("SELECT tenant_id, name, permissions FROM roles WHERE id = $1", [role.id]);
    expect(row).toEqual({ tenant_id: t.tenantId, name: "editor", permissions: ["entity:read", "entity:update"] });
  });

  it("accepts wildcards in either part, underscores, and an empty permission list", async () => {
    const t = await createTenant();
    expect((await createRole(t, "everything", ["*:*"])).permissions).toEqual(["*:*"]);
    expect((await createRole(t, "all-entity", ["entity:*", "*:read", "entity_type:create"])).permissions).toEqual(["entity:*", "*:read", "entity_type:create"]);
    expect((await createRole(t, "nothing", [])).permissions).toEqual([]);
  });

  it("stores a repeated permission once", async () => {
    const t = await createTenant();
    expect((await createRole(t, "dupes", ["entity:read", "entity:read", "entity:update"])).permissions).toEqual(["entity:read", "entity:update"]);
  });

  it("refuses a duplicate name in the same tenant with 409 CONFLICT, leaving the first role as it was", async () => {
    const t = await createTenant();
    const first = await createRole(t, "dup", ["entity:read"]);
    const res = await call("POST", "/access/roles", { auth: t.auth, body: { name: "dup", permissions: ["*:*"] } });
    const err = expectError(res, 409, "CONFLICT");
    expect(err.details.name).toBe("dup");
    const rows = await systemQuery("SELECT id, permissions FROM roles WHERE tenant_id = $1 AND name = 'dup'", [t.tenantId]);
    expect(rows).toEqual([{ id: first.id, permissions: ["entity:read"] }]);
  });

  it("the bootstrap admin role's name is taken too", async () => {
    const t = await createTenant();
    expectError(await call("POST", "/access/roles", { auth: t.auth, body: { name: "admin", permissions: [] } }), 409, "CONFLICT");
  });

  it.each([["entity"], ["Entity:read"], ["a:b:c"], ["entity:Read"], [":read"], ["entity:"], ["entity read"], ["*"], ["1x:read"], [""]])(
    "refuses the permission %j with 422 VALIDATION_FAILED at its array position",
    async (bad) => {
      const t = await createTenant();
      const res = await call("POST", "/access/roles", { auth: t.auth, body: { name: "bad", permissions: ["entity:read", bad] } });
      const err = expectError(res, 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toHaveLength(1);
      expect(err.details.validation_errors[0]).toMatch(/^permissions\[1\]: /);
      const rows = await systemQuery("SELECT 1 FROM roles WHERE tenant_id = $1 AND name = 'bad'", [t.tenantId]);
      expect(rows).toEqual([]);
    },
  );

  it("reports every bad permission on its own line", async () => {
    const t = await createTenant();
    const res = await call("POST", "/access/roles", { auth: t.auth, body: { name: "bad", permissions: ["entity", "entity:read", "Entity:read", "a:b:c"] } });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors.map((l: string) => l.split(":")[0])).toEqual(["permissions[0]", "permissions[2]", "permissions[3]"]);
  });

  it("refuses missing fields, wrong types and unknown fields with 422", async () => {
    const t = await createTenant();
    const missing = expectError(await call("POST", "/access/roles", { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED");
    expect(missing.details.validation_errors).toEqual(["name: is required", "permissions: is required"]);
    const wrongType = expectError(
      await call("POST", "/access/roles", { auth: t.auth, body: { name: "x", permissions: "entity:read" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(wrongType.details.validation_errors).toEqual(["permissions: must be array, got string"]);
    const extra = expectError(
      await call("POST", "/access/roles", { auth: t.auth, body: { name: "x", permissions: [], tenant_id: t.tenantId } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(extra.details.validation_errors).toEqual(["tenant_id: is not allowed"]);
    const empty = expectError(await call("POST", "/access/roles", { auth: t.auth, body: { name: "", permissions: [] } }), 422, "VALIDATION_FAILED");
    expect(empty.details.validation_errors).toEqual(["name: String is too short (0 < 1)"]);
  });
});

describe("GET /access/roles", () => {
  it("lists the tenant's roles in the pagination envelope", async () => {
    const t = await createTenant();
    await createRole(t, "one", ["entity:read"]);
    const res = await call("GET", "/access/roles", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["data", "pagination"]);
    expect(res.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });
    const byName = Object.fromEntries(res.json.data.map((r: any) => [r.name, r.permissions]));
    expect(byName).toEqual({ admin: ["*:*"], one: ["entity:read"] });
  });

  it("pages with page and limit, newest first", async () => {
    const t = await createTenant();
    for (const name of ["r1", "r2", "r3", "r4"]) await createRole(t, name, []);
    // Five roles: admin (created with the tenant) and r1..r4.
    const pages = await Promise.all([1, 2, 3].map((p) => call("GET", `/access/roles?limit=2&page=${p}`, { auth: t.auth })));
    expect(pages.map((p) => p.json.pagination)).toEqual([1, 2, 3].map((page) => ({ page, limit: 2, total: 5, total_pages: 3 })));
    expect(pages.map((p) => p.json.data.map((r: any) => r.name))).toEqual([["r4", "r3"], ["r2", "r1"], ["admin"]]);
    const beyond = await call("GET", "/access/roles?limit=2&page=9", { auth: t.auth });
    expect(beyond.json).toEqual({ data: [], pagination: { page: 9, limit: 2, total: 5, total_pages: 3 } });
  });

  it("refuses bad paging parameters with 422", async () => {
    const t = await createTenant();
    expectError(await call("GET", "/access/roles?limit=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/access/roles?limit=1001", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/access/roles?page=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/access/roles?page=1000001", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

/** A role row and its bindings and assignments, as one comparable value. */
async function roleFootprint(tenantId: string) {
  const [row] = await systemQuery(
    `SELECT (SELECT string_agg(id || ' ' || name || ' ' || permissions::text || ' ' || updated_at, ';' ORDER BY id) FROM roles WHERE tenant_id = $1) AS roles,
            (SELECT count(*) FROM role_bindings WHERE tenant_id = $1) AS bindings,
            (SELECT count(*) FROM policy_assignments WHERE tenant_id = $1) AS assignments`,
    [tenantId],
  );
  return row;
}

async function unchanged(t: TenantCreds, send: () => Promise<{ status: number; json: any }>, status: number, code: string) {
  const before = await roleFootprint(t.tenantId);
  const err = expectError(await send(), status, code);
  expect(await roleFootprint(t.tenantId)).toEqual(before);
  return err;
}

describe("GET /access/roles/{id}", () => {
  it("answers the role; 404 for unknown and other tenants' ids; 403 without access:read", async () => {
    const t = await createTenant();
    const role = await createRole(t, "viewer", ["entity:read"]);
    const res = await call("GET", `/access/roles/${role.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: role });
    expectError(await call("GET", `/access/roles/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    const other = await createTenant();
    expectError(await call("GET", `/access/roles/${role.id}`, { auth: other.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/access/roles/viewer", { auth: t.auth }), 422, "VALIDATION_FAILED");
    const none = await mintWithRoles(t, ["viewer"]);
    expectError(await call("GET", `/access/roles/${role.id}`, { auth: none.auth }), 403, "FORBIDDEN");
  });
});

describe("PUT /access/roles/{id}", () => {
  it("renames, replaces permissions (deduplicated) and bumps updated_at; tokens holding it follow", async () => {
    const t = await createTenant();
    const role = await createRole(t, "viewer", ["entity:read"]);
    const tok = await mintWithRoles(t, ["viewer"]);
    const renamed = await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { name: "reader" } });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ id: role.id, name: "reader", permissions: ["entity:read"], created_at: role.created_at });
    expect(Date.parse(renamed.json.data.updated_at)).toBeGreaterThan(Date.parse(role.updated_at));
    const res = await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["schema:read", "entity:read", "schema:read"] } });
    expect(res.json.data).toMatchObject({ name: "reader", permissions: ["schema:read", "entity:read"] });
    expect(await systemQuery("SELECT name, permissions FROM roles WHERE id = $1", [role.id])).toEqual([
      { name: "reader", permissions: ["schema:read", "entity:read"] },
    ]);
    expect((await call("GET", "/access/me/permissions", { auth: tok.auth })).json.data.permissions).toEqual(["entity:read", "schema:read"]);
  });

  it("refuses adding a permission the caller lacks with 403; removing or keeping one needs nothing", async () => {
    const t = await createTenant();
    await createRole(t, "role-admin", ["access:*", "entity:read"]);
    const target = await createRole(t, "target", ["entity:delete", "entity:read"]);
    const admin = await mintWithRoles(t, ["role-admin"]);
    const err = await unchanged(
      t,
      () => call("PUT", `/access/roles/${target.id}`, { auth: admin.auth, body: { permissions: ["entity:delete", "entity:read", "schema:create", "*:*"] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["schema:create", "*:*"]);
    const narrowed = await call("PUT", `/access/roles/${target.id}`, { auth: admin.auth, body: { permissions: ["entity:delete"] } });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.json.data.permissions).toEqual(["entity:delete"]);
  });

  it("a taken name is 409 (role unchanged); unknown and other tenants' roles 404; bad bodies 422; 403 without access:update", async () => {
    const t = await createTenant();
    const role = await createRole(t, "mine", ["entity:read"]);
    await createRole(t, "taken", []);
    const conflict = await unchanged(
      t,
      () => call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { name: "taken", permissions: [] } }),
      409,
      "CONFLICT",
    );
    expect(conflict.details.name).toBe("taken");
    expectError(await call("PUT", `/access/roles/${crypto.randomUUID()}`, { auth: t.auth, body: { name: "x" } }), 404, "NOT_FOUND");
    const other = await createTenant();
    await unchanged(t, () => call("PUT", `/access/roles/${role.id}`, { auth: other.auth, body: { name: "stolen" } }), 404, "NOT_FOUND");
    const lines = async (body: unknown) =>
      (await unchanged(t, () => call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body }), 422, "VALIDATION_FAILED")).details.validation_errors;
    expect(await lines({})).toEqual([expect.stringMatching(/^\(root\): /)]);
    expect(await lines({ permissions: ["entity"] })).toEqual([expect.stringMatching(/^permissions\[0\]: /)]);
    expect(await lines({ name: "" })).toEqual(["name: String is too short (0 < 1)"]);
    expect(await lines({ name: "x".repeat(201) })).toEqual(["name: String is too long (201 > 200)"]);
    expect(await lines({ name: "a\u0000b" })).toEqual(["name: must not contain NUL characters or unpaired surrogates"]);
    expect(await lines({ created_at: "2020-01-01T00:00:00Z" })).toEqual(["created_at: is not allowed"]);
    await createRole(t, "ro", ["access:read"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("PUT", `/access/roles/${role.id}`, { auth: ro.auth, body: { name: "x" } }), 403, "FORBIDDEN");
  });
});

describe("DELETE /access/roles/{id}", () => {
  it("deletes the role with its bindings and policy assignments; a token holding it loses its permissions", async () => {
    const t = await createTenant();
    const role = await createRole(t, "temp", ["entity:read"]);
    const tok = await mintWithRoles(t, ["temp"]);
    const policy = await call("POST", "/access/policies", { auth: t.auth, body: { name: "p" } });
    expect((await call("POST", `/access/policies/${policy.json.data.id}/assignments`, { auth: t.auth, body: { role_name: "temp" } })).status).toBe(201);
    const res = await call("DELETE", `/access/roles/${role.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: role.id, deleted: true } });
    expect(await systemQuery("SELECT 1 FROM roles WHERE id = $1", [role.id])).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM role_bindings WHERE role_id = $1", [role.id])).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM policy_assignments WHERE role_id = $1", [role.id])).toEqual([]);
    expect((await call("GET", "/access/me/permissions", { auth: tok.auth })).json.data.permissions).toEqual([]);
    expectError(await call("DELETE", `/access/roles/${role.id}`, { auth: t.auth }), 404, "NOT_FOUND");
  });

  it("404 for another tenant's role (kept); 403 without access:delete (kept)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await createRole(other, "theirs", []);
    await unchanged(other, () => call("DELETE", `/access/roles/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    const mine = await createRole(t, "mine", []);
    await createRole(t, "nodelete", ["access:read", "access:create", "access:update"]);
    const tok = await mintWithRoles(t, ["nodelete"]);
    await unchanged(t, () => call("DELETE", `/access/roles/${mine.id}`, { auth: tok.auth }), 403, "FORBIDDEN");
  });
});

describe("tenants never see each other's roles", () => {
  it("lists only the caller's roles, and allows the same name in two tenants", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const aRole = await createRole(a, "shared-name", ["entity:read"]);
    const bRole = await createRole(b, "shared-name", ["entity:update"]);
    expect(bRole.id).not.toBe(aRole.id);
    await createRole(a, "a-only", []);

    const listA = await call("GET", "/access/roles", { auth: a.auth });
    const listB = await call("GET", "/access/roles", { auth: b.auth });
    expect(listA.json.data.map((r: any) => r.name).sort()).toEqual(["a-only", "admin", "shared-name"]);
    expect(listB.json.data.map((r: any) => r.name).sort()).toEqual(["admin", "shared-name"]);
    expect(listB.json.pagination.total).toBe(2);
    expect(listB.json.data.find((r: any) => r.name === "shared-name").permissions).toEqual(["entity:update"]);
    expect(listB.text).not.toContain(aRole.id);
    const adminIds = [listA, listB].map((l) => l.json.data.find((r: any) => r.name === "admin").id);
    expect(adminIds[0]).not.toBe(adminIds[1]);
  });
});

describe("GET /access/me/permissions", () => {
  it("answers {data: {permissions: ['*:*']}} for the bootstrap admin", async () => {
    const t = await createTenant();
    const res = await call("GET", "/access/me/permissions", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { permissions: ["*:*"] } });
  });

  it("answers exactly a limited token's role permissions", async () => {
    const t = await createTenant();
    await createRole(t, "reader", ["entity:read", "entity_type:read"]);
    const reader = await mintWithRoles(t, ["reader"]);
    expect((await call("GET", "/access/me/permissions", { auth: reader.auth })).json).toEqual({ data: { permissions: ["entity:read", "entity_type:read"] } });
  });

  it("answers the sorted union of several roles, each permission once", async () => {
    const t = await createTenant();
    await createRole(t, "r1", ["entity:update", "entity:read"]);
    await createRole(t, "r2", ["entity:read", "access:read"]);
    const tok = await mintWithRoles(t, ["r1", "r2"]);
    expect((await call("GET", "/access/me/permissions", { auth: tok.auth })).json.data.permissions).toEqual(["access:read", "entity:read", "entity:update"]);
  });

  it("is per token: the admin token in the same tenant still holds *:*", async () => {
    const t = await createTenant();
    await createRole(t, "reader", ["entity:read"]);
    await mintWithRoles(t, ["reader"]);
    expect((await call("GET", "/access/me/permissions", { auth: t.auth })).json.data.permissions).toEqual(["*:*"]);
  });

  it("follows the role: a permission later added to the role shows at once", async () => {
    const t = await createTenant();
    const role = await createRole(t, "growing", ["entity:read"]);
    const tok = await mintWithRoles(t, ["growing"]);
    await systemQuery("UPDATE roles SET permissions = array_append(permissions, 'entity:create') WHERE id = $1", [role.id]);
    expect((await call("GET", "/access/me/permissions", { auth: tok.auth })).json.data.permissions).toEqual(["entity:create", "entity:read"]);
  });
});
