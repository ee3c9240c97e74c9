// The row-level-security proof: inside db.tenantTx(A) a query with NO tenant
// filter sees only tenant A's rows, and cannot write rows for tenant B; the
// owning connection (db.system) sees both, so the data is really there.
import { sql as drizzleSql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, withSystemDb, type TenantCreds } from "../support/api";
import { pgCode } from "../../src/db/client";

interface Pair {
  a: TenantCreds;
  b: TenantCreds;
  aRoles: string[];
  bRoles: string[];
  aTokens: string[];
  bTokens: string[];
}

async function createRole(t: TenantCreds, name: string) {
  const res = await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions: ["entity:read"] } });
  expect(res.status).toBe(201);
  return res.json.data.id as string;
}

async function mint(t: TenantCreds) {
  const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "extra" } });
  expect(res.status).toBe(201);
  return res.json.data.id as string;
}

/** Two tenants, each with roles and tokens beyond what tenant creation makes. */
async function twoTenants(): Promise<Pair> {
  const [a, b] = await Promise.all([createTenant(), createTenant()]);
  const aRoles = [await createRole(a, "a-1"), await createRole(a, "a-2")];
  const bRoles = [await createRole(b, "b-1"), await createRole(b, "b-2"), await createRole(b, "b-3")];
  const aTokens = [a.tokenId, await mint(a)];
  const bTokens = [b.tokenId, await mint(b), await mint(b)];
  return { a, b, aRoles, bRoles, aTokens, bTokens };
}

/** Unwraps drizzle's wrapper error to the driver's SQLSTATE. */
function sqlState(e: unknown): string | undefined {
  return pgCode(e) ?? pgCode((e as { cause?: unknown })?.cause);
}

describe("row-level security: reads inside a tenant transaction", () => {
  it("SELECT from roles with no tenant filter returns only tenant A's rows", async () => {
    const p = await twoTenants();
    const rows = await withSystemDb((db) => db.tenantTx(p.a.tenantId, async (sql) => (await sql.query("SELECT id, tenant_id, name FROM roles")).rows));
    expect(new Set(rows.map((r) => r.tenant_id))).toEqual(new Set([p.a.tenantId]));
    // The bootstrap admin role plus the two created for A.
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.name).sort()).toEqual(["a-1", "a-2", "admin"]);
    for (const id of p.bRoles) expect(rows.map((r) => r.id)).not.toContain(id);
  });

  it("the same holds for api_tokens, users, role_bindings and tenants", async () => {
    const p = await twoTenants();
    const seen = await withSystemDb((db) =>
      db.tenantTx(p.a.tenantId, async (sql) => ({
        tokens: (await sql.query("SELECT id, tenant_id FROM api_tokens")).rows,
        users: (await sql.query("SELECT id, tenant_id FROM users")).rows,
        bindings: (await sql.query("SELECT tenant_id FROM role_bindings")).rows,
        tenants: (await sql.query("SELECT id FROM tenants")).rows,
      })),
    );
    expect(seen.tokens.map((r) => r.id).sort()).toEqual([...p.aTokens].sort());
    expect(new Set(seen.tokens.map((r) => r.tenant_id))).toEqual(new Set([p.a.tenantId]));
    expect(seen.users).toEqual([{ id: p.a.userId, tenant_id: p.a.tenantId }]);
    expect(seen.bindings.length).toBeGreaterThan(0);
    expect(new Set(seen.bindings.map((r) => r.tenant_id))).toEqual(new Set([p.a.tenantId]));
    expect(seen.tenants).toEqual([{ id: p.a.tenantId }]);
  });

  it("naming tenant B explicitly in the WHERE clause still returns nothing", async () => {
    const p = await twoTenants();
    const rows = await withSystemDb((db) =>
      db.tenantTx(p.a.tenantId, async (sql) => ({
        roles: (await sql.query("SELECT id FROM roles WHERE tenant_id = $1", [p.b.tenantId])).rows,
        token: (await sql.query("SELECT id FROM api_tokens WHERE id = $1", [p.b.tokenId])).rows,
        tenant: (await sql.query("SELECT id FROM tenants WHERE id = $1", [p.b.tenantId])).rows,
      })),
    );
    expect(rows).toEqual({ roles: [], token: [], tenant: [] });
  });

  it("the transaction really runs as app_tenant with the tenant setting", async () => {
    const p = await twoTenants();
    const [row] = await withSystemDb((db) =>
      db.tenantTx(p.a.tenantId, async (sql) => (await sql.query("SELECT current_user AS role, current_setting('app.tenant_id') AS tenant")).rows),
    );
    expect(row).toEqual({ role: "app_tenant", tenant: p.a.tenantId });
  });

  it("as app_tenant with no tenant set, no tenant's rows are visible", async () => {
    const p = await twoTenants();
    const counts = await withSystemDb((db) =>
      db.system(async (sql) => {
        await sql.query("BEGIN; SET LOCAL ROLE app_tenant");
        try {
          return {
            roles: (await sql.query("SELECT count(*)::int AS n FROM roles")).rows[0].n,
            tokens: (await sql.query("SELECT count(*)::int AS n FROM api_tokens")).rows[0].n,
            tenants: (await sql.query("SELECT count(*)::int AS n FROM tenants")).rows[0].n,
          };
        } finally {
          await sql.query("ROLLBACK");
        }
      }),
    );
    expect(counts).toEqual({ roles: 0, tokens: 0, tenants: 0 });
    // Back as the owner, the two tenants' roles are there: 1 admin + 2 for A, 1 admin + 3 for B.
    const owned = await withSystemDb((db) =>
      db.system(
        async (sql) => (await sql.query("SELECT count(*)::int AS n FROM roles WHERE tenant_id = ANY($1::uuid[])", [[p.a.tenantId, p.b.tenantId]])).rows[0].n,
      ),
    );
    expect(owned).toBe(7);
  });
});

