// The isolate's cache of verified callers (src/auth/caller-cache.ts): a
// credential seen in the last minute runs no lookup of its own, and its guard,
// riding ahead of the request's first statement, makes every change to the
// token, its user or the tenant's access count on the very next request. Each
// test warms the cache with a few requests first, so a stale entry would be
// served if the guard did not hold it back.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, basic, call, createTenant, expectError, systemQuery } from "../support/api";
import { createRole, createUser, roleToken, tokenForUser } from "../access/fixture";

const me = (auth: string) => call("GET", "/access/me", { auth });
const types = (auth: string) => call("GET", "/entity/entity-types", { auth });

async function warm(auth: string, status = 200) {
  for (let i = 0; i < 3; i++) {
    const res = await types(auth);
    expect(res.status, res.text).toBe(status);
  }
}

const typeBody = (name: string) => ({
  name,
  status: "active",
  schema: { type: "object", properties: { sku: { type: "string" } } },
  config: { identifier_key: ["sku"] },
});

/** Changes the tenant's access (its version moves) without touching the caller's own grants. */
const unrelatedAccessChange = (admin: string) => createRole(admin, ["entity:read"]);

async function typeNames(tenantId: string): Promise<string[]> {
  return (await systemQuery("SELECT name FROM entity_types WHERE tenant_id = $1 ORDER BY name", [tenantId])).map((r) => r.name as string);
}

