// /access/secrets: values
// encrypted at rest under a per-tenant key, never answered, never in an error
// or a log line; and the resolver that reads them for later features.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Database, tenantDb, type TenantDb } from "../../src/db/client";
import { resolveSecrets } from "../../src/access/secrets/resolver";
import { tenantKeyBits } from "../../src/lib/tenant-key";
import { ApiError } from "../../src/lib/errors";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEYS = ["created_at", "id", "name", "principal_id", "scope", "updated_at"];

const put = (t: { auth: string }, body: unknown) => call("POST", "/access/secrets", { auth: t.auth, body });

async function created(t: TenantCreds, body: Record<string, unknown>) {
  const res = await put(t, body);
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** A token whose only role holds `permissions`. */
async function restricted(t: TenantCreds, permissions: string[]) {
  const name = `r-${crypto.randomUUID().slice(0, 8)}`;
  expect((await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions } })).status).toBe(201);
  const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name, role_names: [name] } });
  expect(res.status, res.text).toBe(201);
  return { auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}

async function withTenant<T>(tenantId: string, fn: (tenant: TenantDb) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  try {
    return await fn(tenantDb(db, tenantId));
  } finally {
    await db.close();
  }
}

const resolve = (tenantId: string, wanted: Parameters<typeof resolveSecrets>[2]) =>
  withTenant(tenantId, (tenant) => resolveSecrets(tenant, env.MASTER_KEY, wanted));

const secretRows = (tenantId: string) => systemQuery("SELECT scope, principal_id, name FROM secrets WHERE tenant_id = $1 ORDER BY name", [tenantId]);

