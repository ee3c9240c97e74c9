// One database connection per request (Workers cannot share sockets across
// requests), opened lazily and closed when the response is done.
import { Client, neonConfig, types, type QueryResult } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { ApiError } from "../lib/errors";
import * as schema from "./schema";
import { pgTimestamptzToIso, TIMESTAMPTZ_OID } from "./timestamps";

export type Db = NeonDatabase<typeof schema> & { $client: Client };

export interface Sql {
  /** Drizzle's query builder over this transaction's connection. */
  db: Db;
  /** Hand-written SQL with bound parameters. */
  query<R extends Record<string, unknown> = Record<string, any>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let configuredProxy: string | undefined;

function configureDriver(proxy: string | undefined) {
  if (!proxy || configuredProxy === proxy) return;
  // Local Postgres behind scripts/lib/ws-bridge.mjs: plain ws://, no TLS to pipeline.
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  configuredProxy = proxy;
}

export class Database {
  private client?: Promise<Client>;
  private drizzleDb?: Db;
  /** Statements on one connection run one transaction at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    proxy?: string,
  ) {
    configureDriver(proxy || undefined);
  }

  private async connection(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({
        connectionString: this.url,
        types: { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMPTZ_OID ? pgTimestamptzToIso : types.getTypeParser(oid, format as never)) },
      });
      // An idle error on a per-request socket must not crash the isolate.
      client.on("error", () => {});
      try {
        await client.connect();
      } catch (e) {
        this.client = undefined;
        throw new ApiError("SERVICE_UNAVAILABLE", "The database is unreachable", { reason: (e as Error).message });
      }
      return client;
    })();
    return this.client;
  }

  private async sql(): Promise<Sql> {
    const client = await this.connection();
    this.drizzleDb ??= drizzle({ client, schema }) as Db;
    return { db: this.drizzleDb, query: (text, params) => client.query(text, params as unknown[]) };
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * As the connecting role, outside any tenant: only for credential lookups,
   * health checks and cross-tenant maintenance (cron). Row-level security does not apply.
   */
  system<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.serialize(async () => fn(await this.sql()));
  }

  /**
   * One transaction as `app_tenant` with `app.tenant_id` set, so row-level
   * security confines every statement to the tenant. BEGIN, the role and the
   * setting go in one round trip; the id is a validated UUID, so inlining it is safe.
   */
  tenantTx<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!UUID.test(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
    return this.serialize(async () => {
      const sql = await this.sql();
      await sql.query(`BEGIN; SET LOCAL ROLE app_tenant; SELECT set_config('app.tenant_id', '${tenantId}', true)`);
      try {
        const result = await fn(sql);
        await sql.query("COMMIT");
        return result;
      } catch (e) {
        await sql.query("ROLLBACK").catch(() => {});
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.end().catch(() => {});
  }
}

/** A tenant-bound handle: the only database access services get. */
export interface TenantDb {
  readonly tenantId: string;
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

export function tenantDb(database: Database, tenantId: string): TenantDb {
  return { tenantId, tx: (fn) => database.tenantTx(tenantId, fn) };
}

/**
 * Runs `fn` inside a tenant transaction with row-level security lifted, for
 * the query engine's compiled statements only. Under RLS, Postgres refuses to
 * use a filter as an index condition unless every function in it is
 * LEAKPROOF, which JSON path extraction, LIKE and pg_trgm's operators are not
 * (and only a superuser could declare otherwise): every attribute filter
 * would scan the whole tenant. The compiler puts the tenant predicate on
 * every table it reads instead (see query/filter.ts), and callers check the
 * tenant of the rows that come back.
 */
export async function withoutRowSecurity<T>(sql: Sql, fn: () => Promise<T>, { restore = true } = {}): Promise<T> {
  await sql.query("RESET ROLE");
  // On failure the transaction is rolled back, which restores the role with it.
  const result = await fn();
  // A caller whose transaction ends right after saves the round trip.
  if (restore) await sql.query("SET LOCAL ROLE app_tenant");
  return result;
}

/**
 * Postgres SQLSTATE of a driver error, if it is one. drizzle wraps the
 * driver's error (DrizzleQueryError), so the code may sit on its cause.
 */
export function pgCode(e: unknown): string | undefined {
  for (let cur = e, depth = 0; cur && depth < 3; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