describe("row-level security: writes inside a tenant transaction", () => {
  it("an INSERT into roles carrying tenant B's id is refused by the policy (42501)", async () => {
    const p = await twoTenants();
    let error: unknown;
    await withSystemDb((db) =>
      db
        .tenantTx(p.a.tenantId, (sql) => sql.query("INSERT INTO roles (tenant_id, name, permissions) VALUES ($1, 'planted', ARRAY['*:*'])", [p.b.tenantId]))
        .catch((e) => {
          error = e;
        }),
    );
    expect(error).toBeDefined();
    expect(sqlState(error)).toBe("42501");
    expect(String((error as Error).message)).toMatch(/row-level security/);

    const planted = await withSystemDb((db) =>
      db.system(async (sql) => (await sql.query("SELECT 1 FROM roles WHERE name = 'planted' AND tenant_id = $1", [p.b.tenantId])).rows),
    );
    expect(planted).toEqual([]);
  });

  it("an INSERT into api_tokens for tenant B is refused the same way", async () => {
    const p = await twoTenants();
    let error: unknown;
    await withSystemDb((db) =>
      db
        .tenantTx(p.a.tenantId, (sql) =>
          sql.query("INSERT INTO api_tokens (tenant_id, user_id, name, client_id, secret_hash) VALUES ($1, $2, 'planted', $3, '\\x00'::bytea)", [
            p.b.tenantId,
            p.b.userId,
            `pat_planted_${crypto.randomUUID()}`,
          ]),
        )
        .catch((e) => {
          error = e;
        }),
    );
    expect(sqlState(error)).toBe("42501");
  });

  it("an UPDATE moving A's row to tenant B is refused (42501)", async () => {
    const p = await twoTenants();
    let error: unknown;
    await withSystemDb((db) =>
      db
        .tenantTx(p.a.tenantId, (sql) => sql.query("UPDATE roles SET tenant_id = $1 WHERE id = $2", [p.b.tenantId, p.aRoles[0]]))
        .catch((e) => {
          error = e;
        }),
    );
    expect(sqlState(error)).toBe("42501");
    const [row] = await withSystemDb((db) => db.system(async (sql) => (await sql.query("SELECT tenant_id FROM roles WHERE id = $1", [p.aRoles[0]])).rows));
    expect(row.tenant_id).toBe(p.a.tenantId);
  });

  it("UPDATE and DELETE without a tenant filter touch only tenant A's rows", async () => {
    const p = await twoTenants();
    const counts = await withSystemDb((db) =>
      db.tenantTx(p.a.tenantId, async (sql) => {
        const updated = (await sql.query("UPDATE roles SET permissions = ARRAY['entity:create'] WHERE name <> 'admin'")).rowCount;
        // Revoke every token "in the table": only A's are reachable.
        const revoked = (await sql.query("UPDATE api_tokens SET revoked_at = now() WHERE id <> $1", [p.a.tokenId])).rowCount;
        const deleted = (await sql.query("DELETE FROM roles WHERE id = ANY($1::uuid[])", [p.bRoles])).rowCount;
        return { updated, revoked, deleted };
      }),
    );
    expect(counts).toEqual({ updated: 2, revoked: 1, deleted: 0 });

    const bView = await withSystemDb((db) =>
      db.system(async (sql) => ({
        roles: (await sql.query("SELECT permissions FROM roles WHERE tenant_id = $1 AND name <> 'admin'", [p.b.tenantId])).rows,
        revoked: (await sql.query("SELECT count(*)::int AS n FROM api_tokens WHERE tenant_id = $1 AND revoked_at IS NOT NULL", [p.b.tenantId])).rows[0].n,
      })),
    );
    expect(bView.roles).toEqual([{ permissions: ["entity:read"] }, { permissions: ["entity:read"] }, { permissions: ["entity:read"] }]);
    expect(bView.revoked).toBe(0);
    // And tenant B's tokens still authenticate through the API.
    expect((await call("GET", "/access/me/permissions", { auth: p.b.auth })).status).toBe(200);
  });

  it("app_tenant may not change the schema", async () => {
    const p = await twoTenants();
    let error: unknown;
    await withSystemDb((db) =>
      db
        .tenantTx(p.a.tenantId, (sql) => sql.query("ALTER TABLE roles DISABLE ROW LEVEL SECURITY"))
        .catch((e) => {
          error = e;
        }),
    );
    expect(sqlState(error)).toBe("42501");
  });
});