describe("cached callers", () => {
  it("a PAT revoked between two requests is 401 on the second, on a route that runs no statement too", async () => {
    const t = await createTenant();
    const { tokenId, auth } = await roleToken(t.auth, ["entity_type:read"]);
    await warm(auth);
    expect((await me(auth)).status).toBe(200);
    expect((await call("DELETE", `/access/api-tokens/${tokenId}`, { auth: t.auth })).status).toBe(200);
    expectError(await me(auth), 401, "UNAUTHORIZED");
    expectError(await types(auth), 401, "UNAUTHORIZED");
  });

  it("an access token of a revoked PAT is 401 on the next request", async () => {
    const t = await createTenant();
    const { tokenId, auth } = await roleToken(t.auth, ["entity_type:read"]);
    const exchanged = await SELF.fetch(`${BASE}/auth/token`, {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials" }),
    });
    const bearer = `Bearer ${((await exchanged.json()) as { access_token: string }).access_token}`;
    await warm(bearer);
    expect((await call("DELETE", `/access/api-tokens/${tokenId}`, { auth: t.auth })).status).toBe(200);
    const refused = await types(bearer);
    expectError(refused, 401, "UNAUTHORIZED");
    expect(refused.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
  });

  it("a role removed between two requests is 403 on the second", async () => {
    const t = await createTenant();
    const { role, auth } = await roleToken(t.auth, ["entity_type:read"]);
    await warm(auth);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["entity:read"] } })).status).toBe(200);
    expect(expectError(await types(auth), 403, "FORBIDDEN").details).toMatchObject({ resource: "entity_type", action: "read" });
  });

  it("a permission granted between two requests is held on the second (a cached 403 is not answered)", async () => {
    const t = await createTenant();
    const { role, auth } = await roleToken(t.auth, ["entity:read"]);
    await warm(auth, 403);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["entity_type:read"] } })).status).toBe(200);
    expect((await types(auth)).status).toBe(200);
  });

  it("a deactivated user's token is 401 on the next request", async () => {
    const t = await createTenant();
    const role = await createRole(t.auth, ["entity_type:read"]);
    const user = await createUser(t.auth, [role.name]);
    const { auth } = await tokenForUser(t.auth, user.id);
    await warm(auth);
    expect((await call("PUT", `/access/users/${user.id}`, { auth: t.auth, body: { is_active: false } })).status).toBe(200);
    expectError(await me(auth), 401, "UNAUTHORIZED");
    expectError(await types(auth), 401, "UNAUTHORIZED");
  });

  it("an expiry set between two requests is 401 on the second", async () => {
    const t = await createTenant();
    const { tokenId, auth } = await roleToken(t.auth, ["entity_type:read"]);
    await warm(auth);
    await systemQuery("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [tokenId]);
    expectError(await me(auth), 401, "UNAUTHORIZED");
  });

  it("a wrong secret for a cached client id is 401", async () => {
    const t = await createTenant();
    await warm(t.auth);
    expectError(await types(basic(t.clientId, `${t.clientSecret}x`)), 401, "UNAUTHORIZED");
    expectError(await types(basic(t.clientId, "")), 401, "UNAUTHORIZED");
    expect((await types(t.auth)).status).toBe(200);
  });

  it("never crosses tenants: two tenants' PATs each see their own", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expect((await call("POST", "/entity/entity-types", { auth: a.auth, body: typeBody("OnlyA") })).status).toBe(201);
    for (let i = 0; i < 3; i++) {
      for (const [t, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const mine = await me(t.auth);
        expect(mine.json.data).toEqual({ tenant_id: t.tenantId, user_id: t.userId, token_id: t.tokenId });
        const names = (await types(t.auth)).json.data.map((x: { name: string }) => x.name);
        expect(names.includes("OnlyA")).toBe(t === a);
        expect(mine.json.data.tenant_id).not.toBe(other.tenantId);
      }
    }
  });

  it("a write whose guard is refused is applied once, as an uncached request would apply it", async () => {
    const t = await createTenant();
    await warm(t.auth);
    await unrelatedAccessChange(t.auth);
    const created = await call("POST", "/entity/entity-types", { auth: t.auth, body: typeBody("Once") });
    expect(created.status, created.text).toBe(201);
    expect(await typeNames(t.tenantId)).toEqual(["Once"]);
    // The entity write path too: one row, and its event in the outbox once.
    await unrelatedAccessChange(t.auth);
    const entity = await call("POST", "/entity/entities", { auth: t.auth, body: { type_name: "Once", name: "one", attributes: { sku: "S-1" } } });
    expect(entity.status, entity.text).toBe(201);
    const rows = await systemQuery("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1", [t.tenantId]);
    expect(rows[0].n).toBe(1);
    const events = await systemQuery("SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND entity_id = $2", [t.tenantId, entity.json.data.id]);
    expect(events[0].n).toBe(1);
  });

  it("a write whose guard is refused and whose caller lost the permission writes nothing and is 403", async () => {
    const t = await createTenant();
    const { role, auth } = await roleToken(t.auth, ["entity_type:create", "entity_type:read"]);
    await warm(auth);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["entity_type:read"] } })).status).toBe(200);
    expectError(await call("POST", "/entity/entity-types", { auth, body: typeBody("Never") }), 403, "FORBIDDEN");
    expect(await typeNames(t.tenantId)).toEqual([]);
  });

  it("a refused guard under an Idempotency-Key: the key is claimed once and its answer replayed", async () => {
    const t = await createTenant();
    await warm(t.auth);
    await unrelatedAccessChange(t.auth);
    const headers = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    const first = await call("POST", "/entity/entity-types", { auth: t.auth, body: typeBody("Keyed"), headers });
    expect(first.status, first.text).toBe(201);
    const again = await call("POST", "/entity/entity-types", { auth: t.auth, body: typeBody("Keyed"), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.json).toEqual(first.json);
    expect(await typeNames(t.tenantId)).toEqual(["Keyed"]);
  });

  it("a streamed body (CSV import) after an access change is read once and imported", async () => {
    const t = await createTenant();
    expect((await call("POST", "/entity/entity-types", { auth: t.auth, body: typeBody("Part") })).status).toBe(201);
    await warm(t.auth);
    await unrelatedAccessChange(t.auth);
    const headers = { Authorization: t.auth, "Content-Type": "text/csv", "X-Import-Config": encodeURIComponent(JSON.stringify({ entity_type_name: "Part" })) };
    const res = await SELF.fetch(`${BASE}/entity/entities/import`, { method: "POST", headers, body: "name,sku\nBolt,B1\nNut,N1\n" });
    const json = (await res.json()) as { data: { created: number } };
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(json.data.created).toBe(2);
  });

  it("a revoked token's streamed body is refused before it is read", async () => {
    const t = await createTenant();
    const { tokenId, auth } = await roleToken(t.auth, ["entity:create", "entity:update", "entity:read", "entity_type:read"]);
    expect((await call("POST", "/entity/entity-types", { auth: t.auth, body: typeBody("Part") })).status).toBe(201);
    await warm(auth);
    expect((await call("DELETE", `/access/api-tokens/${tokenId}`, { auth: t.auth })).status).toBe(200);
    const headers = { Authorization: auth, "Content-Type": "text/csv", "X-Import-Config": encodeURIComponent(JSON.stringify({ entity_type_name: "Part" })) };
    const res = await SELF.fetch(`${BASE}/entity/entities/import`, { method: "POST", headers, body: "name,sku\nBolt,B1\n" });
    expect(res.status).toBe(401);
    await res.arrayBuffer();
    expect((await systemQuery("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1", [t.tenantId]))[0].n).toBe(0);
  });
});
