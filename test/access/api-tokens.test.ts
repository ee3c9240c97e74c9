// PATs: POST /access/api-tokens and POST /auth/tokens/api (mint), GET (list),
// DELETE (revoke).
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, sha256, systemQuery, type TenantCreds } from "../support/api";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MINT_PATHS = ["/access/api-tokens", "/auth/tokens/api"] as const;

async function mint(creds: { auth: string }, body: Record<string, unknown> = { name: `tok-${crypto.randomUUID().slice(0, 6)}` }, path: string = MINT_PATHS[0]) {
  const res = await call("POST", path, { auth: creds.auth, body });
  expect(res.status, res.text).toBe(201);
  const d = res.json.data;
  return { res, data: d, id: d.id as string, auth: basic(d.client_id, d.client_secret) };
}

async function createRole(creds: TenantCreds, name: string, permissions: string[]) {
  const res = await call("POST", "/access/roles", { auth: creds.auth, body: { name, permissions } });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

const permissionsOf = async (auth: string) => (await call("GET", "/access/me/permissions", { auth })).json?.data?.permissions;

describe.each(MINT_PATHS)("POST %s", (path) => {
  it("answers 201 with data {id, name, client_id, client_secret, expires_at, created_at}", async () => {
    const t = await createTenant();
    const before = Date.now();
    const { res, data } = await mint(t, { name: "ci deploy" }, path);
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    expect(Object.keys(data)).toEqual(expect.arrayContaining(["id", "name", "client_id", "client_secret", "expires_at", "created_at"]));
    expect(data.id).toMatch(UUID);
    expect(data.name).toBe("ci deploy");
    expect(typeof data.client_id).toBe("string");
    expect(data.client_id.length).toBeGreaterThanOrEqual(16);
    expect(typeof data.client_secret).toBe("string");
    expect(data.client_secret.length).toBeGreaterThanOrEqual(32);
    expect(data.client_secret).not.toContain(data.client_id);
    expect(data.expires_at).toBeNull();
    expect(Math.abs(Date.parse(data.created_at) - before)).toBeLessThan(120_000);
  });

  it("the minted secret works at once over Basic and at the token exchange", async () => {
    const t = await createTenant();
    const { data, auth } = await mint(t, { name: "works" }, path);
    expect(await permissionsOf(auth)).toEqual(["*:*"]);
    const exchanged = await call("POST", "/auth/token", {
      body: { grant_type: "client_credentials", client_id: data.client_id, client_secret: data.client_secret },
    });
    expect(exchanged.status).toBe(200);
  });

  it("echoes a future expires_at as an ISO timestamp for the same instant", async () => {
    const t = await createTenant();
    const expires = new Date(Date.now() + 7 * 86_400_000);
    expires.setUTCMilliseconds(0);
    const { data, auth } = await mint(t, { name: "expiring", expires_at: expires.toISOString() }, path);
    expect(Date.parse(data.expires_at)).toBe(expires.getTime());
    expect(data.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect((await call("GET", "/access/me/permissions", { auth })).status).toBe(200);
  });

  it("is refused without access:create", async () => {
    const t = await createTenant();
    await createRole(t, "reader", ["entity:read"]);
    const reader = await mint(t, { name: "reader", role_names: ["reader"] });
    expectError(await call("POST", path, { auth: reader.auth, body: { name: "x" } }), 403, "FORBIDDEN");
  });
});

describe("secret storage", () => {
  it("stores only the SHA-256 of the secret: 32 bytes, and the raw secret nowhere in the row", async () => {
    const t = await createTenant();
    const { data } = await mint(t, { name: "hashed" });
    const [row] = await systemQuery(
      "SELECT t.*, length(t.secret_hash) AS hash_length, encode(t.secret_hash, 'hex') AS hash_hex, row_to_json(t)::text AS whole FROM api_tokens t WHERE id = $1",
      [data.id],
    );
    expect(row.client_id).toBe(data.client_id);
    expect(row.hash_length).toBe(32);
    const expected = await sha256(data.client_secret);
    expect(new Uint8Array(row.secret_hash)).toEqual(expected);
    expect(row.hash_hex).toBe([...expected].map((b) => b.toString(16).padStart(2, "0")).join(""));

    const secretBody = data.client_secret.replace(/^sk_/, "");
    expect(row.whole).not.toContain(secretBody);
    for (const value of Object.values(row)) {
      if (typeof value === "string" && value !== row.whole) expect(value).not.toContain(secretBody);
    }
  });

  it("keeps the raw secret out of every table, also when minted with an Idempotency-Key", async () => {
    const t = await createTenant();
    const res = await call("POST", "/access/api-tokens", {
      auth: t.auth,
      body: { name: "keyed" },
      headers: { "Idempotency-Key": `mint-${crypto.randomUUID()}` },
    });
    expect(res.status).toBe(201);
    const secret: string = res.json.data.client_secret;
    const found = await systemQuery(
      `SELECT 'api_tokens' AS tbl FROM api_tokens t WHERE tenant_id = $1 AND position($2 in row_to_json(t)::text) > 0
       UNION ALL
       SELECT 'idempotency_records' FROM idempotency_records r WHERE tenant_id = $1 AND position($2 in row_to_json(r)::text) > 0`,
      [t.tenantId, secret.replace(/^sk_/, "")],
    );
    expect(found).toEqual([]);
  });

  it("never shows the secret again: a repeated mint request mints a different token", async () => {
    const t = await createTenant();
    const key = `mint-${crypto.randomUUID()}`;
    const first = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "once" }, headers: { "Idempotency-Key": key } });
    const second = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "once" }, headers: { "Idempotency-Key": key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json.data.client_secret).not.toBe(first.json.data.client_secret);
    expect(second.json.data.id).not.toBe(first.json.data.id);
  });

  it("documents no Idempotency-Key on the mint routes, while role creation keeps it", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const names = (op: any) => (op.parameters ?? []).map((p: any) => p.name);
    expect(names(doc.paths["/access/api-tokens"].post)).not.toContain("Idempotency-Key");
    expect(names(doc.paths["/auth/tokens/api"].post)).not.toContain("Idempotency-Key");
    expect(names(doc.paths["/access/roles"].post)).toContain("Idempotency-Key");
  });
});

