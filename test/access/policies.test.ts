// Policies, grants and assignments (/access/policies, /access/grants,
// /access/policies/{id}/assignments).
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { UUID, NOT_TEXT, createRole, mintWithRoles, unchangedBy } from "./admin";

async function createPolicy(t: { auth: string }, body: Record<string, unknown>) {
  const res = await call("POST", "/access/policies", { auth: t.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

async function assign(t: { auth: string }, policyId: string, body: Record<string, unknown>) {
  const res = await call("POST", `/access/policies/${policyId}/assignments`, { auth: t.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** A token holding only `access:*`: it may administer access but hand out no other permission. */
async function accessAdmin(t: TenantCreds) {
  await createRole(t, "access-admin", ["access:*"]);
  return mintWithRoles(t, ["access-admin"]);
}

/** Every row these routes write in a tenant, as one comparable value. */
async function footprint(tenantId: string) {
  const [row] = await systemQuery(
    `SELECT (SELECT string_agg(id || ' ' || name || ' ' || coalesce(description, '-') || ' ' || updated_at, ';' ORDER BY id) FROM policies WHERE tenant_id = $1) AS policies,
            (SELECT string_agg(id || ' ' || policy_id || ' ' || resource || ' ' || actions::text || ' ' || coalesce(resource_name, '-') || ' ' || coalesce(resource_id::text, '-'), ';' ORDER BY id) FROM grants WHERE tenant_id = $1) AS grants,
            (SELECT string_agg(id || ' ' || policy_id || ' ' || coalesce(role_id::text, '-') || ' ' || coalesce(user_id::text, '-'), ';' ORDER BY id) FROM policy_assignments WHERE tenant_id = $1) AS assignments`,
    [tenantId],
  );
  return row;
}

const unchanged = unchangedBy(footprint);

const lines = async (t: TenantCreds, send: () => Promise<{ status: number; json: any }>) =>
  (await unchanged(t, send, 422, "VALIDATION_FAILED")).details.validation_errors;

describe("POST /access/policies", () => {
  it("creates a policy with its grants: 201 {id, name, description, grants, created_at, updated_at}, nulls where unset", async () => {
    const t = await createTenant();
    const entityId = crypto.randomUUID();
    const before = Date.now();
    const res = await call("POST", "/access/policies", {
      auth: t.auth,
      body: {
        name: "support",
        description: "Support desk",
        grants: [
          { resource: "schema", actions: ["read"] },
          { resource: "entity", actions: ["read", "update"], resource_name: "Ticket" },
          { resource: "entity", actions: ["*"], resource_id: entityId },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const p = res.json.data;
    expect(Object.keys(p).sort()).toEqual(["created_at", "description", "grants", "id", "name", "updated_at"]);
    expect(p.id).toMatch(UUID);
    expect(p).toMatchObject({ name: "support", description: "Support desk" });
    expect(Math.abs(Date.parse(p.created_at) - before)).toBeLessThan(120_000);
    // Grants added together come back by resource, then what they narrow to.
    expect(p.grants.map(({ id, ...g }: any) => (expect(id).toMatch(UUID), g))).toEqual([
      { policy_id: p.id, resource: "entity", actions: ["read", "update"], resource_name: "Ticket", resource_id: null },
      { policy_id: p.id, resource: "entity", actions: ["*"], resource_name: null, resource_id: entityId },
      { policy_id: p.id, resource: "schema", actions: ["read"], resource_name: null, resource_id: null },
    ]);
    const rows = await systemQuery("SELECT tenant_id, resource, actions FROM grants WHERE policy_id = $1 ORDER BY created_at, id", [p.id]);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.tenant_id === t.tenantId)).toBe(true);
  });

  it("without description or grants: description null, grants []", async () => {
    const t = await createTenant();
    expect(await createPolicy(t, { name: "empty" })).toMatchObject({ name: "empty", description: null, grants: [] });
  });

  it("refuses a taken name with 409, writing nothing; the same name is fine in another tenant", async () => {
    const t = await createTenant();
    await createPolicy(t, { name: "dup" });
    const err = await unchanged(
      t,
      () => call("POST", "/access/policies", { auth: t.auth, body: { name: "dup", grants: [{ resource: "*", actions: ["*"] }] } }),
      409,
      "CONFLICT",
    );
    expect(err.details.name).toBe("dup");
    expect((await createPolicy(await createTenant(), { name: "dup" })).name).toBe("dup");
  });

  it.each([
    [{}, ["name: is required"]],
    [{ name: "" }, ["name: String is too short (0 < 1)"]],
    [{ name: "x".repeat(201) }, ["name: String is too long (201 > 200)"]],
    [{ name: "p", description: 5 }, ["description: must be string or null, got number"]],
    [{ name: "p", grants: {} }, ["grants: must be array, got object"]],
    [{ name: "p", grants: [{ resource: "files", actions: ["read"] }] }, [/^grants\[0\]\.resource: must be one of /]],
    [{ name: "p", grants: [{ resource: "entity", actions: [] }] }, [/^grants\[0\]\.actions: /]],
    [{ name: "p", grants: [{ resource: "entity", actions: ["read", "read"] }] }, [/^grants\[0\]\.actions: /]],
    [{ name: "p", grants: [{ resource: "entity", actions: ["write"] }] }, [/^grants\[0\]\.actions\[0\]: must be one of /]],
    [{ name: "p", grants: [{ resource: "entity" }] }, ["grants[0].actions: is required"]],
    [{ name: "p", grants: [{ resource: "entity", actions: ["read"], extra: 1 }] }, ["grants[0].extra: is not allowed"]],
    [{ name: "p", grants: [{ resource: "schema", actions: ["read"], resource_name: "Ticket" }] }, ['grants[0].resource: must equal "entity"']],
    [{ name: "p", grants: [{ resource: "*", actions: ["read"], resource_id: crypto.randomUUID() }] }, ['grants[0].resource: must be one of ["entity","app"]']],
    [
      { name: "p", grants: [{ resource: "entity", actions: ["read"], resource_name: "T", resource_id: crypto.randomUUID() }] },
      ["grants[0].resource_id: is not allowed"],
    ],
    [{ name: "p", grants: [{ resource: "entity", actions: ["read"], resource_id: "nope" }] }, [/^grants\[0\]\.resource_id: /]],
    [{ name: "p", grants: [{ resource: "entity", actions: ["read"], resource_name: "" }] }, ["grants[0].resource_name: String is too short (0 < 1)"]],
    [
      { name: "p", grants: [{ resource: "entity", actions: ["read"], resource_name: "x".repeat(201) }] },
      ["grants[0].resource_name: String is too long (201 > 200)"],
    ],
    [{ name: "p", grants: [{ resource: "entity", actions: ["read"], resource_name: "T\u0000" }] }, [`grants[0].resource_name: ${NOT_TEXT}`]],
    [{ name: "p\ud800" }, [`name: ${NOT_TEXT}`]],
  ])("refuses %j with 422 VALIDATION_FAILED, writing nothing", async (body, expected) => {
    const t = await createTenant();
    const got = await lines(t, () => call("POST", "/access/policies", { auth: t.auth, body }));
    expect(got).toEqual(expected.map((l) => (typeof l === "string" ? l : expect.stringMatching(l))));
  });

  it("is 403 without access:create, writing nothing", async () => {
    const t = await createTenant();
    await createRole(t, "ro", ["access:read"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("POST", "/access/policies", { auth: ro.auth, body: { name: "p" } }), 403, "FORBIDDEN");
  });
});

describe("GET /access/policies and /access/policies/{id}", () => {
  it("lists newest first with each policy's grants, paged", async () => {
    const t = await createTenant();
    const a = await createPolicy(t, { name: "a", grants: [{ resource: "event", actions: ["read"] }] });
    const b = await createPolicy(t, { name: "b" });
    const c = await createPolicy(t, {
      name: "c",
      grants: [
        { resource: "app", actions: ["read", "create"] },
        { resource: "workflow", actions: ["*"] },
      ],
    });
    const res = await call("GET", "/access/policies?limit=2", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2 });
    expect(res.json.data).toEqual([c, b]);
    expect((await call("GET", "/access/policies?limit=2&page=2", { auth: t.auth })).json.data).toEqual([a]);
  });

  it("gets one by id; 404 for unknown and other tenants' ids; another tenant's list is empty", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "one", grants: [{ resource: "entity", actions: ["read"], resource_name: "T" }] });
    expect((await call("GET", `/access/policies/${p.id}`, { auth: t.auth })).json).toEqual({ data: p });
    expectError(await call("GET", `/access/policies/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    const other = await createTenant();
    expectError(await call("GET", `/access/policies/${p.id}`, { auth: other.auth }), 404, "NOT_FOUND");
    expect((await call("GET", "/access/policies", { auth: other.auth })).json).toEqual({
      data: [],
      pagination: { page: 1, limit: 100, total: 0, total_pages: 0 },
    });
  });

  it("is 403 without access:read", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    await createRole(t, "none", ["entity:read"]);
    const tok = await mintWithRoles(t, ["none"]);
    expectError(await call("GET", "/access/policies", { auth: tok.auth }), 403, "FORBIDDEN");
    expectError(await call("GET", `/access/policies/${p.id}`, { auth: tok.auth }), 403, "FORBIDDEN");
  });
});

describe("PUT /access/policies/{id}", () => {
  it("changes name and description, keeping grants when none are sent", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "old", description: "d", grants: [{ resource: "schema", actions: ["read"] }] });
    const res = await call("PUT", `/access/policies/${p.id}`, { auth: t.auth, body: { name: "new", description: null } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: p.id, name: "new", description: null, grants: p.grants, created_at: p.created_at });
    expect(Date.parse(res.json.data.updated_at)).toBeGreaterThan(Date.parse(p.updated_at));
  });

  it("grants, when sent, replace the whole set", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, {
      name: "p",
      grants: [
        { resource: "schema", actions: ["read"] },
        { resource: "event", actions: ["read"] },
      ],
    });
    const res = await call("PUT", `/access/policies/${p.id}`, {
      auth: t.auth,
      body: { grants: [{ resource: "entity", actions: ["update"], resource_name: "Order" }] },
    });
    expect(res.json.data.name).toBe("p");
    expect(res.json.data.grants).toEqual([
      { id: expect.stringMatching(UUID), policy_id: p.id, resource: "entity", actions: ["update"], resource_name: "Order", resource_id: null },
    ]);
    expect(await systemQuery("SELECT resource FROM grants WHERE policy_id = $1", [p.id])).toEqual([{ resource: "entity" }]);
    expect((await call("PUT", `/access/policies/${p.id}`, { auth: t.auth, body: { grants: [] } })).json.data.grants).toEqual([]);
  });

  it("an unassigned policy takes any grants; an assigned one only grants the caller holds (403, nothing written)", async () => {
    const t = await createTenant();
    const admin = await accessAdmin(t);
    const p = await createPolicy(admin, { name: "p", grants: [{ resource: "access", actions: ["read"] }] });
    const free = await call("PUT", `/access/policies/${p.id}`, { auth: admin.auth, body: { grants: [{ resource: "entity", actions: ["delete"] }] } });
    expect(free.status, free.text).toBe(200);
    await createRole(t, "holder", []);
    await assign(t, p.id, { role_name: "holder" });
    const err = await unchanged(
      t,
      () => call("PUT", `/access/policies/${p.id}`, { auth: admin.auth, body: { grants: [{ resource: "entity", actions: ["delete", "read"] }] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:delete", "entity:read"]);
    const ok = await call("PUT", `/access/policies/${p.id}`, { auth: admin.auth, body: { grants: [{ resource: "access", actions: ["read"] }] } });
    expect(ok.json.data.grants.map((g: any) => g.resource)).toEqual(["access"]);
  });

  it("a taken name is 409; unknown and other tenants' policies 404 (unchanged); bad bodies 422; 403 without access:update", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    await createPolicy(t, { name: "taken" });
    expect((await unchanged(t, () => call("PUT", `/access/policies/${p.id}`, { auth: t.auth, body: { name: "taken" } }), 409, "CONFLICT")).details.name).toBe(
      "taken",
    );
    expectError(await call("PUT", `/access/policies/${crypto.randomUUID()}`, { auth: t.auth, body: { name: "x" } }), 404, "NOT_FOUND");
    const other = await createTenant();
    await unchanged(t, () => call("PUT", `/access/policies/${p.id}`, { auth: other.auth, body: { name: "stolen" } }), 404, "NOT_FOUND");
    expect(await lines(t, () => call("PUT", `/access/policies/${p.id}`, { auth: t.auth, body: {} }))).toEqual([expect.stringMatching(/^\(root\): /)]);
    expect(
      await lines(t, () =>
        call("PUT", `/access/policies/${p.id}`, { auth: t.auth, body: { grants: [{ resource: "access", actions: ["read"], resource_name: "x" }] } }),
      ),
    ).toEqual(['grants[0].resource: must equal "entity"']);
    await createRole(t, "ro", ["access:read", "access:create"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("PUT", `/access/policies/${p.id}`, { auth: ro.auth, body: { name: "x" } }), 403, "FORBIDDEN");
  });
});

describe("DELETE /access/policies/{id}", () => {
  it("deletes the policy with its grants and assignments", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p", grants: [{ resource: "schema", actions: ["read"] }] });
    await createRole(t, "r", []);
    await assign(t, p.id, { role_name: "r" });
    const res = await call("DELETE", `/access/policies/${p.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: p.id, deleted: true } });
    const [left] = await systemQuery(
      "SELECT (SELECT count(*) FROM policies WHERE id = $1) AS p, (SELECT count(*) FROM grants WHERE policy_id = $1) AS g, (SELECT count(*) FROM policy_assignments WHERE policy_id = $1) AS a",
      [p.id],
    );
    expect(left).toEqual({ p: "0", g: "0", a: "0" });
    expectError(await call("DELETE", `/access/policies/${p.id}`, { auth: t.auth }), 404, "NOT_FOUND");
  });

  it("404 for another tenant's policy (kept); 403 without access:delete (kept)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await createPolicy(other, { name: "theirs" });
    await unchanged(other, () => call("DELETE", `/access/policies/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    const mine = await createPolicy(t, { name: "mine" });
    await createRole(t, "nodelete", ["access:read", "access:create", "access:update"]);
    const tok = await mintWithRoles(t, ["nodelete"]);
    await unchanged(t, () => call("DELETE", `/access/policies/${mine.id}`, { auth: tok.auth }), 403, "FORBIDDEN");
  });
});

describe("/access/grants", () => {
  it("POST adds a grant to a policy: 201 grant; GET ?policy_id= lists that policy's grants, paged", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p", grants: [{ resource: "schema", actions: ["read"] }] });
    const q = await createPolicy(t, { name: "q", grants: [{ resource: "event", actions: ["read"] }] });
    const res = await call("POST", "/access/grants", {
      auth: t.auth,
      body: { policy_id: p.id, resource: "entity", actions: ["read"], resource_name: "Order" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      data: { id: expect.stringMatching(UUID), policy_id: p.id, resource: "entity", actions: ["read"], resource_name: "Order", resource_id: null },
    });
    expect((await call("GET", `/access/policies/${p.id}`, { auth: t.auth })).json.data.grants.map((g: any) => g.resource)).toEqual(["schema", "entity"]);

    const listed = await call("GET", `/access/grants?policy_id=${p.id}`, { auth: t.auth });
    expect(listed.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });
    expect(listed.json.data.map((g: any) => [g.policy_id, g.resource])).toEqual([
      [p.id, "schema"],
      [p.id, "entity"],
    ]);
    const all = await call("GET", "/access/grants?limit=2&page=2", { auth: t.auth });
    expect(all.json.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(all.json.data).toHaveLength(1);
    expect(all.json.data[0].policy_id).toBe(p.id);
    expect((await call("GET", `/access/grants?policy_id=${q.id}`, { auth: t.auth })).json.data.map((g: any) => g.resource)).toEqual(["event"]);
  });

  it("an unknown or other tenant's policy_id is 422 naming it, writing nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await createPolicy(other, { name: "theirs" });
    for (const id of [crypto.randomUUID(), theirs.id]) {
      const err = await unchanged(
        t,
        () => call("POST", "/access/grants", { auth: t.auth, body: { policy_id: id, resource: "entity", actions: ["read"] } }),
        422,
        "UNPROCESSABLE_ENTITY",
      );
      expect(err.details.policy_id).toBe(id);
      expect(err.message).toContain(id);
    }
    expect(await systemQuery("SELECT count(*)::int AS n FROM grants WHERE policy_id = $1", [theirs.id])).toEqual([{ n: 0 }]);
  });

  it("adding to an assigned policy needs the grant's permission (403, nothing written); unassigned needs none", async () => {
    const t = await createTenant();
    const admin = await accessAdmin(t);
    const p = await createPolicy(admin, { name: "p" });
    expect((await call("POST", "/access/grants", { auth: admin.auth, body: { policy_id: p.id, resource: "schema", actions: ["create"] } })).status).toBe(201);
    const u = await call("POST", "/access/users", { auth: t.auth, body: { email: "g@example.com" } });
    await assign(t, p.id, { user_id: u.json.data.id });
    const err = await unchanged(
      t,
      () => call("POST", "/access/grants", { auth: admin.auth, body: { policy_id: p.id, resource: "entity", actions: ["read"], resource_name: "T" } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:read"]);
    expect((await call("POST", "/access/grants", { auth: admin.auth, body: { policy_id: p.id, resource: "access", actions: ["read"] } })).status).toBe(201);
  });

  it("refuses bad bodies with the same lines as a policy's grants", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    const post = (body: unknown) => () => call("POST", "/access/grants", { auth: t.auth, body });
    expect(await lines(t, post({ resource: "entity", actions: ["read"] }))).toEqual(["policy_id: is required"]);
    expect(await lines(t, post({ policy_id: p.id, resource: "workflow", actions: ["read"], resource_name: "x" }))).toEqual(['resource: must equal "entity"']);
    expect(await lines(t, post({ policy_id: p.id, resource: "entity", actions: ["read"], resource_name: "x", resource_id: crypto.randomUUID() }))).toEqual([
      "resource_id: is not allowed",
    ]);
    expect(await lines(t, post({ policy_id: p.id, resource: "entity", actions: [] }))).toEqual([expect.stringMatching(/^actions: /)]);
    expect(await lines(t, post({ policy_id: "x", resource: "entity", actions: ["read"] }))).toEqual([expect.stringMatching(/^policy_id: /)]);
  });

  it("DELETE removes a grant; 404 for unknown and other tenants' grants (kept); 403 without the permission", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, {
      name: "p",
      grants: [
        { resource: "schema", actions: ["read"] },
        { resource: "event", actions: ["read"] },
      ],
    });
    const res = await call("DELETE", `/access/grants/${p.grants[0].id}`, { auth: t.auth });
    expect(res.json).toEqual({ data: { id: p.grants[0].id, deleted: true } });
    expect((await call("GET", `/access/policies/${p.id}`, { auth: t.auth })).json.data.grants.map((g: any) => g.id)).toEqual([p.grants[1].id]);
    expectError(await call("DELETE", `/access/grants/${p.grants[0].id}`, { auth: t.auth }), 404, "NOT_FOUND");
    const other = await createTenant();
    await unchanged(t, () => call("DELETE", `/access/grants/${p.grants[1].id}`, { auth: other.auth }), 404, "NOT_FOUND");
    await createRole(t, "ro", ["access:read"]);
    const ro = await mintWithRoles(t, ["ro"]);
    await unchanged(t, () => call("DELETE", `/access/grants/${p.grants[1].id}`, { auth: ro.auth }), 403, "FORBIDDEN");
    await unchanged(
      t,
      () => call("POST", "/access/grants", { auth: ro.auth, body: { policy_id: p.id, resource: "event", actions: ["read"] } }),
      403,
      "FORBIDDEN",
    );
    expect((await call("GET", "/access/grants", { auth: ro.auth })).json.pagination.total).toBe(1);
  });
});

describe("/access/policies/{id}/assignments", () => {
  it("assigns to a role by name and to a user by id: 201 {id, policy_id, role_name, user_id, created_at}; GET lists them", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p", grants: [{ resource: "schema", actions: ["read"] }] });
    const role = await createRole(t, "support", []);
    const byRole = await call("POST", `/access/policies/${p.id}/assignments`, { auth: t.auth, body: { role_name: "support" } });
    expect(byRole.status).toBe(201);
    expect(byRole.json).toEqual({
      data: { id: expect.stringMatching(UUID), policy_id: p.id, role_name: "support", user_id: null, created_at: expect.any(String) },
    });
    const byUser = await assign(t, p.id, { user_id: t.userId });
    expect(byUser).toMatchObject({ policy_id: p.id, role_name: null, user_id: t.userId });
    expect(await systemQuery("SELECT role_id, user_id FROM policy_assignments WHERE policy_id = $1 ORDER BY created_at, id", [p.id])).toEqual([
      { role_id: role.id, user_id: null },
      { role_id: null, user_id: t.userId },
    ]);
    const listed = await call("GET", `/access/policies/${p.id}/assignments`, { auth: t.auth });
    expect(listed.json).toEqual({ data: [byUser, byRole.json.data], pagination: { page: 1, limit: 100, total: 2, total_pages: 1 } });
  });

  it("a duplicate is 409; an unknown role or user (or another tenant's) is 422 naming it; an unknown policy 404", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    await createRole(t, "r", []);
    await assign(t, p.id, { role_name: "r" });
    const dup = await unchanged(t, () => call("POST", `/access/policies/${p.id}/assignments`, { auth: t.auth, body: { role_name: "r" } }), 409, "CONFLICT");
    expect(dup.details).toMatchObject({ policy_id: p.id, role_name: "r" });
    const role = await unchanged(
      t,
      () => call("POST", `/access/policies/${p.id}/assignments`, { auth: t.auth, body: { role_name: "ghost" } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(role.details.role_name).toBe("ghost");
    expect(role.message).toContain("ghost");
    for (const id of [crypto.randomUUID(), other.userId]) {
      const user = await unchanged(
        t,
        () => call("POST", `/access/policies/${p.id}/assignments`, { auth: t.auth, body: { user_id: id } }),
        422,
        "UNPROCESSABLE_ENTITY",
      );
      expect(user.details.user_id).toBe(id);
    }
    await unchanged(t, () => call("POST", `/access/policies/${crypto.randomUUID()}/assignments`, { auth: t.auth, body: { role_name: "r" } }), 404, "NOT_FOUND");
    const theirs = await createPolicy(other, { name: "theirs" });
    await unchanged(other, () => call("POST", `/access/policies/${theirs.id}/assignments`, { auth: t.auth, body: { role_name: "r" } }), 404, "NOT_FOUND");
    expectError(await call("GET", `/access/policies/${theirs.id}/assignments`, { auth: t.auth }), 404, "NOT_FOUND");
  });

  it("needs exactly one of role_name and user_id (422 saying which)", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    const post = (body: unknown) => () => call("POST", `/access/policies/${p.id}/assignments`, { auth: t.auth, body });
    expect(await lines(t, post({}))).toEqual(["(root): does not match any allowed shape (role_name is required | user_id is required)"]);
    expect(await lines(t, post({ role_name: "r", user_id: t.userId }))).toEqual([
      "(root): does not match any allowed shape (user_id: is not allowed | role_name: is not allowed)",
    ]);
    expect(await lines(t, post({ user_id: "x" }))).toEqual([expect.stringMatching(/user_id/)]);
    expect(await lines(t, post({ role_name: "r\u0000" }))).toEqual([`role_name: ${NOT_TEXT}`]);
  });

  it("assigning needs every grant's permission, narrowed ones counted whole (403, nothing written)", async () => {
    const t = await createTenant();
    const admin = await accessAdmin(t);
    await createRole(t, "r", []);
    const narrow = await createPolicy(t, {
      name: "narrow",
      grants: [
        { resource: "entity", actions: ["read"], resource_name: "T" },
        { resource: "access", actions: ["read"] },
      ],
    });
    const err = await unchanged(
      t,
      () => call("POST", `/access/policies/${narrow.id}/assignments`, { auth: admin.auth, body: { role_name: "r" } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["entity:read"]);
    const mine = await createPolicy(t, { name: "mine", grants: [{ resource: "access", actions: ["read", "update"] }] });
    expect((await call("POST", `/access/policies/${mine.id}/assignments`, { auth: admin.auth, body: { role_name: "r" } })).status).toBe(201);
  });

  it("DELETE ?role_name= / ?user_id= removes one assignment; 404 when there is none; 422 unless exactly one", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    await createRole(t, "r", []);
    const a = await assign(t, p.id, { role_name: "r" });
    const b = await assign(t, p.id, { user_id: t.userId });
    const res = await call("DELETE", `/access/policies/${p.id}/assignments?role_name=r`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: a.id, deleted: true } });
    expect((await call("GET", `/access/policies/${p.id}/assignments`, { auth: t.auth })).json.data).toEqual([b]);
    expectError(await call("DELETE", `/access/policies/${p.id}/assignments?role_name=r`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/policies/${p.id}/assignments?role_name=ghost`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/policies/${p.id}/assignments?user_id=${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/policies/${crypto.randomUUID()}/assignments?user_id=${t.userId}`, { auth: t.auth }), 404, "NOT_FOUND");
    await lines(t, () => call("DELETE", `/access/policies/${p.id}/assignments`, { auth: t.auth }));
    await lines(t, () => call("DELETE", `/access/policies/${p.id}/assignments?role_name=r&user_id=${t.userId}`, { auth: t.auth }));
    const other = await createTenant();
    await unchanged(t, () => call("DELETE", `/access/policies/${p.id}/assignments?user_id=${t.userId}`, { auth: other.auth }), 404, "NOT_FOUND");
    expect((await call("DELETE", `/access/policies/${p.id}/assignments?user_id=${t.userId}`, { auth: t.auth })).json.data).toEqual({ id: b.id, deleted: true });
  });

  it("each verb needs its access permission (403, nothing written)", async () => {
    const t = await createTenant();
    const p = await createPolicy(t, { name: "p" });
    await createRole(t, "r", []);
    await assign(t, p.id, { role_name: "r" });
    await createRole(t, "none", ["entity:*"]);
    const tok = await mintWithRoles(t, ["none"]);
    await unchanged(t, () => call("POST", `/access/policies/${p.id}/assignments`, { auth: tok.auth, body: { user_id: t.userId } }), 403, "FORBIDDEN");
    await unchanged(t, () => call("DELETE", `/access/policies/${p.id}/assignments?role_name=r`, { auth: tok.auth }), 403, "FORBIDDEN");
    expectError(await call("GET", `/access/policies/${p.id}/assignments`, { auth: tok.auth }), 403, "FORBIDDEN");
  });
});
