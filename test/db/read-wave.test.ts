// Database.readWave: reads of several handles that are ready at the same
// time go in one HTTP request (one read-only transaction), and each answers
// as it would in a request of its own: a tenant handle as app_tenant under
// row-level security for its own tenant only, an owner handle as the
// connecting role with the limits, a lookup without tenant or limits, none
// seeing a setting of a handle before it; a failing statement fails its own
// reader only.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Database, pgCode } from "../../src/db/client";
import { compiled } from "../../src/db/params";
import { call, createTenant, type TenantCreds } from "../support/api";

// A tenant never set reads as null or '' (a placeholder another statement on the backend defined): both are none.
const WHO =
  "SELECT current_user AS role, coalesce(current_setting('app.tenant_id', true), '') AS tenant, current_setting('statement_timeout') AS timeout, current_setting('pg_trgm.similarity_threshold', true) AS trgm";

async function withDb<T>(fn: (db: Database) => Promise<T>, http = true): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY, undefined, { http });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The Worker's HTTP requests to the SQL endpoint from now on. */
function countRequests(): () => number {
  let n = 0;
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    if (new URL(input instanceof Request ? input.url : String(input)).pathname === "/sql") n++;
    return fetch(input, init);
  });
  return () => n;
}

async function withRole(t: TenantCreds, name: string) {
  const res = await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions: ["entity:read"] } });
  expect(res.status, res.text).toBe(201);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a wave of reads", () => {
  it("goes in one request, each handle answering as alone: its own role, tenant, limits and settings", async () => {
    const [a, b] = await Promise.all([createTenant(), createTenant()]);
    await Promise.all([withRole(a, "a-only"), withRole(b, "b-only")]);
    const requests = countRequests();
    const answers = await withDb(async (db) => {
      const wave = db.readWave();
      const ownerA = wave.owner(a.tenantId);
      await ownerA.setLocal("pg_trgm.similarity_threshold", "0.7");
      const tenantA = wave.tenant(a.tenantId);
      const tenantB = wave.tenant(b.tenantId);
      return Promise.all([
        ownerA.run(compiled(WHO, [])),
        tenantB.query(WHO),
        tenantB.query<{ tenant_id: string; name: string }>("SELECT tenant_id, name FROM roles ORDER BY name"),
        wave.lookup().query(WHO),
        tenantA.query<{ tenant_id: string; name: string }>("SELECT tenant_id, name FROM roles ORDER BY name"),
        wave.owner(b.tenantId).run(compiled(WHO, [])),
      ]);
    });
    expect(requests()).toBe(1);
    const [ownerA, whoB, rolesB, lookup, rolesA, ownerB] = answers.map((r) => r.rows as Record<string, unknown>[]);
    expect(ownerA[0]).toMatchObject({ tenant: "", timeout: "10s", trgm: "0.7" });
    expect(ownerA[0].role).not.toBe("app_tenant");
    expect(whoB[0]).toMatchObject({ role: "app_tenant", tenant: b.tenantId, timeout: "10s" });
    expect(whoB[0].trgm).not.toBe("0.7");
    expect(rolesB).toEqual([
      { tenant_id: b.tenantId, name: "admin" },
      { tenant_id: b.tenantId, name: "b-only" },
    ]);
    // After a tenant's statements: the connecting role again, with no tenant and no limits.
    expect(lookup[0]).toMatchObject({ tenant: "", timeout: "0" });
    expect(lookup[0].role).not.toBe("app_tenant");
    expect(rolesA).toEqual([
      { tenant_id: a.tenantId, name: "a-only" },
      { tenant_id: a.tenantId, name: "admin" },
    ]);
    expect(ownerB[0]).toMatchObject({ tenant: "", timeout: "10s" });
    expect(ownerB[0].trgm).not.toBe("0.7");
  });

  it("a failing statement fails its own reader only; the others answer, and a handle cannot write", async () => {
    const a = await createTenant();
    const requests = countRequests();
    const [failed, who, roles] = await withDb(async (db) => {
      const wave = db.readWave();
      return Promise.allSettled([
        wave.tenant(a.tenantId).query("SELECT 1 / 0 AS n"),
        wave.lookup().query(WHO),
        wave.tenant(a.tenantId).query<{ name: string }>("SELECT name FROM roles"),
      ]);
    });
    expect(failed.status === "rejected" && pgCode(failed.reason)).toBe("22012");
    expect(who.status === "fulfilled" && who.value.rows[0].tenant).toBe("");
    expect(roles.status === "fulfilled" && roles.value.rows.map((r) => r.name)).toEqual(["admin"]);
    // The wave, then each of its statements alone.
    expect(requests()).toBe(4);

    const write = await withDb((db) =>
      db
        .readWave()
        .tenant(a.tenantId)
        .query("INSERT INTO roles (tenant_id, name, permissions) VALUES ($1, 'x', '{}'::text[])", [a.tenantId])
        .catch((e: unknown) => e),
    );
    expect(pgCode(write)).toBe("25006");
  });

  it("statements that wait for an answer go in the next wave", async () => {
    const a = await createTenant();
    const requests = countRequests();
    const n = await withDb(async (db) => {
      const sql = db.readWave().tenant(a.tenantId);
      const first = (await sql.query<{ n: number }>("SELECT 1 AS n")).rows[0].n;
      return first + (await sql.query<{ n: number }>("SELECT 2 AS n")).rows[0].n;
    });
    expect(n).toBe(3);
    expect(requests()).toBe(2);
  });

  it("without HTTP, each statement is a read-only transaction of its own on the connection, answering the same", async () => {
    const a = await createTenant();
    const read = (http: boolean) =>
      withDb(async (db) => {
        const wave = db.readWave();
        return Promise.all([
          wave.tenant(a.tenantId).query(WHO),
          wave.owner(a.tenantId).run(compiled(WHO, [])),
          wave.lookup().query(WHO),
          wave
            .tenant(a.tenantId)
            .query("INSERT INTO roles (tenant_id, name, permissions) VALUES ($1, 'x', '{}'::text[])", [a.tenantId])
            .catch((e: unknown) => pgCode(e)),
        ]);
      }, http);
    const [overHttp, overWs] = await Promise.all([read(true), read(false)]);
    // pg_trgm's threshold reads as its default once the extension is loaded in a session, and null before: not compared.
    const rows = (answers: typeof overHttp) =>
      answers.map((r) => (typeof r === "object" && r && "rows" in r ? { ...r.rows[0], trgm: undefined } : r)) as Record<string, unknown>[];
    expect(rows(overWs)).toEqual(rows(overHttp));
    expect(rows(overWs)[0]).toMatchObject({ role: "app_tenant", tenant: a.tenantId, timeout: "10s" });
    expect(rows(overWs)[3]).toBe("25006");
  });
});