const contains = (haystack: Uint8Array, needle: Uint8Array) => {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("POST /access/secrets", () => {
  it("creates a tenant secret: 201 with id, scope, principal_id, name and timestamps, never the value", async () => {
    const t = await createTenant();
    const value = "sk_live_TENANT_CREATE_31f9";
    const before = Date.now();
    const res = await put(t, { scope: "tenant", name: "API_KEY", value });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const s = res.json.data;
    expect(Object.keys(s).sort()).toEqual(KEYS);
    expect(s).toMatchObject({ scope: "tenant", principal_id: null, name: "API_KEY" });
    expect(s.id).toMatch(UUID);
    expect(s.created_at).toBe(s.updated_at);
    expect(Math.abs(Date.parse(s.created_at) - before)).toBeLessThan(120_000);
    expect(res.text).not.toContain(value);

    const [row] = await systemQuery("SELECT tenant_id, scope, principal_id, name, ciphertext FROM secrets WHERE id = $1", [s.id]);
    expect(row).toMatchObject({ tenant_id: t.tenantId, scope: "tenant", principal_id: null, name: "API_KEY" });
    const bytes = new Uint8Array(row.ciphertext);
    // format byte, 12-byte IV, the value's bytes, 16-byte tag
    expect(bytes.length).toBe(1 + 12 + value.length + 16);
    expect(bytes[0]).toBe(1);
    expect(contains(bytes, new TextEncoder().encode(value))).toBe(false);
    expect(contains(bytes, new TextEncoder().encode("TENANT_CREATE"))).toBe(false);
  });

  it("creates user, company and team secrets for a principal, each its own row", async () => {
    const t = await createTenant();
    for (const scope of ["user", "company", "team"]) {
      const s = await created(t, { scope, principal_id: "p-1", name: "TOKEN", value: `v-${scope}` });
      expect(s).toMatchObject({ scope, principal_id: "p-1", name: "TOKEN" });
    }
    await created(t, { scope: "user", principal_id: "p-2", name: "TOKEN", value: "other principal" });
    await created(t, { scope: "tenant", name: "TOKEN", value: "tenant-wide" });
    expect(await systemQuery("SELECT scope, principal_id FROM secrets WHERE tenant_id = $1 ORDER BY scope, principal_id", [t.tenantId])).toEqual([
      { scope: "company", principal_id: "p-1" },
      { scope: "team", principal_id: "p-1" },
      { scope: "tenant", principal_id: null },
      { scope: "user", principal_id: "p-1" },
      { scope: "user", principal_id: "p-2" },
    ]);
  });

  it("replaces the value of the same scope, principal and name: 200, same id and created_at, later updated_at, new ciphertext", async () => {
    const t = await createTenant();
    const first = await created(t, { scope: "user", principal_id: "u-9", name: "TOKEN", value: "first value" });
    const [before] = await systemQuery("SELECT ciphertext FROM secrets WHERE id = $1", [first.id]);
    const res = await put(t, { scope: "user", principal_id: "u-9", name: "TOKEN", value: "second value" });
    expect(res.status).toBe(200);
    expect(res.json.data.id).toBe(first.id);
    expect(res.json.data.created_at).toBe(first.created_at);
    expect(Date.parse(res.json.data.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    const [after] = await systemQuery("SELECT count(*)::int AS n, min(ciphertext) AS ciphertext FROM secrets WHERE tenant_id = $1", [t.tenantId]);
    expect(after.n).toBe(1);
    expect(new Uint8Array(after.ciphertext)).not.toEqual(new Uint8Array(before.ciphertext));
    expect((await resolve(t.tenantId, [{ scope: "user", name: "TOKEN", principalId: "u-9" }])).values.get("secrets.user.TOKEN")).toBe("second value");
  });

  it("names differ by case: API_KEY and api_key are two secrets", async () => {
    const t = await createTenant();
    await created(t, { scope: "tenant", name: "API_KEY", value: "upper" });
    await created(t, { scope: "tenant", name: "api_key", value: "lower" });
    const { values } = await resolve(t.tenantId, [
      { scope: "tenant", name: "API_KEY" },
      { scope: "tenant", name: "api_key" },
    ]);
    expect([...values]).toEqual(
      expect.arrayContaining([
        ["secrets.tenant.API_KEY", "upper"],
        ["secrets.tenant.api_key", "lower"],
      ]),
    );
  });

  it("refuses principal_id for scope tenant and requires it for the other scopes", async () => {
    const t = await createTenant();
    let err = expectError(await put(t, { scope: "tenant", principal_id: "u-1", name: "A", value: "x" }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["principal_id: is not allowed"]);
    for (const scope of ["user", "company", "team"]) {
      err = expectError(await put(t, { scope, name: "A", value: "x" }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual(["principal_id: is required"]);
    }
    expect(await secretRows(t.tenantId)).toEqual([]);
  });

  it.each([["1ABC"], ["A-B"], ["A B"], [""], ["é"], ["A.B"], ["x".repeat(201)]])("refuses the name %j with 422 on name", async (name) => {
    const t = await createTenant();
    const err = expectError(await put(t, { scope: "tenant", name, value: "x" }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toHaveLength(1);
    expect(err.details.validation_errors[0]).toMatch(/^name: /);
    expect(await secretRows(t.tenantId)).toEqual([]);
  });

  it("accepts names of letters, digits and underscores not starting with a digit", async () => {
    const t = await createTenant();
    for (const name of ["_", "_1", "a", "Z9_z", "x".repeat(200)]) await created(t, { scope: "tenant", name, value: "v" });
    expect(await secretRows(t.tenantId)).toHaveLength(5);
  });

  it("takes a value of exactly 64 KiB of UTF-8 and refuses one byte more, counting bytes not characters", async () => {
    const t = await createTenant();
    const ok = await created(t, { scope: "tenant", name: "BIG", value: "a".repeat(65536) });
    expect((await resolve(t.tenantId, [{ scope: "tenant", name: "BIG" }])).values.get("secrets.tenant.BIG")).toHaveLength(65536);
    let err = expectError(await put(t, { scope: "tenant", name: "BIG", value: "b".repeat(65537) }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toHaveLength(1);
    expect(err.details.validation_errors[0]).toMatch(/^value: /);
    // 16 385 four-byte characters: within maxLength, over the byte limit.
    err = expectError(await put(t, { scope: "tenant", name: "BIG", value: "😀".repeat(16385) }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["value: must be at most 65536 bytes of UTF-8"]);
    const [row] = await systemQuery("SELECT updated_at FROM secrets WHERE id = $1", [ok.id]);
    expect(row.updated_at).toBe(ok.updated_at);
    expect((await resolve(t.tenantId, [{ scope: "tenant", name: "BIG" }])).values.get("secrets.tenant.BIG")).toBe("a".repeat(65536));
  });

  it("keeps any text exactly, the empty string and a leading byte-order mark included", async () => {
    const t = await createTenant();
    const values = { EMPTY: "", BOM: "\uFEFFbom", MIXED: 'ünïcødé 😀 \n\t"quoted"' };
    for (const [name, value] of Object.entries(values)) await created(t, { scope: "tenant", name, value });
    const { values: got, missing } = await resolve(
      t.tenantId,
      Object.keys(values).map((name) => ({ scope: "tenant" as const, name })),
    );
    expect(missing).toEqual([]);
    expect(Object.fromEntries(got)).toEqual({ "secrets.tenant.EMPTY": "", "secrets.tenant.BOM": "\uFEFFbom", "secrets.tenant.MIXED": values.MIXED });
  });

  it.each([
    [{ scope: "tenant", name: "A" }, "value: is required"],
    [{ scope: "tenant", name: "A", value: 42 }, "value: must be string, got number"],
    [{ scope: "tenant", name: "A", value: null }, "value: must be string, got null"],
    [{ scope: "global", name: "A", value: "x" }, /^scope: /],
    [{ name: "A", value: "x" }, "scope: is required"],
    [{ scope: "tenant", value: "x" }, "name: is required"],
    [{ scope: "user", principal_id: 5, name: "A", value: "x" }, /^principal_id: must be string/],
    [{ scope: "user", principal_id: "", name: "A", value: "x" }, /^principal_id: /],
    [{ scope: "tenant", name: "A", value: "x", extra: 1 }, /^extra: /],
  ])("refuses %j with 422", async (body, line) => {
    const t = await createTenant();
    const err = expectError(await put(t, body), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    expect(await secretRows(t.tenantId)).toEqual([]);
  });

  it("refuses NUL and lone surrogates in the value and the name with 422, naming the field", async () => {
    const t = await createTenant();
    for (const [body, path] of [
      [{ scope: "tenant", name: "A", value: "a\u0000b" }, "value"],
      [{ scope: "tenant", name: "A", value: "a\ud800b" }, "value"],
      [{ scope: "tenant", name: "A\u0000", value: "x" }, "name"],
      [{ scope: "user", principal_id: "\udc00", name: "A", value: "x" }, "principal_id"],
    ] as const) {
      const err = expectError(await put(t, body), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([`${path}: must not contain NUL characters or unpaired surrogates`]);
    }
    expect(await secretRows(t.tenantId)).toEqual([]);
  });

  it("needs access:create: 403 and nothing written", async () => {
    const t = await createTenant();
    const reader = await restricted(t, ["access:read", "access:delete", "entity:*"]);
    expectError(await put(reader, { scope: "tenant", name: "A", value: "x" }), 403, "FORBIDDEN");
    expect(await secretRows(t.tenantId)).toEqual([]);
    const writer = await restricted(t, ["access:create"]);
    expect((await put(writer, { scope: "tenant", name: "A", value: "x" })).status).toBe(201);
  });

  it("refuses an unauthenticated call with 401 and writes nothing", async () => {
    const t = await createTenant();
    expectError(await call("POST", "/access/secrets", { body: { scope: "tenant", name: "A", value: "x" } }), 401, "UNAUTHORIZED");
    expect(await secretRows(t.tenantId)).toEqual([]);
  });
});

describe("GET /access/secrets", () => {
  it("lists the tenant's secrets newest first, filtered by scope and principal_id, paginated, without values", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await created(other, { scope: "tenant", name: "OTHER", value: "other tenant" });
    const a = await created(t, { scope: "tenant", name: "A", value: "value-a" });
    const b = await created(t, { scope: "user", principal_id: "u-1", name: "B", value: "value-b" });
    const c = await created(t, { scope: "user", principal_id: "u-2", name: "C", value: "value-c" });

    const all = await call("GET", "/access/secrets", { auth: t.auth });
    expect(all.status).toBe(200);
    expect(all.json.data.map((s: { name: string }) => s.name)).toEqual(["C", "B", "A"]);
    expect(all.json.data[2]).toEqual(a);
    for (const s of all.json.data) expect(Object.keys(s).sort()).toEqual(KEYS);
    expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 3, total_pages: 1 });
    for (const v of ["value-a", "value-b", "value-c", "other tenant", "ciphertext"]) expect(all.text).not.toContain(v);

    expect((await call("GET", "/access/secrets?scope=user", { auth: t.auth })).json.data).toEqual([c, b]);
    expect((await call("GET", "/access/secrets?scope=user&principal_id=u-1", { auth: t.auth })).json.data).toEqual([b]);
    expect((await call("GET", "/access/secrets?principal_id=nobody", { auth: t.auth })).json).toEqual({
      data: [],
      pagination: { page: 1, limit: 100, total: 0, total_pages: 0 },
    });
    const page2 = await call("GET", "/access/secrets?limit=2&page=2", { auth: t.auth });
    expect(page2.json).toEqual({ data: [a], pagination: { page: 2, limit: 2, total: 3, total_pages: 2 } });
  });

  it("refuses a bad scope, an unknown parameter and NUL with 422", async () => {
    const t = await createTenant();
    expect(expectError(await call("GET", "/access/secrets?scope=everyone", { auth: t.auth }), 422, "VALIDATION_FAILED").details.validation_errors[0]).toMatch(
      /^scope: /,
    );
    expect(expectError(await call("GET", "/access/secrets?value=x", { auth: t.auth }), 422, "VALIDATION_FAILED").details.validation_errors[0]).toMatch(
      /^value: /,
    );
    expectError(await call("GET", "/access/secrets?principal_id=%00", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("needs access:read: 403", async () => {
    const t = await createTenant();
    await created(t, { scope: "tenant", name: "A", value: "x" });
    expectError(await call("GET", "/access/secrets", { auth: (await restricted(t, ["access:create"])).auth }), 403, "FORBIDDEN");
  });
});

describe("DELETE /access/secrets/{id}", () => {
  it("deletes: 200 {id, deleted: true}; then 404, and the resolver reports it missing", async () => {
    const t = await createTenant();
    const s = await created(t, { scope: "tenant", name: "GONE", value: "x" });
    const res = await call("DELETE", `/access/secrets/${s.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: s.id, deleted: true } });
    expect(await secretRows(t.tenantId)).toEqual([]);
    expectError(await call("DELETE", `/access/secrets/${s.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect((await resolve(t.tenantId, [{ scope: "tenant", name: "GONE" }])).missing).toEqual(["secrets.tenant.GONE"]);
  });

  it("answers 404 for an unknown id and for another tenant's secret, which stays", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await created(other, { scope: "tenant", name: "THEIRS", value: "x" });
    expectError(await call("DELETE", `/access/secrets/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/access/secrets/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect(await secretRows(other.tenantId)).toEqual([{ scope: "tenant", principal_id: null, name: "THEIRS" }]);
    expectError(await call("DELETE", "/access/secrets/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("needs access:delete: 403 and the secret stays", async () => {
    const t = await createTenant();
    const s = await created(t, { scope: "tenant", name: "KEEP", value: "x" });
    expectError(await call("DELETE", `/access/secrets/${s.id}`, { auth: (await restricted(t, ["access:create", "access:read"])).auth }), 403, "FORBIDDEN");
    expect(await secretRows(t.tenantId)).toEqual([{ scope: "tenant", principal_id: null, name: "KEEP" }]);
  });
});

describe("resolveSecrets", () => {
  it("answers the values found by reference and the missing references, in one transaction", async () => {
    const t = await createTenant();
    await created(t, { scope: "tenant", name: "API_KEY", value: "tenant-api-key" });
    await created(t, { scope: "user", principal_id: "u-1", name: "TOKEN", value: "u1-token" });
    await created(t, { scope: "user", principal_id: "u-2", name: "TOKEN", value: "u2-token" });
    await created(t, { scope: "company", principal_id: "c-1", name: "CERT", value: "c1-cert" });
    await created(t, { scope: "team", principal_id: "t-1", name: "HOOK", value: "t1-hook" });
    let transactions = 0;
    const result = await withTenant(t.tenantId, (tenant) =>
      resolveSecrets({ ...tenant, tx: (fn) => (transactions++, tenant.tx(fn)) }, env.MASTER_KEY, [
        { scope: "tenant", name: "API_KEY" },
        { scope: "user", name: "TOKEN", principalId: "u-2" },
        { scope: "company", name: "CERT", principalId: "c-1" },
        { scope: "team", name: "HOOK", principalId: "t-1" },
        { scope: "tenant", name: "NOPE" },
        { scope: "user", name: "API_KEY", principalId: "u-2" },
        { scope: "team", name: "NONE", principalId: "t-1" },
      ]),
    );
    expect(transactions).toBe(1);
    expect(Object.fromEntries(result.values)).toEqual({
      "secrets.tenant.API_KEY": "tenant-api-key",
      "secrets.user.TOKEN": "u2-token",
      "secrets.company.CERT": "c1-cert",
      "secrets.team.HOOK": "t1-hook",
    });
    expect(result.missing).toEqual(["secrets.tenant.NOPE", "secrets.user.API_KEY", "secrets.team.NONE"]);
  });

  it("reports a principal-scoped name asked without a principal as missing, without a query", async () => {
    const t = await createTenant();
    await created(t, { scope: "user", principal_id: "u-1", name: "TOKEN", value: "x" });
    let transactions = 0;
    const result = await withTenant(t.tenantId, (tenant) =>
      resolveSecrets({ ...tenant, tx: (fn) => (transactions++, tenant.tx(fn)) }, env.MASTER_KEY, [{ scope: "user", name: "TOKEN" }]),
    );
    expect(result).toEqual({ values: new Map(), missing: ["secrets.user.TOKEN"] });
    expect(transactions).toBe(0);
    expect(await withTenant(t.tenantId, (tenant) => resolveSecrets(tenant, env.MASTER_KEY, []))).toEqual({ values: new Map(), missing: [] });
  });

  it("never reads another tenant's secret of the same name", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await created(other, { scope: "tenant", name: "SHARED_NAME", value: "theirs" });
    expect(await resolve(t.tenantId, [{ scope: "tenant", name: "SHARED_NAME" }])).toEqual({ values: new Map(), missing: ["secrets.tenant.SHARED_NAME"] });
  });

  it("refuses one reference asked for two principals", async () => {
    const t = await createTenant();
    await expect(
      resolve(t.tenantId, [
        { scope: "user", name: "TOKEN", principalId: "a" },
        { scope: "user", name: "TOKEN", principalId: "b" },
      ]),
    ).rejects.toThrow("secrets.user.TOKEN was asked for two principals");
  });

  it("a ciphertext moved to another row, principal or tenant does not open there", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const source = await created(t, { scope: "user", principal_id: "u-1", name: "TOKEN", value: "moved" });
    const sameName = await created(t, { scope: "user", principal_id: "u-2", name: "TOKEN", value: "kept" });
    const otherName = await created(t, { scope: "user", principal_id: "u-1", name: "OTHER", value: "kept" });
    const otherTenant = await created(other, { scope: "user", principal_id: "u-1", name: "TOKEN", value: "kept" });
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [target, tenantId, wanted] of [
      [sameName, t.tenantId, { scope: "user", name: "TOKEN", principalId: "u-2" }],
      [otherName, t.tenantId, { scope: "user", name: "OTHER", principalId: "u-1" }],
      [otherTenant, other.tenantId, { scope: "user", name: "TOKEN", principalId: "u-1" }],
    ] as const) {
      await systemQuery("UPDATE secrets SET ciphertext = (SELECT ciphertext FROM secrets WHERE id = $1) WHERE id = $2", [source.id, target.id]);
      const err = await resolve(tenantId, [wanted]).catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        status: 500,
        code: "INTERNAL_ERROR",
        message: "A stored secret failed its integrity check",
        details: { secret: `secrets.user.${wanted.name}` },
      });
    }
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)).msg)).toEqual(Array(3).fill("stored secret failed its integrity check"));
    expect(JSON.stringify(log.mock.calls)).not.toContain("moved");
    expect((await resolve(t.tenantId, [{ scope: "user", name: "TOKEN", principalId: "u-1" }])).values.get("secrets.user.TOKEN")).toBe("moved");
  });

  it("derives the secrets key with its own label: distinct from the files key, which is unchanged", async () => {
    const tenantId = crypto.randomUUID();
    const master = await crypto.subtle.importKey("raw", new TextEncoder().encode(env.MASTER_KEY), "HKDF", false, ["deriveBits"]);
    const direct = (salt: string) =>
      crypto.subtle.deriveBits(
        { name: "HKDF", hash: "SHA-256", salt: new TextEncoder().encode(salt), info: new TextEncoder().encode(`tenant:${tenantId}`) },
        master,
        256,
      );
    const files = new Uint8Array(await tenantKeyBits(env.MASTER_KEY, "files", tenantId));
    const secrets = new Uint8Array(await tenantKeyBits(env.MASTER_KEY, "secrets", tenantId));
    expect(files).toEqual(new Uint8Array(await direct("entity-platform/files")));
    expect(secrets).toEqual(new Uint8Array(await direct("entity-platform/secrets")));
    expect(secrets).not.toEqual(files);
    expect(new Uint8Array(await tenantKeyBits(env.MASTER_KEY, "secrets", crypto.randomUUID()))).not.toEqual(secrets);
  });
});

describe("a secret's value appears in no answer and no log line", () => {
  it("create, replace, list, delete and failing requests carrying the value: not in any body, header or console line", async () => {
    const t = await createTenant();
    const value = `SECRET-${crypto.randomUUID()}`;
    const replaced = `REPLACED-${crypto.randomUUID()}`;
    const lines: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const answers = [
      await put(t, { scope: "tenant", name: "LEAK_CHECK", value }),
      await put(t, { scope: "tenant", name: "LEAK_CHECK", value: replaced }),
      await put(t, { scope: "user", principal_id: "u-1", name: "LEAK_CHECK", value }),
      await call("GET", "/access/secrets", { auth: t.auth }),
      await call("GET", "/access/secrets?scope=user", { auth: t.auth }),
      // Failing requests whose body carries the value.
      await put(t, { scope: "tenant", name: "bad name", value }),
      await put(t, { scope: "tenant", name: "A", value: value.repeat(3000) }),
      await put(t, { scope: "tenant", principal_id: value, name: "A", value }),
      await put(t, { scope: "nowhere", name: "A", value }),
      await put(t, { scope: "tenant", name: "A", value, extra: value }),
      await call("POST", "/access/secrets", {
        auth: t.auth,
        rawBody: `{"scope":"tenant","name":"A","value":"${value}" x}`,
        headers: { "Content-Type": "application/json" },
      }),
      // V8 quotes the text around an unexpected token: here the value itself.
      await call("POST", "/access/secrets", {
        auth: t.auth,
        rawBody: `{"scope":"tenant","name":"A","value":${value}}`,
        headers: { "Content-Type": "application/json" },
      }),
      await call("POST", "/access/secrets", { auth: t.auth, rawBody: value, headers: { "Content-Type": "application/json" } }),
      await put(t, { scope: "tenant", name: "A", value: [value] }),
      await put(t, { scope: "tenant", name: "A", value: { [value]: 1 } }),
      await put(await restricted(t, ["access:read"]), { scope: "tenant", name: "A", value }),
      await call("POST", "/access/secrets", { auth: t.auth, body: { scope: "tenant", name: "A", value }, headers: { "Idempotency-Key": "k-1" } }),
    ];
    const listed = await call("GET", "/access/secrets", { auth: t.auth });
    for (const s of listed.json.data) answers.push(await call("DELETE", `/access/secrets/${s.id}`, { auth: t.auth }));

    expect(answers.map((a) => a.status)).toEqual([201, 200, 201, 200, 200, 422, 422, 422, 422, 422, 400, 400, 400, 422, 422, 403, 201, 200, 200, 200]);
    for (const a of answers) {
      for (const secret of [value, replaced, value.slice(0, 10), value.slice(-10)]) {
        expect(a.text).not.toContain(secret);
        expect([...a.headers].join("\n")).not.toContain(secret);
      }
    }
    for (const secret of [value, replaced]) expect(lines.join("\n")).not.toContain(secret);
    expect(await secretRows(t.tenantId)).toEqual([]);
  });

  it("the stored rows hold no value bytes", async () => {
    const t = await createTenant();
    const value = `PLAIN-${crypto.randomUUID()}`;
    await created(t, { scope: "tenant", name: "ONE", value });
    await created(t, { scope: "team", principal_id: "t", name: "TWO", value });
    const rows = await systemQuery("SELECT * FROM secrets WHERE tenant_id = $1", [t.tenantId]);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(contains(new Uint8Array(row.ciphertext), new TextEncoder().encode(value))).toBe(false);
      expect(JSON.stringify({ ...row, ciphertext: undefined })).not.toContain(value);
    }
  });
});