describe("the owning connection sees every tenant", () => {
  it("db.system sees both tenants' roles, tokens, users and tenants", async () => {
    const p = await twoTenants();
    const ids = [p.a.tenantId, p.b.tenantId];
    const seen = await withSystemDb((db) =>
      db.system(async (sql) => ({
        roles: (await sql.query("SELECT tenant_id, count(*)::int AS n FROM roles WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id", [ids])).rows,
        tokens: (await sql.query("SELECT tenant_id, count(*)::int AS n FROM api_tokens WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id", [ids])).rows,
        users: (await sql.query("SELECT tenant_id, count(*)::int AS n FROM users WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id", [ids])).rows,
        tenants: (await sql.query("SELECT id FROM tenants WHERE id = ANY($1::uuid[])", [ids])).rows,
      })),
    );
    const byTenant = (rows: any[]) => Object.fromEntries(rows.map((r) => [r.tenant_id, r.n]));
    expect(byTenant(seen.roles)).toEqual({ [p.a.tenantId]: 3, [p.b.tenantId]: 4 });
    expect(byTenant(seen.tokens)).toEqual({ [p.a.tenantId]: 2, [p.b.tenantId]: 3 });
    expect(byTenant(seen.users)).toEqual({ [p.a.tenantId]: 1, [p.b.tenantId]: 1 });
    expect(seen.tenants.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it("tenant B's transaction sees B's rows, mirror of A's", async () => {
    const p = await twoTenants();
    const rows = await withSystemDb((db) => db.tenantTx(p.b.tenantId, async (sql) => (await sql.query("SELECT id FROM api_tokens")).rows));
    expect(rows.map((r) => r.id).sort()).toEqual([...p.bTokens].sort());
  });
});

describe("through the API", () => {
  it("one tenant's token cannot revoke, list or use another tenant's rows", async () => {
    const p = await twoTenants();
    expectError(await call("DELETE", `/access/api-tokens/${p.bTokens[1]}`, { auth: p.a.auth }), 404, "NOT_FOUND");
    const list = await call("GET", "/access/api-tokens", { auth: p.a.auth });
    expect(list.json.data.map((r: any) => r.id).sort()).toEqual([...p.aTokens].sort());
    // Minting in A with B's role name finds nothing.
    const res = await call("POST", "/access/api-tokens", { auth: p.a.auth, body: { name: "x", role_names: ["b-1"] } });
    expect(expectError(res, 422, "UNPROCESSABLE_ENTITY").details.unknown_roles).toEqual(["b-1"]);
  });
});

describe("a tenant transaction's opening rides with its first statement", () => {
  const WHO = "SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant, current_setting('transaction_read_only') AS read_only";

  it("whichever way the first statement is sent: hand-written, compiled by drizzle, or a setting", async () => {
    const t = await createTenant();
    const rows = await withSystemDb(async (db) => ({
      query: (await db.tenantTx(t.tenantId, (sql) => sql.query(WHO))).rows,
      drizzle: await db.tenantTx(t.tenantId, async (sql) => (await sql.db.execute(drizzleSql.raw(WHO))).rows),
      setting: await db.tenantTx(t.tenantId, async (sql) => {
        await sql.setLocal("app.example", "on");
        return (await sql.query(`${WHO}, current_setting('app.example') AS example`)).rows;
      }),
      shared: (await db.tenantTx(t.tenantId, (sql) => sql.query(`${WHO}, current_setting('app.read_shared') AS shared`), { readShared: true })).rows,
    }));
    const as = { role: "app_tenant", tenant: t.tenantId, read_only: "off" };
    expect(rows).toEqual({ query: [as], drizzle: [as], setting: [{ ...as, example: "on" }], shared: [{ ...as, read_only: "on", shared: "on" }] });
  });

  it("a failing statement, first or later, rolls back the whole transaction and leaves the session as it was", async () => {
    const t = await createTenant();
    const name = `rolled-back-${crypto.randomUUID()}`;
    const insert = "INSERT INTO roles (tenant_id, name, permissions) VALUES (current_setting('app.tenant_id')::uuid, $1, '{}'::text[])";
    const outcome = await withSystemDb(async (db) => {
      const first = await db.tenantTx(t.tenantId, (sql) => sql.query("SELECT 1 / 0")).catch((e) => pgCode(e));
      const later = await db
        .tenantTx(t.tenantId, async (sql) => {
          await sql.query(insert, [name]);
          await sql.query("SELECT 1 / 0");
        })
        .catch((e) => pgCode(e));
      // Work that sends nothing opens nothing: the session is not left inside a transaction.
      const none = await db.tenantTx(t.tenantId, async () => "nothing sent");
      const after = (await db.system((sql) => sql.query(`${WHO}, now() = statement_timestamp() AS own_statement`))).rows;
      const kept = (await db.system((sql) => sql.query("SELECT count(*)::int AS n FROM roles WHERE name = $1", [name]))).rows[0].n;
      return { first, later, none, after, kept };
    });
    expect(outcome.first).toBe("22012");
    expect(outcome.later).toBe("22012");
    expect(outcome.none).toBe("nothing sent");
    expect(outcome.after).toEqual([{ role: expect.not.stringMatching(/^app_tenant$/), tenant: "", read_only: "off", own_statement: true }]);
    expect(outcome.kept).toBe(0);
  });
});
