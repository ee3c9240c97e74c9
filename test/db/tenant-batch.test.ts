// Database.tenantBatch: statements known up front as one tenant transaction
// in one HTTP request. All of them commit or none does, they run as
// app_tenant under row-level security, and a caller's guard riding ahead of
// them, when refused, leaves nothing written.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database, pgCode, Precondition } from "../../src/db/client";
import { createTenant, systemQuery } from "../support/api";

async function withDb<T>(http: boolean, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY, undefined, { http });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const insertRole = (tenantId: string, name: string) => ({
  text: "INSERT INTO roles (tenant_id, name, permissions) VALUES ($1, $2, '{}'::text[]) RETURNING name",
  values: [tenantId, name],
});

const roleNames = async (tenantId: string) =>
  (await systemQuery("SELECT name FROM roles WHERE tenant_id = $1 AND name LIKE 'batch-%' ORDER BY name", [tenantId])).map((r) => r.name as string);

describe("tenant batches", () => {
  for (const http of [true, false]) {
    const transport = http ? "over HTTP" : "on the WebSocket";
    it(`${transport}: every statement commits, as app_tenant with the tenant set, answering each result in order`, async () => {
      const { tenantId } = await createTenant();
      const results = await withDb(http, (db) =>
        db.tenantBatch(tenantId, [
          insertRole(tenantId, "batch-a"),
          insertRole(tenantId, "batch-b"),
          { text: "SELECT current_user AS role, current_setting('app.tenant_id') AS tenant, current_setting('statement_timeout') AS timeout" },
        ]),
      );
      expect(results.map((r) => r.rows)).toEqual([[{ name: "batch-a" }], [{ name: "batch-b" }], [{ role: "app_tenant", tenant: tenantId, timeout: "10s" }]]);
      expect(await roleNames(tenantId)).toEqual(["batch-a", "batch-b"]);
    });

    it(`${transport}: a failure in the last statement leaves nothing of the ones before it`, async () => {
      const { tenantId } = await createTenant();
      const err = await withDb(http, (db) =>
        db.tenantBatch(tenantId, [insertRole(tenantId, "batch-a"), insertRole(tenantId, "batch-b"), insertRole(tenantId, "batch-a")]),
      ).catch((e: unknown) => e);
      expect(pgCode(err)).toBe("23505");
      expect(await roleNames(tenantId)).toEqual([]);
    });
  }

  it("row-level security holds: another tenant's rows are invisible and cannot be written", async () => {
    const [a, b] = await Promise.all([createTenant(), createTenant()]);
    await withDb(true, async (db) => {
      const [seen] = await db.tenantBatch(a.tenantId, [{ text: "SELECT DISTINCT tenant_id FROM roles" }]);
      expect(seen.rows).toEqual([{ tenant_id: a.tenantId }]);
      const err = await db.tenantBatch(a.tenantId, [insertRole(a.tenantId, "batch-mine"), insertRole(b.tenantId, "batch-theirs")]).catch((e: unknown) => e);
      expect(pgCode(err)).toBe("42501");
    });
    expect(await roleNames(a.tenantId)).toEqual([]);
    expect(await roleNames(b.tenantId)).toEqual([]);
  });

  it("a refused guard riding ahead writes nothing and stays refused; once it held it rides no more", async () => {
    const { tenantId } = await createTenant();
    await withDb(true, async (db) => {
      const refused = new Precondition("SELECT 1 / 0", "22012");
      db.require(refused);
      const err = await db.tenantBatch(tenantId, [insertRole(tenantId, "batch-a")]).catch((e: unknown) => e);
      expect(pgCode(err)).toBe("22012");
      expect(refused.state).toBe("refused");
      expect(pgCode(await db.tenantBatch(tenantId, [insertRole(tenantId, "batch-b")]).catch((e: unknown) => e))).toBe("22012");
      expect(await roleNames(tenantId)).toEqual([]);

      const holds = new Precondition("SELECT 1", "22012");
      db.require(holds);
      await db.tenantBatch(tenantId, [insertRole(tenantId, "batch-c")]);
      expect(holds.state).toBe("held");
      expect(holds.ahead()).toEqual([]);
    });
    expect(await roleNames(tenantId)).toEqual(["batch-c"]);
  });
});
