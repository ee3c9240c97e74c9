// Users (/access/users) and GET /access/me.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { UUID, NOT_TEXT, createRole, mintWithRoles, unchangedBy } from "./admin";

async function createUser(t: { auth: string }, body: Record<string, unknown>) {
  const res = await call("POST", "/access/users", { auth: t.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** Every row the user routes can write in a tenant, as one comparable value. */
async function footprint(tenantId: string) {
  const [row] = await systemQuery(
    `SELECT (SELECT string_agg(id || ' ' || coalesce(email, '-') || ' ' || coalesce(name, '-') || ' ' || is_active || ' ' || updated_at, ';' ORDER BY id) FROM users WHERE tenant_id = $1) AS users,
            (SELECT string_agg(principal_type || ' ' || principal_id || ' ' || role_id, ';' ORDER BY principal_id, role_id) FROM role_bindings WHERE tenant_id = $1) AS bindings,
            (SELECT count(*) FROM api_tokens WHERE tenant_id = $1) AS tokens`,
    [tenantId],
  );
  return row;
}

const unchanged = unchangedBy(footprint);

describe("GET /access/me", () => {
  it("answers the caller's user, tenant and token ids", async () => {
    const t = await createTenant();
    const res = await call("GET", "/access/me", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { user_id: t.userId, tenant_id: t.tenantId, token_id: t.tokenId } });
  });

  it("needs no permission beyond authentication, and answers the minted token's id", async () => {
    const t = await createTenant();
    await createRole(t, "none", []);
    const tok = await mintWithRoles(t, ["none"]);
    expect((await call("GET", "/access/me", { auth: tok.auth })).json).toEqual({ data: { user_id: t.userId, tenant_id: t.tenantId, token_id: tok.id } });
  });

  it("is 401 without credentials", async () => {
    expectError(await call("GET", "/access/me"), 401, "UNAUTHORIZED");
  });
});

describe("POST /access/users", () => {
  it("creates a user: 201 {id, email, name, is_active, role_names, created_at, updated_at}", async () => {
    const t = await createTenant();
    await createRole(t, "viewer", ["entity:read"]);
    await createRole(t, "editor", ["entity:update"]);
    const before = Date.now();
    const res = await call("POST", "/access/users", {
      auth: t.auth,
      body: { email: "Ada.Lovelace@Example.com", name: "Ada", role_names: ["viewer", "editor"] },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const u = res.json.data;
    expect(Object.keys(u).sort()).toEqual(["created_at", "email", "id", "is_active", "name", "role_names", "updated_at"]);
    expect(u.id).toMatch(UUID);
    expect(u).toMatchObject({ email: "Ada.Lovelace@Example.com", name: "Ada", is_active: true, role_names: ["editor", "viewer"] });
    expect(Math.abs(Date.parse(u.created_at) - before)).toBeLessThan(120_000);
    expect(u.updated_at).toBe(u.created_at);
    const rows = await systemQuery(
      "SELECT u.tenant_id, u.email, r.name FROM users u JOIN role_bindings b ON b.principal_id = u.id AND b.principal_type = 'user' JOIN roles r ON r.id = b.role_id WHERE u.id = $1 ORDER BY r.name",
      [u.id],
    );
    expect(rows).toEqual([
      { tenant_id: t.tenantId, email: "Ada.Lovelace@Example.com", name: "editor" },
      { tenant_id: t.tenantId, email: "Ada.Lovelace@Example.com", name: "viewer" },
    ]);
  });

  it("without name or roles: name null, role_names []", async () => {
    const t = await createTenant();
    const u = await createUser(t, { email: "bare@example.com" });
    expect(u).toMatchObject({ email: "bare@example.com", name: null, is_active: true, role_names: [] });
  });

  it("refuses an email already in the tenant in any case with 409, and allows it in another tenant", async () => {
    const t = await createTenant();
    const first = await createUser(t, { email: "dup@example.com" });
    const err = await unchanged(t, () => call("POST", "/access/users", { auth: t.auth, body: { email: "DUP@Example.COM" } }), 409, "CONFLICT");
    expect(err.details.email).toBe("DUP@Example.COM");
    expect((await systemQuery("SELECT id FROM users WHERE tenant_id = $1 AND lower(email) = 'dup@example.com'", [t.tenantId])).map((r) => r.id)).toEqual([
      first.id,
    ]);
    const other = await createTenant();
    expect((await createUser(other, { email: "dup@example.com" })).email).toBe("dup@example.com");
  });

  it("refuses unknown role names with 422 UNPROCESSABLE_ENTITY naming them, creating nothing", async () => {
    const t = await createTenant();
    await createRole(t, "viewer", ["entity:read"]);
    const err = await unchanged(
      t,
      () => call("POST", "/access/users", { auth: t.auth, body: { email: "x@example.com", role_names: ["viewer", "ghost", "phantom"] } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(err.details.unknown_roles).toEqual(["ghost", "phantom"]);
  });

  it("refuses a role carrying a permission the caller lacks with 403, creating nothing", async () => {
    const t = await createTenant();
    await createRole(t, "user-admin", ["access:*"]);
    await createRole(t, "writer", ["entity:create"]);
    const admin = await mintWithRoles(t, ["user-admin"]);
    const err = await unchanged(
      t,
      () => call("POST", "/access/users", { auth: admin.auth, body: { email: "x@example.com", role_names: ["writer"] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:create"]);
    // A role the caller's permissions cover is fine.
    await createRole(t, "auditor", ["access:read"]);
    expect((await createUser(admin, { email: "y@example.com", role_names: ["auditor"] })).role_names).toEqual(["auditor"]);
  });

  it("counts the grants of policies assigned to a role as that role's power", async () => {
    const t = await createTenant();
    await createRole(t, "user-admin", ["access:*"]);
    await createRole(t, "empty", []);
    const policy = await call("POST", "/access/policies", { auth: t.auth, body: { name: "p", grants: [{ resource: "entity", actions: ["delete"] }] } });
    expect(policy.status, policy.text).toBe(201);
    expect((await call("POST", `/access/policies/${policy.json.data.id}/assignments`, { auth: t.auth, body: { role_name: "empty" } })).status).toBe(201);
    const admin = await mintWithRoles(t, ["user-admin"]);
    const err = await unchanged(
      t,
      () => call("POST", "/access/users", { auth: admin.auth, body: { email: "x@example.com", role_names: ["empty"] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:delete"]);
  });

  it("is 403 without access:create, writing nothing", async () => {
    const t = await createTenant();
    await createRole(t, "reader", ["access:read"]);
    const reader = await mintWithRoles(t, ["reader"]);
    const err = await unchanged(t, () => call("POST", "/access/users", { auth: reader.auth, body: { email: "x@example.com" } }), 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ resource: "access", action: "create" });
  });

  it.each([
    [{}, "email: is required"],
    [{ email: 5 }, "email: must be string, got number"],
    [{ email: "not-an-email" }, /^email: /],
    [{ email: "a@b.c", name: "" }, "name: String is too short (0 < 1)"],
    [{ email: "a@b.c", name: "x".repeat(201) }, "name: String is too long (201 > 200)"],
    [{ email: `${"a".repeat(250)}@b.co` }, /^email: /],
    [{ email: "a@b.c", role_names: "viewer" }, "role_names: must be array, got string"],
    [{ email: "a@b.c", role_names: ["v", "v"] }, /^role_names: /],
    [{ email: "a@b.c", is_active: false }, "is_active: is not allowed"],
    [{ email: "a@b.c", name: "A\u0000B" }, `name: ${NOT_TEXT}`],
    [{ email: "a@b.c", name: "A\ud800" }, `name: ${NOT_TEXT}`],
  ])("refuses %j with 422 VALIDATION_FAILED, writing nothing", async (body, line) => {
    const t = await createTenant();
    const err = await unchanged(t, () => call("POST", "/access/users", { auth: t.auth, body }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
  });
});

describe("GET /access/users", () => {
  it("lists newest first in the pagination envelope, the bootstrap admin included", async () => {
    const t = await createTenant();
    await createRole(t, "viewer", ["entity:read"]);
    const a = await createUser(t, { email: "a@example.com", role_names: ["viewer"] });
    const b = await createUser(t, { email: "b@example.com" });
    const res = await call("GET", "/access/users", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json.pagination).toEqual({ page: 1, limit: 100, total: 3, total_pages: 1 });
    expect(res.json.data.map((u: any) => [u.id, u.email, u.role_names])).toEqual([
      [b.id, "b@example.com", []],
      [a.id, "a@example.com", ["viewer"]],
      [t.userId, null, ["admin"]],
    ]);
    const page2 = await call("GET", "/access/users?limit=2&page=2", { auth: t.auth });
    expect(page2.json).toMatchObject({ data: [{ id: t.userId }], pagination: { page: 2, limit: 2, total: 3, total_pages: 2 } });
  });

  it("?email= matches exactly, ignoring case", async () => {
    const t = await createTenant();
    const u = await createUser(t, { email: "Grace@Example.com" });
    await createUser(t, { email: "grace@example.org" });
    const res = await call("GET", `/access/users?email=${encodeURIComponent("GRACE@example.COM")}`, { auth: t.auth });
    expect(res.json.data.map((r: any) => r.id)).toEqual([u.id]);
    expect(res.json.pagination.total).toBe(1);
    expect((await call("GET", "/access/users?email=grace", { auth: t.auth })).json.data).toEqual([]);
  });

  it("never shows another tenant's users", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createUser(a, { email: "only-a@example.com" });
    const res = await call("GET", "/access/users?email=only-a@example.com", { auth: b.auth });
    expect(res.json).toEqual({ data: [], pagination: { page: 1, limit: 100, total: 0, total_pages: 0 } });
  });

  it("refuses unknown parameters and bad paging with 422, and is 403 without access:read", async () => {
    const t = await createTenant();
    expectError(await call("GET", "/access/users?limit=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(expectError(await call("GET", "/access/users?name=x", { auth: t.auth }), 422, "VALIDATION_FAILED").details.validation_errors).toEqual([
      "name: is not allowed",
    ]);
    await createRole(t, "none", ["entity:read"]);
    const tok = await mintWithRoles(t, ["none"]);
    expectError(await call("GET", "/access/users", { auth: tok.auth }), 403, "FORBIDDEN");
  });
});

describe("GET /access/users/{id}", () => {
  it("answers the user; 404 for an unknown id, another tenant's id, or a bad id", async () => {
    const t = await createTenant();
    const u = await createUser(t, { email: "get@example.com", name: "G" });
    const res = await call("GET", `/access/users/${u.id}`, { auth: t.auth });
    expect(res.json).toEqual({ data: u });
    expectError(await call("GET", `/access/users/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    const other = await createTenant();
    expectError(await call("GET", `/access/users/${u.id}`, { auth: other.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/access/users/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("PUT /access/users/{id}", () => {
  it("changes name only, leaving is_active, and bumps updated_at", async () => {
    const t = await createTenant();
    const u = await createUser(t, { email: "p@example.com", name: "Before" });
    const res = await call("PUT", `/access/users/${u.id}`, { auth: t.auth, body: { name: "After" } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: u.id, email: "p@example.com", name: "After", is_active: true, created_at: u.created_at });
    expect(Date.parse(res.json.data.updated_at)).toBeGreaterThan(Date.parse(u.updated_at));
    const cleared = await call("PUT", `/access/users/${u.id}`, { auth: t.auth, body: { name: null } });
    expect(cleared.json.data.name).toBeNull();
  });

  it("deactivates and reactivates another user (is_active stored)", async () => {
    const t = await createTenant();
    const u = await createUser(t, { email: "d@example.com", name: "Kept" });
    const off = await call("PUT", `/access/users/${u.id}`, { auth: t.auth, body: { is_active: false } });
    expect(off.status).toBe(200);
    expect(off.json.data).toMatchObject({ id: u.id, name: "Kept", is_active: false });
    expect(await systemQuery("SELECT is_active FROM users WHERE id = $1", [u.id])).toEqual([{ is_active: false }]);
    const on = await call("PUT", `/access/users/${u.id}`, { auth: t.auth, body: { is_active: true } });
    expect(on.json.data.is_active).toBe(true);
  });

  it("refuses deactivating the caller's own user with 409, changing nothing; renaming it is fine", async () => {
    const t = await createTenant();
    const err = await unchanged(t, () => call("PUT", `/access/users/${t.userId}`, { auth: t.auth, body: { is_active: false, name: "x" } }), 409, "CONFLICT");
    expect(err.message).toMatch(/own user/);
    expect(err.details.user_id).toBe(t.userId);
    expect((await call("PUT", `/access/users/${t.userId}`, { auth: t.auth, body: { name: "Me" } })).json.data).toMatchObject({ name: "Me", is_active: true });
  });

  it("404 for unknown and other tenants' users (nothing changed there), 422 for bad bodies, 403 without access:update", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await createUser(other, { email: "theirs@example.com", name: "Theirs" });
    expectError(await call("PUT", `/access/users/${crypto.randomUUID()}`, { auth: t.auth, body: { name: "x" } }), 404, "NOT_FOUND");
    await unchanged(other, () => call("PUT", `/access/users/${theirs.id}`, { auth: t.auth, body: { is_active: false } }), 404, "NOT_FOUND");
    const u = await createUser(t, { email: "v@example.com" });
    const bad = async (body: unknown) =>
      (await unchanged(t, () => call("PUT", `/access/users/${u.id}`, { auth: t.auth, body }), 422, "VALIDATION_FAILED")).details.validation_errors;
    expect(await bad({})).toEqual([expect.stringMatching(/^\(root\): /)]);
    expect(await bad({ is_active: "no" })).toEqual(["is_active: must be boolean, got string"]);
    expect(await bad({ email: "new@example.com" })).toEqual(["email: is not allowed"]);
    expect(await bad({ name: "N\u0000" })).toEqual([`name: ${NOT_TEXT}`]);
    await createRole(t, "ro", ["access:read"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("PUT", `/access/users/${u.id}`, { auth: ro.auth, body: { is_active: false } }), 403, "FORBIDDEN");
  });
});

describe("PUT /access/users/{id}/roles", () => {
  it("replaces the user's role bindings and answers the user", async () => {
    const t = await createTenant();
    for (const n of ["a", "b", "c"]) await createRole(t, n, ["entity:read"]);
    const u = await createUser(t, { email: "r@example.com", role_names: ["a", "b"] });
    const res = await call("PUT", `/access/users/${u.id}/roles`, { auth: t.auth, body: { role_names: ["c", "b"] } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: u.id, email: "r@example.com", role_names: ["b", "c"] });
    const rows = await systemQuery(
      "SELECT r.name FROM role_bindings b JOIN roles r ON r.id = b.role_id WHERE b.principal_type = 'user' AND b.principal_id = $1 ORDER BY r.name",
      [u.id],
    );
    expect(rows.map((r) => r.name)).toEqual(["b", "c"]);
    const none = await call("PUT", `/access/users/${u.id}/roles`, { auth: t.auth, body: { role_names: [] } });
    expect(none.json.data.role_names).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM role_bindings WHERE principal_id = $1", [u.id])).toEqual([]);
  });

  it("checks only the roles the user gains against the caller's permissions", async () => {
    const t = await createTenant();
    await createRole(t, "user-admin", ["access:*"]);
    await createRole(t, "powerful", ["entity:delete"]);
    await createRole(t, "mild", ["access:read"]);
    const u = await createUser(t, { email: "g@example.com", role_names: ["powerful"] });
    const admin = await mintWithRoles(t, ["user-admin"]);
    // Keeping a role it already has needs nothing; adding `mild` is covered.
    const kept = await call("PUT", `/access/users/${u.id}/roles`, { auth: admin.auth, body: { role_names: ["powerful", "mild"] } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.data.role_names).toEqual(["mild", "powerful"]);
    // Dropping it is fine; gaining it back is not.
    expect((await call("PUT", `/access/users/${u.id}/roles`, { auth: admin.auth, body: { role_names: ["mild"] } })).json.data.role_names).toEqual(["mild"]);
    const err = await unchanged(
      t,
      () => call("PUT", `/access/users/${u.id}/roles`, { auth: admin.auth, body: { role_names: ["powerful"] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:delete"]);
  });

  it("unknown roles 422 (bindings kept); unknown or other tenant's user 404; bad body 422; 403 without access:update", async () => {
    const t = await createTenant();
    await createRole(t, "a", []);
    const u = await createUser(t, { email: "k@example.com", role_names: ["a"] });
    const err = await unchanged(
      t,
      () => call("PUT", `/access/users/${u.id}/roles`, { auth: t.auth, body: { role_names: ["a", "nope"] } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(err.details.unknown_roles).toEqual(["nope"]);
    expectError(await call("PUT", `/access/users/${crypto.randomUUID()}/roles`, { auth: t.auth, body: { role_names: ["a"] } }), 404, "NOT_FOUND");
    const other = await createTenant();
    await unchanged(t, () => call("PUT", `/access/users/${u.id}/roles`, { auth: other.auth, body: { role_names: [] } }), 404, "NOT_FOUND");
    expect(
      (await unchanged(t, () => call("PUT", `/access/users/${u.id}/roles`, { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED")).details.validation_errors,
    ).toEqual(["role_names: is required"]);
    expect(
      (await unchanged(t, () => call("PUT", `/access/users/${u.id}/roles`, { auth: t.auth, body: { role_names: [""] } }), 422, "VALIDATION_FAILED")).details
        .validation_errors,
    ).toEqual(["role_names[0]: String is too short (0 < 1)"]);
    await createRole(t, "ro", ["access:read"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("PUT", `/access/users/${u.id}/roles`, { auth: ro.auth, body: { role_names: [] } }), 403, "FORBIDDEN");
  });
});

describe("DELETE /access/users/{id}", () => {
  it("removes the user, its bindings, its tokens and their bindings in one go, leaving others", async () => {
    const t = await createTenant();
    await createRole(t, "viewer", ["entity:read"]);
    const u = await createUser(t, { email: "gone@example.com", role_names: ["viewer"] });
    const keep = await createUser(t, { email: "stays@example.com", role_names: ["viewer"] });
    // A token of the user, bound to a role, as minting would leave it.
    const [tok] = await systemQuery(
      "INSERT INTO api_tokens (tenant_id, user_id, name, client_id, secret_hash) VALUES ($1, $2, 'x', $3, '\\x00') RETURNING id",
      [t.tenantId, u.id, `pat_${crypto.randomUUID().replace(/-/g, "")}`],
    );
    await systemQuery(
      "INSERT INTO role_bindings (tenant_id, role_id, principal_type, principal_id) SELECT tenant_id, id, 'token', $2 FROM roles WHERE tenant_id = $1 AND name = 'viewer'",
      [t.tenantId, tok.id],
    );
    const policy = await call("POST", "/access/policies", { auth: t.auth, body: { name: "p" } });
    await call("POST", `/access/policies/${policy.json.data.id}/assignments`, { auth: t.auth, body: { user_id: u.id } });

    const res = await call("DELETE", `/access/users/${u.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: u.id, deleted: true } });
    expect(await systemQuery("SELECT 1 FROM users WHERE id = $1", [u.id])).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM api_tokens WHERE id = $1", [tok.id])).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM role_bindings WHERE principal_id = ANY($1)", [[u.id, tok.id]])).toEqual([]);
    expect(await systemQuery("SELECT 1 FROM policy_assignments WHERE user_id = $1", [u.id])).toEqual([]);
    expect((await call("GET", `/access/users/${keep.id}`, { auth: t.auth })).json.data.role_names).toEqual(["viewer"]);
    expectError(await call("GET", `/access/users/${u.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/users/${u.id}`, { auth: t.auth }), 404, "NOT_FOUND");
  });

  it("refuses deleting the caller's own user with 409, deleting nothing", async () => {
    const t = await createTenant();
    const err = await unchanged(t, () => call("DELETE", `/access/users/${t.userId}`, { auth: t.auth }), 409, "CONFLICT");
    expect(err.message).toMatch(/cannot delete its own user/);
  });

  it("404 for another tenant's user (kept), 403 without access:delete (kept)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await createUser(other, { email: "o@example.com" });
    await unchanged(other, () => call("DELETE", `/access/users/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    const mine = await createUser(t, { email: "m@example.com" });
    await createRole(t, "nodelete", ["access:read", "access:update", "access:create"]);
    const tok = await mintWithRoles(t, ["nodelete"]);
    await unchanged(t, () => call("DELETE", `/access/users/${mine.id}`, { auth: tok.auth }), 403, "FORBIDDEN");
  });
});
