// The HTTP path of db/client.ts: shared reads, owner-path reads and lookups
// go over the driver's HTTP mode (the bridge's twin of Neon's /sql endpoint
// locally), each statement in a transaction of its own that sets the role,
// the tenant and the limits first. Row-level security confines them as it
// confines the WebSocket transaction, and they answer what it answers.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database, pgCode } from "../../src/db/client";
import { compiled } from "../../src/db/params";
import { call, createTenant, type TenantCreds } from "../support/api";

/** The twin names its backends so (scripts/lib/ws-bridge.mjs): which transport a statement took. */
const OVER_HTTP = "ws-bridge-http";
const WHO =
  "SELECT current_setting('application_name') AS app, current_user AS role, current_setting('app.tenant_id', true) AS tenant, current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout";

async function withDb<T>(http: boolean, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY, undefined, { http });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function withRole(t: TenantCreds, name: string) {
  const res = await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions: ["entity:read"] } });
  expect(res.status).toBe(201);
}

describe("tenant reads over HTTP", () => {
  it("a shared read runs over HTTP as app_tenant, read-only, limited, and sees only its tenant's rows", async () => {
    const [a, b] = await Promise.all([createTenant(), createTenant()]);
    await Promise.all([withRole(a, "a-only"), withRole(b, "b-only")]);
    const read = (db: Database, t: TenantCreds) =>
      db.tenantTx(
        t.tenantId,
        async (sql) => ({
          who: (await sql.query(WHO)).rows[0],
          roles: (await sql.query<{ tenant_id: string; name: string }>("SELECT tenant_id, name FROM roles ORDER BY name")).rows,
          tenants: (await sql.query<{ id: string }>("SELECT id FROM tenants")).rows.map((r) => r.id),
        }),
        { readShared: true },
      );
    const [overHttp, overWs] = await Promise.all([withDb(true, (db) => read(db, a)), withDb(false, (db) => read(db, a))]);
    expect(overHttp.who).toEqual({ app: OVER_HTTP, role: "app_tenant", tenant: a.tenantId, ro: "on", timeout: "10s" });
    expect(overWs.who.app).not.toBe(OVER_HTTP);
    expect(overHttp.roles.map((r) => r.name)).toEqual(["a-only", "admin"]);
    expect(new Set(overHttp.roles.map((r) => r.tenant_id))).toEqual(new Set([a.tenantId]));
    expect(overHttp.tenants).toEqual([a.tenantId]);
    // The same answer as the WebSocket transaction, and B's read is B's.
    expect({ roles: overHttp.roles, tenants: overHttp.tenants }).toEqual({ roles: overWs.roles, tenants: overWs.tenants });
    const ofB = await withDb(true, (db) => read(db, b));
    expect(ofB.roles.map((r) => r.name)).toEqual(["admin", "b-only"]);
    expect(ofB.tenants).toEqual([b.tenantId]);
  });

  it("a shared read cannot write, and a setting made in it reaches the statements after it", async () => {
    const { tenantId } = await createTenant();
    await withDb(true, async (db) => {
      const err = await db
        .tenantTx(tenantId, (sql) => sql.query("INSERT INTO roles (tenant_id, name, permissions) VALUES ($1, 'x', '{}'::text[])", [tenantId]), {
          readShared: true,
        })
        .catch((e: unknown) => e);
      expect(pgCode(err)).toBe("25006");
      const settings = await db.tenantTx(
        tenantId,
        async (sql) => {
          const before = (await sql.query("SELECT current_setting('pg_trgm.similarity_threshold', true) AS t")).rows[0]!.t;
          await sql.setLocal("pg_trgm.similarity_threshold", "0.7");
          const after = (await sql.query("SELECT current_setting('pg_trgm.similarity_threshold', true) AS t")).rows[0]!.t;
          return { before, after };
        },
        { readShared: true },
      );
      expect(settings.after).toBe("0.7");
      expect(settings.before).not.toBe("0.7");
    });
  });

  it("the owner path runs each compiled statement over HTTP as the owner, limited, read-only", async () => {
    const { tenantId } = await createTenant();
    const who = await withDb(true, (db) => db.tenantRead(tenantId, async (reader) => (await reader.run(compiled(`${WHO}, $1::int AS n`, [1]))).rows[0]));
    expect(who).toMatchObject({ app: OVER_HTTP, ro: "on", timeout: "10s", n: 1 });
    expect(who!.role).not.toBe("app_tenant");
    // One snapshot for all its statements stays on the WebSocket connection.
    const snapshot = await withDb(true, (db) => db.tenantRead(tenantId, async (reader) => (await reader.run(compiled(WHO, []))).rows[0], { snapshot: true }));
    expect(snapshot!.app).not.toBe(OVER_HTTP);
  });

  it("a lookup runs each statement on its own, outside any transaction, as the connecting role", async () => {
    const rows = await withDb(true, (db) =>
      db.lookup(async (sql) => [(await sql.query(`${WHO}, txid_current() AS tx`)).rows[0]!, (await sql.query("SELECT txid_current() AS tx")).rows[0]!]),
    );
    expect(rows[0]).toMatchObject({ app: OVER_HTTP, ro: "off", timeout: "0", tenant: "" });
    expect(rows[0]!.role).not.toBe("app_tenant");
    expect(rows[1]!.tx).not.toBe(rows[0]!.tx);
  });

  it("an unauthenticated GET /healthz and an authenticated read by id answer as before", async () => {
    const t = await createTenant();
    expect((await call("GET", "/healthz")).json).toEqual({ data: { status: "ok", database: "reachable" } });
    const res = await call("GET", "/access/roles", { auth: t.auth });
    expect(res.status).toBe(200);
  });
});