describe("GET /access/api-tokens", () => {
  it("lists the tenant's tokens without secrets or hashes, in the pagination envelope", async () => {
    const t = await createTenant();
    const minted = await mint(t, { name: "listed" });
    const res = await call("GET", "/access/api-tokens", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["data", "pagination"]);
    expect(res.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });
    expect(res.json.data.map((r: any) => r.id).sort()).toEqual([t.tokenId, minted.id].sort());
    for (const item of res.json.data) {
      expect(item).not.toHaveProperty("client_secret");
      expect(item).not.toHaveProperty("secret_hash");
      expect(item.id).toMatch(UUID);
    }
    expect(res.text).not.toContain(minted.data.client_secret);
    const listed = res.json.data.find((r: any) => r.id === minted.id);
    expect(listed).toMatchObject({ name: "listed", client_id: minted.data.client_id, expires_at: null, revoked_at: null, created_at: minted.data.created_at });
  });

  it("honours page and limit", async () => {
    const t = await createTenant();
    for (let i = 0; i < 4; i++) await mint(t, { name: `p${i}` });
    // 5 tokens in all: the bootstrap one and four minted.
    const p1 = await call("GET", "/access/api-tokens?limit=2&page=1", { auth: t.auth });
    const p2 = await call("GET", "/access/api-tokens?limit=2&page=2", { auth: t.auth });
    const p3 = await call("GET", "/access/api-tokens?limit=2&page=3", { auth: t.auth });
    const p4 = await call("GET", "/access/api-tokens?limit=2&page=4", { auth: t.auth });
    expect(p1.json.pagination).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(p2.json.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect(p3.json.pagination).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3 });
    expect(p1.json.data).toHaveLength(2);
    expect(p2.json.data).toHaveLength(2);
    expect(p3.json.data).toHaveLength(1);
    expect(p4.json.data).toEqual([]);
    const ids = [...p1.json.data, ...p2.json.data, ...p3.json.data].map((r: any) => r.id);
    expect(new Set(ids).size).toBe(5);
    // Newest first: the bootstrap token, created with the tenant, comes last.
    expect(p3.json.data[0].id).toBe(t.tokenId);
    expect(p1.json.data.map((r: any) => r.name)).toEqual(["p3", "p2"]);
  });

  it.each([
    ["limit=0", "limit: 0 is less than 1"],
    ["limit=1001", "limit: 1001 is greater than 1000"],
    ["page=0", "page: 0 is less than 1"],
    ["page=-1", "page: -1 is less than 1"],
    ["limit=abc", "limit: must be integer, got string"],
    ["sort=name", "sort: is not allowed"],
  ])("refuses %s with 422 VALIDATION_FAILED", async (query, line) => {
    const t = await createTenant();
    const err = expectError(await call("GET", `/access/api-tokens?${query}`, { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual([line]);
  });

  it("accepts the limit bounds 1 and 1000", async () => {
    const t = await createTenant();
    const one = await call("GET", "/access/api-tokens?limit=1", { auth: t.auth });
    expect(one.status).toBe(200);
    expect(one.json.data).toHaveLength(1);
    expect((await call("GET", "/access/api-tokens?limit=1000", { auth: t.auth })).json.pagination.limit).toBe(1000);
  });

  it("shows only the caller's tenant's tokens", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const bToken = await mint(b, { name: "b-only" });
    const listA = await call("GET", "/access/api-tokens", { auth: a.auth });
    expect(listA.json.data.map((r: any) => r.id)).toEqual([a.tokenId]);
    expect(listA.json.pagination.total).toBe(1);
    expect(listA.text).not.toContain(bToken.id);
  });
});

