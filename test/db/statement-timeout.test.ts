// The limits on tenant statements (statement_timeout, work_mem): set on every
// tenant transaction and on each statement run outside one, never left on the
// session, and a cancelled statement answered as a 503 envelope with the
// backend free again. Runs in its own project, with STATEMENT_TIMEOUT_MS=300.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { compiled } from "../../src/db/params";
import { ApiError } from "../../src/lib/errors";
import { call, createTenant, expectError, systemQuery, withSystemDb } from "../support/api";
import { createEntity, createProductType } from "../support/entities";

const LIMITS = { statementTimeoutMs: 250, workMemKb: 2048 };
const TENANT = crypto.randomUUID();

async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY, LIMITS);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const SETTINGS = "SELECT current_setting('statement_timeout') AS timeout, current_setting('work_mem') AS work_mem";

/** Backends still running a statement that contains `marker`, other than the one asking. */
async function running(marker: string) {
  return systemQuery("SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()", [`%${marker}%`]);
}

describe("statement limits on the Database", () => {
  it("sets them in a tenant transaction and on each statement of a tenant read, and on nothing else", async () => {
    await withDb(async (db) => {
      expect((await db.tenantTx(TENANT, (sql) => sql.query(SETTINGS))).rows).toEqual([{ timeout: "250ms", work_mem: "2MB" }]);
      // Outside a transaction: the prefix's own answer is not mixed into the statement's.
      const read = await db.tenantRead(TENANT, async (reader) => [
        (await reader.run(compiled(`${SETTINGS}, $1::int AS n`, [7]))).rows,
        (await reader.run(compiled("SELECT n FROM generate_series(1, 3) n", []))).rows,
        (await reader.run(compiled("SELECT 1 WHERE false", []))).rows,
      ]);
      expect(read).toEqual([[{ timeout: "250ms", work_mem: "2MB", n: 7 }], [{ n: 1 }, { n: 2 }, { n: 3 }], []]);
      // With a setting, the read is a transaction whose BEGIN carries them.
      const inTx = await db.tenantRead(TENANT, async (reader) => {
        await reader.setLocal("pg_trgm.similarity_threshold", "0.5");
        return (await reader.run(compiled(SETTINGS, []))).rows;
      });
      expect(inTx).toEqual([{ timeout: "250ms", work_mem: "2MB" }]);
      // The session is left as it was: system work on the same connection runs unlimited.
      expect((await db.system((sql) => sql.query(SETTINGS))).rows).toEqual([{ timeout: "0", work_mem: "4MB" }]);
    });
  });

  it("answers a statement over the timeout with 503 STATEMENT_TIMEOUT and frees the backend", async () => {
    await withDb(async (db) => {
      for (const [name, run] of [
        ["tx", () => db.tenantTx(TENANT, (sql) => sql.query("SELECT pg_sleep(5) AS tx_sleeper"))],
        ["read", () => db.tenantRead(TENANT, (reader) => reader.run(compiled("SELECT pg_sleep(5) AS read_sleeper WHERE $1", [true])))],
      ] as const) {
        const started = Date.now();
        const err = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, name).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(503);
        expect((err as ApiError).details).toEqual({ code: "STATEMENT_TIMEOUT", timeout_ms: 250 });
        expect(Date.now() - started).toBeLessThan(2000);
        expect(await running(`${name}_sleeper`)).toEqual([]);
        // The same connection goes on serving.
        expect((await db.tenantRead(TENANT, (reader) => reader.run(compiled("SELECT $1::int AS n", [1])))).rows).toEqual([{ n: 1 }]);
      }
    });
  });

  it("cancels a statement over the timeout on the HTTP path as on the WebSocket one", async () => {
    for (const http of [true, false]) {
      const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY, LIMITS, { http });
      try {
        const reads = {
          shared: () =>
            db.tenantTx(TENANT, (sql) => sql.query("SELECT current_setting('application_name') AS app, pg_sleep(5) AS shared_sleeper"), { readShared: true }),
          owner: () =>
            db.tenantRead(TENANT, (reader) =>
              reader.run(compiled("SELECT current_setting('application_name') AS app, pg_sleep(5) AS owner_sleeper WHERE $1", [true])),
            ),
        };
        for (const [name, read] of Object.entries(reads)) {
          const started = Date.now();
          const err = await read().catch((e: unknown) => e);
          expect((err as ApiError).details, `${name} over ${http ? "HTTP" : "WebSocket"}`).toEqual({ code: "STATEMENT_TIMEOUT", timeout_ms: 250 });
          expect(Date.now() - started).toBeLessThan(2000);
          expect(await running(`${name}_sleeper`)).toEqual([]);
        }
        // Which transport answered: the bridge's HTTP twin names its backends.
        const app = (await db.tenantTx(TENANT, (sql) => sql.query("SELECT current_setting('application_name') AS app"), { readShared: true })).rows[0]!.app;
        expect(app === "ws-bridge-http").toBe(http);
      } finally {
        await db.close();
      }
    }
  });

  it("keeps errors of a limited statement as they were", async () => {
    await withDb(async (db) => {
      const err = await db.tenantRead(TENANT, (reader) => reader.run(compiled("SELECT 1 / $1::int", [0]))).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("22012");
      expect((await db.tenantRead(TENANT, (reader) => reader.run(compiled("SELECT 2 AS n", [])))).rows).toEqual([{ n: 2 }]);
    });
  });
});

describe("statement limits through the gateway", () => {
  it("answers a write stuck behind a lock with the 503 envelope, then serves it once the lock is gone", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const e = await createEntity(auth, "Product", "W", { sku: "W-1", title: "w" });
    const put = () => call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { sku: "W-1", title: "changed" } } });
    await withSystemDb((db) =>
      db.system(async (sql) => {
        await sql.query("BEGIN");
        await sql.query("SELECT id FROM entities WHERE id = $1 FOR UPDATE", [e.id]);
        const started = Date.now();
        const stuck = await put();
        const err = expectError(stuck, 503, "SERVICE_UNAVAILABLE");
        expect(err.details).toMatchObject({ code: "STATEMENT_TIMEOUT", timeout_ms: 300 });
        expect(Date.now() - started).toBeLessThan(3000);
        // The cancelled PUT's backend waits on nothing any more.
        const waiting = await systemQuery("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE OF e%'");
        expect(waiting).toEqual([]);
        await sql.query("ROLLBACK");
      }),
    );
    const done = await put();
    expect(done.status).toBe(200);
    expect(done.json.data.attributes.title).toBe("changed");
  });
});
