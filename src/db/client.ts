// Two transports, each where it fits. Interactive work (read, decide, write)
// runs on one WebSocket connection per request (Workers cannot share sockets
// across requests), opened lazily and closed when the response is done: its
// upgrade and startup handshake cost two round trips before the first
// statement. Work whose statements are known up front (a lookup, a read-only
// tenant read) goes over the driver's HTTP mode instead: one request per
// statement or per non-interactive transaction, on the runtime's warm
// connection, so one round trip and no handshake.
import { EntityAccess } from "./entity-access";
import { Client, neon, neonConfig, types, type Connection, type NeonQueryFunction, type Query, type QueryResult } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { CompiledStatement } from "./params";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { pgTimestamptzToIso, TIMESTAMPTZ_OID } from "../lib/timestamps";

export type Db = NeonDatabase & { $client: Client };

export interface Sql {
  /** Drizzle's query builder over this transaction's connection. */
  db: Db;
  /** Hand-written SQL with bound parameters. */
  query<R extends Record<string, unknown> = Record<string, any>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** A statement the query compiler built (relationship includes share it with the owner path). */
  run: TenantReader["run"];
  /** The tenant the statements act for; unset for system work. Lookups name it even under row-level security. */
  readonly tenantId?: string;
  /** A setting for the statements that follow, up to the end of the work (SET LOCAL). */
  setLocal(name: string, value: string): Promise<void>;
}

/**
 * The owner path: one tenant's reads as the connecting role, without
 * row-level security (see Database.tenantRead). It runs only statements the
 * query compiler built, which name the tenant on every table they read; a
 * statement answering rows answers their tenant_id too, for the caller to
 * check (assertTenantRows).
 */
export interface TenantReader {
  readonly tenantId: string;
  /** The caller's entity access: the query engine confines what it reads to it. */
  readonly access: EntityAccess;
  run<R extends Record<string, unknown> = Record<string, any>>(statement: CompiledStatement): Promise<QueryResult<R>>;
  /** A setting for the statements that follow (opens a read-only transaction that ends with the work). */
  setLocal(name: string, value: string): Promise<void>;
}

/** Handles whose reads go together, one request per wave (Database.readWave). */
export interface ReadWave {
  /** As lookup(): as the connecting role, outside any tenant. */
  lookup(): Sql;
  /** As a read-only tenantTx: app_tenant with the tenant set, so row-level security confines every statement. */
  tenant(tenantId: string): Sql;
  /** As tenantRead without a snapshot (the owner path): compiled statements only, settings per handle. */
  owner(tenantId: string, access?: EntityAccess): TenantReader;
}

export interface ReadOptions {
  /** One snapshot for every statement (a read-only REPEATABLE READ transaction), as a paged export needs. */
  snapshot?: boolean;
}

/** A compiled statement's text and values, refusing anything else at run time too. */
function unsealed(statement: CompiledStatement): { text: string; values: unknown[] } {
  if (!(statement instanceof CompiledStatement)) throw new TypeError("the owner path runs only statements built by the query compiler");
  return { text: statement.text, values: [...statement.values] };
}

/**
 * Limits on every statement run for a tenant (tenantTx, tenantRead), so no
 * request holds a backend for long or lets one query take the server's
 * memory. System work (credential lookups, cron, index builds, which may
 * rightly run for minutes) runs without them.
 */
export interface StatementLimits {
  /** statement_timeout, in ms: a statement running longer is cancelled (SQLSTATE 57014). */
  statementTimeoutMs: number;
  /** work_mem, in kB: memory per sort or hash before it spills to disk. */
  workMemKb: number;
}

export const DEFAULT_LIMITS: StatementLimits = { statementTimeoutMs: 10_000, workMemKb: 4096 };

/**
 * The limits are set per transaction (SET LOCAL), never per session: behind
 * Neon's pooler (PgBouncer in transaction mode) a session setting would stay
 * on a backend that other connections get next, and startup parameters are
 * refused. They go out with statements already being sent, so they cost no
 * round trip: ahead of a transaction's first statement, and ahead of each
 * statement run outside one (see PrefixedQuery).
 */