describe("DELETE /access/api-tokens/:id", () => {
  it("revokes: 200 data {id, revoked: true, revoked_at}, and the token answers 401 on its very next request", async () => {
    const t = await createTenant();
    const victim = await mint(t, { name: "victim" });
    expect((await call("GET", "/access/me/permissions", { auth: victim.auth })).status).toBe(200);

    const before = Date.now();
    const res = await call("DELETE", `/access/api-tokens/${victim.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data).sort()).toEqual(["id", "revoked", "revoked_at"]);
    expect(res.json.data.id).toBe(victim.id);
    expect(res.json.data.revoked).toBe(true);
    expect(Math.abs(Date.parse(res.json.data.revoked_at) - before)).toBeLessThan(120_000);

    expectError(await call("GET", "/access/me/permissions", { auth: victim.auth }), 401, "UNAUTHORIZED");

    const listed = (await call("GET", "/access/api-tokens", { auth: t.auth })).json.data.find((r: any) => r.id === victim.id);
    expect(listed.revoked_at).toBe(res.json.data.revoked_at);
  });

  it("revoking again keeps the first revocation time", async () => {
    const t = await createTenant();
    const victim = await mint(t);
    const first = await call("DELETE", `/access/api-tokens/${victim.id}`, { auth: t.auth });
    const second = await call("DELETE", `/access/api-tokens/${victim.id}`, { auth: t.auth });
    expect(second.status).toBe(200);
    expect(second.json.data).toEqual(first.json.data);
  });

  it("a token can revoke itself, and is refused afterwards", async () => {
    const t = await createTenant();
    const self = await mint(t);
    expect((await call("DELETE", `/access/api-tokens/${self.id}`, { auth: self.auth })).status).toBe(200);
    expectError(await call("GET", "/access/api-tokens", { auth: self.auth }), 401, "UNAUTHORIZED");
  });

  it("refuses a non-uuid id with 422 VALIDATION_FAILED", async () => {
    const t = await createTenant();
    const err = expectError(await call("DELETE", "/access/api-tokens/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["id: must be a UUID"]);
    expectError(await call("DELETE", `/access/api-tokens/${t.tokenId.toUpperCase()}`, { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("answers 404 NOT_FOUND for an unknown uuid", async () => {
    const t = await createTenant();
    const err = expectError(await call("DELETE", `/access/api-tokens/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect(err.message.length).toBeGreaterThan(0);
  });

  it("answers 404 for another tenant's token and leaves it working", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const bToken = await mint(b, { name: "b-token" });
    expectError(await call("DELETE", `/access/api-tokens/${bToken.id}`, { auth: a.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/api-tokens/${b.tokenId}`, { auth: a.auth }), 404, "NOT_FOUND");
    expect((await call("GET", "/access/me/permissions", { auth: bToken.auth })).status).toBe(200);
    expect((await call("GET", "/access/me/permissions", { auth: b.auth })).status).toBe(200);
    const [row] = await systemQuery("SELECT revoked_at FROM api_tokens WHERE id = $1", [bToken.id]);
    expect(row.revoked_at).toBeNull();
  });
});

describe("mint: roles and limits", () => {
  it("without role_names the token carries its creator's roles", async () => {
    const t = await createTenant();
    await createRole(t, "ops", ["access:create", "entity:read"]);
    const ops = await mint(t, { name: "ops", role_names: ["ops"] });
    const child = await mint(ops, { name: "child" });
    expect(child.data.role_names).toEqual(["ops"]);
    expect(await permissionsOf(child.auth)).toEqual(["access:create", "entity:read"]);
  });

  it("role_names gives the token exactly those roles' permissions", async () => {
    const t = await createTenant();
    await createRole(t, "r1", ["entity:read"]);
    await createRole(t, "r2", ["entity:update", "entity:read"]);
    const tok = await mint(t, { name: "two roles", role_names: ["r1", "r2"] });
    expect(await permissionsOf(tok.auth)).toEqual(["entity:read", "entity:update"]);
  });

  it("refuses an unknown role name with 422 UNPROCESSABLE_ENTITY naming it, and mints nothing", async () => {
    const t = await createTenant();
    await createRole(t, "known", ["entity:read"]);
    const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "bad", role_names: ["known", "ghost"] } });
    const err = expectError(res, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.unknown_roles).toEqual(["ghost"]);
    const [{ n }] = await systemQuery("SELECT count(*)::int AS n FROM api_tokens WHERE tenant_id = $1", [t.tenantId]);
    expect(n).toBe(1);
  });

  it("does not find a role that exists only in another tenant", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createRole(b, "b-role", ["entity:read"]);
    const err = expectError(
      await call("POST", "/access/api-tokens", { auth: a.auth, body: { name: "x", role_names: ["b-role"] } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(err.details.unknown_roles).toEqual(["b-role"]);
  });

  it("a limited token cannot mint a token with the admin role (403) or with any permission it lacks", async () => {
    const t = await createTenant();
    await createRole(t, "minter", ["access:create", "entity:read"]);
    await createRole(t, "writer", ["entity:update"]);
    const minter = await mint(t, { name: "minter", role_names: ["minter"] });

    const err = expectError(
      await call("POST", "/access/api-tokens", { auth: minter.auth, body: { name: "escalate", role_names: ["admin"] } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details.missing_permissions).toEqual(["*:*"]);
    expectError(await call("POST", "/auth/tokens/api", { auth: minter.auth, body: { name: "escalate", role_names: ["admin"] } }), 403, "FORBIDDEN");
    expectError(await call("POST", "/access/api-tokens", { auth: minter.auth, body: { name: "escalate", role_names: ["writer"] } }), 403, "FORBIDDEN");

    const [{ n }] = await systemQuery("SELECT count(*)::int AS n FROM api_tokens WHERE tenant_id = $1", [t.tenantId]);
    expect(n).toBe(2);

    // Within its own permissions it may mint.
    const ok = await mint(minter, { name: "fine", role_names: ["minter"] });
    expect(await permissionsOf(ok.auth)).toEqual(["access:create", "entity:read"]);
  });

  it("refuses expires_at in the past with 422 and mints nothing", async () => {
    const t = await createTenant();
    const past = new Date(Date.now() - 60_000).toISOString();
    const err = expectError(await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "old", expires_at: past } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["expires_at: must be in the future"]);
    const [{ n }] = await systemQuery("SELECT count(*)::int AS n FROM api_tokens WHERE tenant_id = $1", [t.tenantId]);
    expect(n).toBe(1);
  });

  it("refuses an expires_at that is not a date-time with 422", async () => {
    const t = await createTenant();
    const err = expectError(
      await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "x", expires_at: "next tuesday" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.validation_errors).toEqual(['expires_at: String does not match format "date-time"']);
  });

  it("refuses unknown body fields with 422 naming them", async () => {
    const t = await createTenant();
    for (const path of MINT_PATHS) {
      const err = expectError(await call("POST", path, { auth: t.auth, body: { name: "x", scopes: ["all"], admin: true } }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual(["scopes: is not allowed", "admin: is not allowed"]);
    }
  });

  it("refuses a missing or empty name with 422", async () => {
    const t = await createTenant();
    expect(expectError(await call("POST", "/access/api-tokens", { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED").details.validation_errors).toEqual([
      "name: is required",
    ]);
    expect(
      expectError(await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "" } }), 422, "VALIDATION_FAILED").details.validation_errors,
    ).toEqual(["name: String is too short (0 < 1)"]);
  });

  it("refuses duplicate role_names with 422", async () => {
    const t = await createTenant();
    const err = expectError(
      await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "x", role_names: ["admin", "admin"] } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.validation_errors).toHaveLength(1);
    expect(err.details.validation_errors[0]).toMatch(/^role_names: /);
  });
});
