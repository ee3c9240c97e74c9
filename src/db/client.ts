// One database connection per request (Workers cannot share sockets across
// requests), opened lazily and closed when the response is done.
import { Client, neonConfig, types, type QueryResult } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { ApiError } from "../lib/errors";
import { pgTimestamptzToIso, TIMESTAMPTZ_OID } from "./timestamps";

export type Db = NeonDatabase & { $client: Client };

export interface Sql {
  /** Drizzle's query builder over this transaction's connection. */
  db: Db;
  /** Hand-written SQL with bound parameters. */
  query<R extends Record<string, unknown> = Record<string, any>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** The tenant the statements act for; unset for system work. Lookups name it even under row-level security. */
  readonly tenantId?: string;
  /**
   * Whether row-level security confines the statements. A tenant read runs
   * as the connecting role: every statement must carry its tenant predicate.
   */
  readonly rowSecurity: boolean;
  /** A setting for the statements that follow, up to the end of the work (SET LOCAL). */
  setLocal(name: string, value: string): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let configuredProxy: string | undefined;

// The driver otherwise holds each write for a timer tick to coalesce it with
// the next; a statement's messages are written together anyway, and the tick
// costs a millisecond per round trip.
neonConfig.coalesceWrites = false;

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

  /**
   * Starts connecting without waiting, so the handshake overlaps the work
   * before the first statement (rate limiting, body parsing). A failure here
   * is reported by the first real use, which connects again.
   */
  warm(): void {
    this.connection().catch(() => {});
  }

  private async sql(tenantId?: string, rowSecurity = false, setLocal?: (client: Client, name: string, value: string) => Promise<void>): Promise<Sql> {
    const client = await this.connection();
    let db: Db | undefined;
    return {
      // Built on first use: most requests never touch the query builder.
      get db() {
        return (db ??= drizzle({ client }) as Db);
      },
      query: (text, params) => client.query(text, params as unknown[]),
      tenantId,
      rowSecurity,
      setLocal: setLocal ? (name, value) => setLocal(client, name, value) : async (name, value) => void (await client.query("SELECT set_config($1, $2, true)", [name, value])),
    };
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
      const sql = await this.sql(tenantId, true);
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

  /**
   * Reads for one tenant with no transaction around them, as the connecting
   * role: no BEGIN, role switch or COMMIT round trips, and filters can use
   * the indexes (see withoutRowSecurity). Each statement names its tenant and
   * sees its own snapshot, as statements in a READ COMMITTED transaction do.
   * A setting (setLocal) opens a read-only transaction that ends with the work.
   */
  tenantRead<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!UUID.test(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
    return this.serialize(async () => {
      let inTransaction = false;
      const sql = await this.sql(tenantId, false, async (client, name, value) => {
        const set = `SELECT set_config(${client.escapeLiteral(name)}, ${client.escapeLiteral(value)}, true)`;
        await client.query(inTransaction ? set : `BEGIN READ ONLY; ${set}`);
        inTransaction = true;
      });
      try {
        const result = await fn(sql);
        if (inTransaction) await sql.query("COMMIT");
        return result;
      } catch (e) {
        if (inTransaction) await sql.query("ROLLBACK").catch(() => {});
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
  /** Database.tenantRead: for the query engine's reads, whose statements all name the tenant. */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
}

export function tenantDb(database: Database, tenantId: string): TenantDb {
  return { tenantId, tx: (fn) => database.tenantTx(tenantId, fn), read: (fn) => database.tenantRead(tenantId, fn) };
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
  if (!sql.rowSecurity) return fn();
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