function limitSettings({ statementTimeoutMs, workMemKb }: StatementLimits) {
  for (const [name, n] of Object.entries({ statementTimeoutMs, workMemKb })) {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${n}`);
  }
  const configs = `set_config('statement_timeout', '${statementTimeoutMs}', true), set_config('work_mem', '${workMemKb}', true)`;
  return {
    setLocal: `SET LOCAL statement_timeout = ${statementTimeoutMs}; SET LOCAL work_mem = ${workMemKb}`,
    setConfig: `SELECT ${configs}`,
    /**
     * The opening of a tenant transaction: BEGIN, then the role, the tenant and the limits in one statement (set_config('role') is SET LOCAL ROLE).
     * Over HTTP the batch's own BEGIN (Neon-Batch-Read-Only) takes the first one's place (see httpOpening).
     */
    tenantOpening: (tenantId: string, readShared: boolean) => [
      readShared ? "BEGIN READ ONLY" : "BEGIN",
      `SELECT set_config('role', 'app_tenant', true), set_config('app.tenant_id', '${tenantId}', true), ${configs}${readShared ? ", set_config('app.read_shared', 'on', true)" : ""}`,
    ],
  };
}

type Callback = (err: Error | null, result: QueryResult) => void;

/**
 * A statement that must hold before any statement of the work it guards
 * takes effect: a cached caller's guard (auth/caller-cache.ts). It rides
 * last in the prefix of the next statement sent, in that statement's round
 * trip, on whichever path the statement takes (a tenant transaction's
 * opening, the owner path, system work), until an answer shows it held. A
 * failure with its SQLSTATE (`refusal`) marks it refused: the statement it
 * rode with did not run and its transaction is aborted. A refused check
 * keeps riding, so every later statement fails the same way and nothing is
 * written until the work is started again without it (Database.require).
 */
export class Precondition {
  state: "pending" | "held" | "refused" = "pending";

  constructor(
    readonly statement: string,
    readonly refusal: string,
  ) {}

  /** The prefix statements it adds now: itself, until it held. */
  ahead(): string[] {
    return this.state === "held" ? [] : [this.statement];
  }

  /** Every prefix statement answered: the check, last of them, passed. */
  passed(): void {
    if (this.state === "pending") this.state = "held";
  }

  /** The statement it rode with failed: refused when the check itself raised. */
  failed(e: unknown): void {
    if (pgCode(e) === this.refusal) this.state = "refused";
  }
}

/**
 * The driver's Query class: declared by its types but exported at run time
 * only as node-postgres has it, a static of Client.
 */
const DriverQuery = (Client as unknown as { Query: typeof Query }).Query;

/** What PrefixedQuery uses of the driver's Query beyond its declared type. */
const base = DriverQuery.prototype as unknown as {
  submit(connection: Connection): unknown;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: Connection): void;
};

/**
 * A statement sent with other statements ahead of it in the same round trip:
 * the prefix's statements (no parameters, answers ignored) and the statement
 * go out as one extended-protocol pipeline closed by a single Sync. Outside a
 * transaction Postgres runs them in one implicit transaction, so limits set
 * by a set_config prefix apply to the statement alone and end with it (the
 * statement is timed from its own Parse, after the setting took effect); a
 * `BEGIN` prefix opens a transaction that the Sync leaves open. A failing
 * prefix fails the statement. The rest is the driver's ordinary Query.
 */
class PrefixedQuery extends DriverQuery {
  private unanswered: number;

  constructor(
    private readonly prefix: string[],
    config: QueryConfig,
    callback: Callback,
    /** Called once every prefix statement has answered (a Precondition riding last has held). */
    private readonly prefixAnswered?: () => void,
  ) {
    super(config as never);
    (this as unknown as { callback: Callback }).callback = callback;
    this.unanswered = prefix.length;
  }

  // Always the extended protocol: a simple Query message would end the pipeline's transaction.
  requiresPreparation(): boolean {
    return true;
  }

  override submit = (connection: Connection) => {
    for (const text of this.prefix) {
      connection.parse({ name: "", text, types: [] }, true);
      connection.bind({ portal: "", statement: "", values: [] }, true);
      connection.execute({ portal: "" }, true);
    }
    base.submit.call(this, connection);
  };

  handleDataRow(msg: unknown): void {
    if (this.unanswered === 0) base.handleDataRow.call(this, msg);
  }

  handleCommandComplete(msg: unknown, connection: Connection): void {
    if (this.unanswered === 0) return base.handleCommandComplete.call(this, msg, connection);
    if (--this.unanswered === 0) this.prefixAnswered?.();
  }
}

/** A statement as the driver takes it: its text, or a config (drizzle's, with its row mode and type parsers). */
type QueryConfig = { text: string; values?: unknown[] } & Record<string, unknown>;

/**
 * Runs `config` with `prefix` ahead of it in its round trip (PrefixedQuery),
 * and `guard`'s check, when it has not held yet, last in the prefix.
 */
function queryPrefixed<R extends Record<string, unknown>>(
  client: Client,
  prefix: string[],
  config: QueryConfig,
  guard?: Precondition,
): Promise<QueryResult<R>> {
  const checks = guard?.ahead() ?? [];
  const answered = checks.length ? () => guard!.passed() : undefined;
  const sent = new Promise<QueryResult<R>>((resolve, reject) =>
    client.query(new PrefixedQuery([...prefix, ...checks], config, (err, result) => (err ? reject(err) : resolve(result as QueryResult<R>)), answered)),
  );
  return checks.length ? sent.catch((e) => (guard!.failed(e), Promise.reject(e))) : sent;
}

/**
 * The statements of a tenant opening that follow its BEGIN: over HTTP the
 * batch opens the transaction itself (read-only by header), so they go as
 * its first statements.
 */
function httpOpening(opening: string[]): string[] {
  if (!/^BEGIN\b/.test(opening[0] ?? "")) throw new Error("a tenant opening starts with BEGIN");
  return opening.slice(1);
}

/** A statement of a batch (Database.tenantBatch): its text and bound values. */
export type BatchStatement = { text: string; values?: unknown[] };

/** A statement of an HTTP request: text, values, and the driver's per-query options. */
type HttpStatement = { text: string; values?: unknown[]; rowMode?: unknown; types?: unknown };

/** A statement cancelled by statement_timeout, as the envelope's 503. */
function translated(e: unknown, limits: StatementLimits): unknown {
  if (pgCode(e) !== "57014") return e;
  return new ApiError(
    { code: "STATEMENT_TIMEOUT", timeout_ms: limits.statementTimeoutMs },
    `A database statement ran longer than ${limits.statementTimeoutMs} ms and was cancelled`,
  );
}

/** How an Sql sends a statement: its text, or a config (drizzle's, with its row mode and type parsers), and its values. */
type Send = (config: string | QueryConfig, values?: unknown[]) => Promise<QueryResult>;

/**
 * An Sql over `send`, whichever path it takes: drizzle sends through the
 * same door as `query` and `run`, so every statement gets the path's opening
 * and guard; `setLocal` is the path's own (a statement, or a setting that
 * rides ahead of the next one).
 */
function sqlOver(send: Send, tenantId: string | undefined, setLocal: Sql["setLocal"]): Sql {
  const through = { query: send } as unknown as Client;
  let db: Db | undefined;
  return {
    // Built on first use: most requests never touch the query builder.
    get db() {
      return (db ??= drizzle({ client: through }) as Db);
    },
    query: ((text: string, params?: unknown[]) => send(text, params)) as Sql["query"],
    run: async (statement) => {
      const { text, values } = unsealed(statement);
      return send(text, values) as never;
    },
    tenantId,
    setLocal,
  };
}

let configuredProxy: string | undefined;

// The driver otherwise holds each write for a timer tick to coalesce it with
// the next; a statement's messages are written together anyway, and the tick
// costs a millisecond per round trip.
neonConfig.coalesceWrites = false;

function configureDriver(proxy: string | undefined) {
  if (!proxy || configuredProxy === proxy) return;
  // Local Postgres behind scripts/lib/ws-bridge.mjs: plain ws://, no TLS to
  // pipeline, and its twin of Neon's HTTP endpoint. Without a proxy the
  // driver's defaults stand: Neon's endpoint for DATABASE_URL's host.
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.fetchEndpoint = `http://${proxy}/sql`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  configuredProxy = proxy;
}

/** Type parsing as the WebSocket client has it: timestamptz as ISO text (timestamps.ts). */
const TYPES = { getTypeParser: (oid: number, format?: string) => (oid === TIMESTAMPTZ_OID ? pgTimestamptzToIso : types.getTypeParser(oid, format as never)) };

export interface DatabaseOptions {
  /**
   * Whether work whose statements are known up front goes over HTTP
   * (default); false keeps everything on the WebSocket connection.
   */
  http?: boolean;
}

export class Database {
  private client?: Promise<Client>;
  private httpQuery?: NeonQueryFunction<false, true>;
  /** Statements on one connection run one transaction at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  private readonly settings: ReturnType<typeof limitSettings>;
  /** What must hold ahead of the next statement, whichever path it takes (require). */
  private precondition?: Precondition;

  constructor(
    private readonly url: string,
    private readonly proxy?: string,
    private readonly limits: StatementLimits = DEFAULT_LIMITS,
    private readonly options: DatabaseOptions = {},
  ) {
    configureDriver(proxy || undefined);
    this.settings = limitSettings(limits);
  }

  /** Whether work known up front goes over HTTP. */
  private get http(): boolean {
    return this.options.http ?? true;
  }

  private async connection(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({ connectionString: this.url, types: TYPES });
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

  /**
   * From now on every statement, on any path and on forks, carries
   * `precondition` ahead of it until one answer shows it held; undefined
   * drops it (the work starts again without it).
   */
  require(precondition: Precondition | undefined): void {
    this.precondition = precondition;
  }

  /**
   * Settles the precondition when no statement has carried it yet: runs it
   * alone (one round trip) and answers whether it held. True without one.
   */
  async confirm(): Promise<boolean> {
    const guard = this.precondition;
    if (!guard || guard.state === "held") return true;
    try {
      await this.system((sql) => sql.query("SELECT 1"));
      return true;
    } catch (e) {
      if (pgCode(e) !== guard.refusal) throw e;
      return false;
    }
  }

  /**
   * The statements of one piece of work. `opening`: statements that go out
   * ahead of the first one, in its round trip (a transaction's BEGIN and
   * settings); `opened()` tells whether they went.
   */
  private async sql(
    tenantId?: string,
    opening?: string[],
  ): Promise<{ sql: Sql; opened: () => boolean; end: (command: "COMMIT" | "ROLLBACK") => Promise<unknown> }> {
    const client = await this.connection();
    let pending = opening;
    const send = (config: string | QueryConfig, values?: unknown[]): Promise<QueryResult> => {
      const guard = this.precondition?.state === "held" ? undefined : this.precondition;
      if (!pending && !guard) return client.query(config as never, values);
      const prefix = pending ?? [];
      pending = undefined;
      return queryPrefixed(client, prefix, typeof config === "string" ? { text: config, values } : { ...config, ...(values && { values }) }, guard);
    };
    // Drizzle sends through the same door, so whichever statement comes first carries the opening.
    const sql = sqlOver(send, tenantId, async (name, value) => void (await send("SELECT set_config($1, $2, true)", [name, value])));
    // The end of a transaction never carries the precondition: a refused one would keep an aborted transaction from rolling back.
    return { sql, opened: () => opening !== undefined && pending === undefined, end: (command) => client.query(command) };
  }

  /**
   * Statements in one HTTP request: one alone runs as it would outside a
   * transaction, several as one transaction (read-only when `readOnly`),
   * which fails and rolls back whole. Each answers as the WebSocket client's
   * query does: rows parsed by the same types, or by the statement's own
   * (drizzle's), as arrays when it asks for them.
   */
  private async overHttp(statements: HttpStatement[], readOnly: boolean): Promise<QueryResult[]> {
    const sql = (this.httpQuery ??= neon(this.url, { fullResults: true }));
    const queries = statements.map(({ text, values, rowMode, types: parsers }) =>
      sql.query(text, (values ?? []) as unknown[], { types: (parsers ?? TYPES) as never, arrayMode: (rowMode === "array") as false }),
    );
    try {
      const results = queries.length === 1 ? [await queries[0]!] : await sql.transaction(queries, { readOnly });
      return results as unknown as QueryResult[];
    } catch (e) {
      // No answer at all (the endpoint unreachable): as a failed connect is on the WebSocket path.
      if (!pgCode(e) && (e as { sourceError?: unknown }).sourceError !== undefined) {
        throw new ApiError("SERVICE_UNAVAILABLE", "The database is unreachable", { reason: (e as Error).message });
      }
      throw e;
    }
  }

  /**
   * An Sql whose statements each go in an HTTP request of their own, after
   * `opening` (the statements every request starts with, in its
   * transaction) and the settings setLocal made so far. setLocal costs no
   * request: its setting rides ahead of the statements that follow. Only
   * for work that reads: in READ COMMITTED every statement sees its own
   * snapshot anyway, so separate requests read what one transaction would.
   */
  private httpSql(tenantId: string | undefined, opening: string[], readOnly: boolean): Sql {
    const settings: HttpStatement[] = [];
    const send = async (config: string | HttpStatement, values?: unknown[]): Promise<QueryResult> => {
      const statement = typeof config === "string" ? { text: config, values } : { ...config, ...(values && { values }) };
      // A cached caller's guard rides here too, last before the statement, in the same request (and so the same transaction).
      const guard = this.precondition?.state === "held" ? undefined : this.precondition;
      const checks = guard?.ahead().map((text) => ({ text })) ?? [];
      let results: QueryResult[];
      try {
        results = await this.overHttp([...opening.map((text) => ({ text })), ...settings, ...checks, statement], readOnly);
      } catch (e) {
        if (checks.length) guard!.failed(e);
        throw e;
      }
      if (checks.length) guard!.passed();
      return results[results.length - 1]!;
    };
    return sqlOver(send, tenantId, async (name, value) => void settings.push({ text: "SELECT set_config($1, $2, true)", values: [name, value] }));
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
    return this.serialize(async () => fn((await this.sql()).sql));
  }

  /**
   * As system(), for lookups and single-statement writes: each statement on
   * its own, outside any transaction (a write autocommits), over HTTP (one
   * round trip each, no connection to open). Nothing a statement leaves in
   * the session (a session lock, a SET, a BEGIN) reaches the next one; work
   * that needs that uses system().
   */
  lookup<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.http) return this.system(fn);
    return fn(this.httpSql(undefined, [], false));
  }

  /**
   * One transaction as `app_tenant` with `app.tenant_id` set, so row-level
   * security confines every statement to the tenant. BEGIN, the role, the
   * setting and the limits go out with the first statement, in its round
   * trip; work that sends no statement opens no transaction. The id is a
   * validated UUID, so inlining it is safe.
   */
  tenantTx<T>(tenantId: string, fn: (sql: Sql) => Promise<T>, { readShared = false }: { readShared?: boolean } = {}): Promise<T> {
    if (!isUuid(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
    // A shared read only reads (READ ONLY, READ COMMITTED): over HTTP, each
    // statement in a read-only transaction of its own that sets the same role,
    // tenant and limits first. Row-level security confines each as it would
    // confine the one transaction.
    if (readShared && this.http) {
      const sql = this.httpSql(tenantId, httpOpening(this.settings.tenantOpening(tenantId, true)), true);
      return fn(sql).catch((e) => {
        throw translated(e, this.limits);
      });
    }
    return this.serialize(async () => {
      const { sql, opened, end } = await this.sql(tenantId, this.settings.tenantOpening(tenantId, readShared));
      try {
        const result = await fn(sql);
        if (opened()) await end("COMMIT");
        return result;
      } catch (e) {
        if (opened()) await end("ROLLBACK").catch(() => {});
        throw translated(e, this.limits);
      }
    });
  }

  /**
   * Statements known up front, as one transaction as `app_tenant` with
   * `app.tenant_id` set (row-level security as tenantTx has it), in one round
   * trip: over HTTP, one non-interactive transaction that sets the role, the
   * tenant and the limits first and carries the caller's guard (Precondition)
   * ahead of `statements`. It commits whole or not at all: a statement that
   * fails (a unique key, a guard, a check raised by the statement itself)
   * rolls back every one and rejects with its error. Answers each
   * statement's result, in order. Without HTTP, the same statements in a
   * tenantTx.
   */
  tenantBatch(tenantId: string, statements: BatchStatement[]): Promise<QueryResult[]> {
    if (!isUuid(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
    if (!statements.length) return Promise.resolve([]);
    if (!this.http) {
      return this.tenantTx(tenantId, async (sql) => {
        const results: QueryResult[] = [];
        for (const { text, values } of statements) results.push(await sql.query(text, values));
        return results;
      });
    }
    const opening = httpOpening(this.settings.tenantOpening(tenantId, false)).map((text) => ({ text }));
    const guard = this.precondition?.state === "held" ? undefined : this.precondition;
    const checks = guard?.ahead().map((text) => ({ text })) ?? [];
    return this.overHttp([...opening, ...checks, ...statements], false).then(
      (results) => {
        if (checks.length) guard!.passed();
        return results.slice(opening.length + checks.length);
      },
      (e) => {
        if (checks.length) guard!.failed(e);
        throw translated(e, this.limits);
      },
    );
  }

  /**
   * The owner path: reads for one tenant as the connecting role, with no
   * transaction around them (no BEGIN, role switch or COMMIT round trips).
   * Under row-level security Postgres refuses to use a filter as an index
   * condition unless every function in it is LEAKPROOF, which JSON path
   * extraction, LIKE and pg_trgm's operators are not (and only a superuser
   * could declare otherwise): every attribute filter would scan the whole
   * tenant. So these reads take only compiled statements, which put the
   * tenant predicate on every table they read (see query/filter.ts), and
   * callers check the tenant of the rows that come back.
   *
   * Each statement sees its own snapshot, as statements in a READ COMMITTED
   * transaction do; a setting (setLocal) opens a read-only transaction that
   * ends with the work, and `snapshot` opens a REPEATABLE READ one up front.
   * Every statement carries the limits.
   */
  tenantRead<T>(
    tenantId: string,
    fn: (reader: TenantReader) => Promise<T>,
    { snapshot = false }: ReadOptions = {},
    access = EntityAccess.everything,
  ): Promise<T> {
    if (!isUuid(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
    // Without one snapshot for all, each statement over HTTP: a read-only
    // transaction of the limits, the settings so far and the statement.
    if (!snapshot && this.http) {
      const sql = this.httpSql(tenantId, [this.settings.setConfig], true);
      const reader: TenantReader = { tenantId, access, run: sql.run, setLocal: sql.setLocal };
      return fn(reader).catch((e) => {
        throw translated(e, this.limits);
      });
    }
    return this.serialize(async () => {
      const client = await this.connection();
      const { setLocal, setConfig } = this.settings;
      let inTransaction = false;
      const begin = async (then = "") => {
        const guard = this.precondition;
        const checks =
          guard
            ?.ahead()
            .map((check) => `; ${check}`)
            .join("") ?? "";
        // Set first: a statement failing after BEGIN leaves the transaction open, aborted, for the ROLLBACK below.
        inTransaction = true;
        try {
          await client.query(`BEGIN READ ONLY${snapshot ? " ISOLATION LEVEL REPEATABLE READ" : ""}; ${setLocal}${checks}${then}`);
        } catch (e) {
          if (checks) guard!.failed(e);
          throw e;
        }
        if (checks) guard!.passed();
      };
      const reader: TenantReader = {
        tenantId,
        access,
        run: async <R extends Record<string, unknown>>(statement: CompiledStatement) => {
          const { text, values } = unsealed(statement);
          if (inTransaction) return client.query<R>(text, values);
          return queryPrefixed<R>(client, [setConfig], { text, values }, this.precondition);
        },
        setLocal: async (name, value) => {
          const set = `SELECT set_config(${client.escapeLiteral(name)}, ${client.escapeLiteral(value)}, true)`;
          if (inTransaction) await client.query(set);
          else await begin(`; ${set}`);
        },
      };
      try {
        if (snapshot) await begin();
        const result = await fn(reader);
        if (inTransaction) await client.query("COMMIT");
        return result;
      } catch (e) {
        if (inTransaction) await client.query("ROLLBACK").catch(() => {});
        throw translated(e, this.limits);
      }
    });
  }

  /**
   * Reads gathered by waves: handles that read as `lookup()`, a read-only
   * tenantTx and tenantRead (without a snapshot) do, whose statements are
   * held until the work in flight has queued every statement it can (the
   * next macrotask: independent readers awaiting nothing but each other's
   * microtasks reach theirs by then), and then all go in one HTTP request,
   * one read-only transaction. Each statement runs there after its own
   * handle's opening (role, tenant, limits) and settings, with every setting
   * of the statements before it reset first, so it answers as it would in a
   * request of its own: row-level security confines a tenant handle's
   * statements, an owner handle runs only compiled statements, and a
   * caller's precondition rides ahead of the first. When the request fails,
   * each statement is sent again alone, so a failing one fails only its own
   * reader. Without HTTP each statement is a read-only transaction on the
   * connection.
   */
  readWave(): ReadWave {
    type Queued = { statements: HttpStatement[]; names: string[]; resolve: (result: QueryResult) => void; reject: (e: unknown) => void };
    let queued: Queued[] = [];
    /** One HTTP request of `statements`, the precondition ahead of them until it held. */
    const request = async (statements: HttpStatement[]): Promise<QueryResult[]> => {
      const guard = this.precondition?.state === "held" ? undefined : this.precondition;
      const checks = (guard?.ahead() ?? []).map((text) => ({ text }));
      try {
        const results = await this.overHttp([...checks, ...statements], true);
        if (checks.length) guard!.passed();
        return results.slice(checks.length);
      } catch (e) {
        if (checks.length) guard!.failed(e);
        throw e;
      }
    };
    const alone = async ({ statements }: Queued): Promise<QueryResult> => {
      if (this.http) return (await request(statements)).at(-1)!;
      return this.serialize(async () => {
        const client = await this.connection();
        const [first, ...rest] = statements;
        try {
          let last = await queryPrefixed(client, ["BEGIN READ ONLY"], { ...first, values: first.values ?? [] }, this.precondition);
          for (const { text, values, ...options } of rest) last = await client.query({ text, values: values ?? [], ...options } as never);
          await client.query("COMMIT");
          return last;
        } catch (e) {
          await client.query("ROLLBACK").catch(() => {});
          throw e;
        }
      });
    };
    const flush = async () => {
      const wave = queued;
      queued = [];
      if (wave.length === 1 || !this.http) {
        await Promise.all(wave.map((q) => alone(q).then(q.resolve, q.reject)));
        return;
      }
      const statements: HttpStatement[] = [];
      const last: number[] = [];
      const set = new Set<string>();
      for (const q of wave) {
        // set_config with a null value resets the setting to what it was when the transaction began.
        if (set.size) statements.push({ text: `SELECT ${[...set].map((_, i) => `set_config($${i + 1}, NULL, true)`).join(", ")}`, values: [...set] });
        statements.push(...q.statements);
        last.push(statements.length - 1);
        for (const name of q.names) set.add(name);
      }
      let results: QueryResult[];
      try {
        results = await request(statements);
      } catch (e) {
        if (this.precondition?.state === "refused") wave.forEach((q) => q.reject(e));
        else await Promise.all(wave.map((q) => alone(q).then(q.resolve, q.reject)));
        return;
      }
      wave.forEach((q, i) => q.resolve(results[last[i]]));
    };
    const handle = (tenantId: string | undefined, opening: string[], names: string[]): Sql => {
      const settings: HttpStatement[] = [];
      const own = [...names];
      const send = (config: string | HttpStatement, values?: unknown[]): Promise<QueryResult> => {
        const statement = typeof config === "string" ? { text: config, values } : { ...config, ...(values && { values }) };
        return new Promise<QueryResult>((resolve, reject) => {
          if (!queued.length) setTimeout(flush, 0);
          queued.push({ statements: [...opening.map((text) => ({ text })), ...settings, statement], names: own, resolve, reject });
        }).catch((e) => {
          throw tenantId === undefined ? e : translated(e, this.limits);
        });
      };
      return sqlOver(send, tenantId, async (name, value) => {
        settings.push({ text: "SELECT set_config($1, $2, true)", values: [name, value] });
        own.push(name);
      });
    };
    const limits = ["statement_timeout", "work_mem"];
    const tenantOf = (tenantId: string) => {
      if (!isUuid(tenantId)) throw new Error(`invalid tenant id ${tenantId}`);
      return tenantId;
    };
    return {
      lookup: () => handle(undefined, [], []),
      tenant: (tenantId) =>
        handle(tenantOf(tenantId), httpOpening(this.settings.tenantOpening(tenantOf(tenantId), false)), ["role", "app.tenant_id", ...limits]),
      owner: (tenantId, access = EntityAccess.everything) => {
        const sql = handle(tenantOf(tenantId), [this.settings.setConfig], limits);
        return { tenantId, access, run: sql.run, setLocal: sql.setLocal };
      },
    };
  }

  /** A Database like this one on a connection of its own. */
  fork(): Database {
    const fork = new Database(this.url, this.proxy, this.limits, this.options);
    fork.precondition = this.precondition;
    return fork;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await (await client.catch(() => undefined))?.end().catch(() => {});
  }
}

/** A tenant-bound handle: the only database access routes and services get. */
export interface TenantDb {
  readonly tenantId: string;
  /** Which entity rows the caller may read and change (db/entity-access.ts). */
  readonly access: EntityAccess;
  /** A transaction as app_tenant: row-level security confines every statement to the tenant. */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Statements known up front as one such transaction, in one round trip
   * (Database.tenantBatch): all of them commit or none does.
   */
  batch(statements: BatchStatement[]): Promise<QueryResult[]>;
  /**
   * A read-only transaction as app_tenant that also sees the rows other
   * tenants share with this one (the share clauses of the row-level-security
   * policies, migrations/0006). Only reads that present shared rows use it.
   */
  sharedRead<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** The owner path (Database.tenantRead): the query engine's reads, compiled statements only. */
  read<T>(fn: (reader: TenantReader) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * The same handle on a connection of its own, closed when `fn` settles:
   * for work that outlives the request, whose connection closes with the
   * response (a streamed export).
   */
  withOwnConnection<T>(fn: (tenant: TenantDb) => Promise<T>): Promise<T>;
  /**
   * As the owning role, outside any transaction and any tenant: the DDL a
   * tenant's change calls for (an entity type's indexes and statistics),
   * which app_tenant may not run and CREATE INDEX CONCURRENTLY cannot run
   * inside a transaction. Never for tenant rows.
   */
  ddl<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /** The same tenant with other entity access: a principal's confined handle. */
  withAccess(access: EntityAccess): TenantDb;
}

export function tenantDb(database: Database, tenantId: string, access = EntityAccess.everything): TenantDb {
  return {
    tenantId,
    access,
    tx: (fn) => database.tenantTx(tenantId, fn),
    batch: (statements) => database.tenantBatch(tenantId, statements),
    sharedRead: (fn) => database.tenantTx(tenantId, fn, { readShared: true }),
    read: (fn, options) => database.tenantRead(tenantId, fn, options, access),
    withOwnConnection: async (fn) => {
      const own = database.fork();
      try {
        return await fn(tenantDb(own, tenantId, access));
      } finally {
        await own.close();
      }
    },
    ddl: (fn) => database.system(fn),
    withAccess: (other) => tenantDb(database, tenantId, other),
  };
}

/** The rows of an owner-path read: the compiler confines them to the tenant, and this proves it held. */
export function assertTenantRows(rows: { tenant_id: string }[], tenantId: string): void {
  if (rows.some((r) => r.tenant_id !== tenantId)) throw new ApiError("INTERNAL_ERROR", "A query answered rows of another tenant");
}

/**
 * The driver's error inside `e`, if it is one. drizzle wraps the driver's
 * error (DrizzleQueryError), so it may sit on its cause.
 */
function driverError(e: unknown): { code: string; constraint?: unknown } | undefined {
  for (let cur = e, depth = 0; cur && depth < 3; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return cur as { code: string };
  }
  return undefined;
}

/** Postgres SQLSTATE of a driver error, if it is one. */
export function pgCode(e: unknown): string | undefined {
  return driverError(e)?.code;
}

/** The constraint (or unique index) a driver error names, if any. */
export function pgConstraint(e: unknown): string | undefined {
  const constraint = driverError(e)?.constraint;
  return typeof constraint === "string" ? constraint : undefined;
}
