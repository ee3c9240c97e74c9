// First in the chain: the request context, built once per request, and one
// structured log line per request once the response is known.
import { EntityAccess } from "../db/entity-access";
import type { MiddlewareHandler } from "hono";
import { Database, tenantDb, type TenantDb } from "../db/client";
import { readConfig, type Config, type HonoEnv } from "./env";
import { publishEvents } from "../db/outbox";
import { FileStore } from "../lib/files/object-store";
import { createLogger, type Logger } from "../lib/logger";
import { DurableRateLimits } from "../lib/ratelimit/do-client";
import type { RateLimits } from "../lib/ratelimit/interface";
import type { Principal } from "../lib/principal";
import { systemClock, type Clock } from "../lib/clock";

/**
 * What a handler and the services it calls need from the request: bindings,
 * configuration, the logger, the rate limiter, and, once a tenant is known,
 * its database handle. Services take the parts they use (EntityDeps,
 * ArtifactDeps, ...), which this satisfies, so no area builds its own.
 */
export class RequestContext {
  readonly log: Logger;
  readonly rateLimits: RateLimits;
  readonly files: FileStore;
  /** The one source of the time for everything a request decides by it (link and token expiry). */
  readonly clock: Clock = systemClock;

  constructor(
    readonly requestId: string,
    readonly config: Config,
    readonly env: Env,
    /** For the gateway's own system work (credentials, health); routes and services take `tenant`. */
    readonly database: Database,
    private readonly url: string,
    /** Work that goes on once the response is out (event publishing, the start of a run an app command invokes). */
    readonly waitUntil: (work: Promise<unknown>) => void,
    private readonly tenantHandle?: TenantDb,
    private readonly caller?: Principal,
  ) {
    this.log = createLogger({ request_id: requestId, tenant: tenantHandle?.tenantId ?? null });
    this.rateLimits = new DurableRateLimits(env.RATE_LIMITER);
    this.files = new FileStore(env.FILES, env.MASTER_KEY);
  }

  /** Where links point: the address this request reached the service at. */
  get origin(): string {
    return new URL(this.url).origin;
  }

  /** MASTER_KEY, which signs capability links and cursors. */
  get secret(): string {
    return this.env.MASTER_KEY;
  }

  /** The tenant's handle: the caller's once authenticated, or the one a verified capability link names (`forTenant`). */
  get tenant(): TenantDb {
    if (!this.tenantHandle) throw new Error("No tenant in this request context: the route is unauthenticated and did not call forTenant");
    return this.tenantHandle;
  }

  /** Who is calling: set once authenticate has run (every route but the unauthenticated ones). */
  get principal(): Principal {
    if (!this.caller) throw new Error("No principal in this request context: the route is unauthenticated");
    return this.caller;
  }

  /** The same request working in one tenant; with the principal when the caller authenticated as it. */
  forTenant(tenantId: string, principal?: Principal): RequestContext {
    return new RequestContext(
      this.requestId,
      this.config,
      this.env,
      this.database,
      this.url,
      this.waitUntil,
      tenantDb(this.database, tenantId, principal ? new EntityAccess(principal) : EntityAccess.everything),
      principal,
    );
  }

  /** Hands committed event ids to the queue once the response is out. */
  publish(eventIds: string[]): void {
    if (eventIds.length) this.waitUntil(publishEvents(this.env.EVENTS, this.tenant.tenantId, eventIds, this.log));
  }
}

/** `overHttp(method, path)`: the route reached sends its statements over HTTP only (gateway/route.ts `overHttp`). */
export const requestContext =
  (overHttp: (method: string, path: string) => boolean): MiddlewareHandler<HonoEnv> =>
  async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("X-Request-Id");
    const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : crypto.randomUUID();
    const config = readConfig(c.env);
    const database = new Database(c.env.DATABASE_URL, c.env.NEON_WS_PROXY, config.statementLimits);
    // A credentialed request whose route may run an interactive transaction connects while the caller is checked and the rate limiter answers.
    // Not a GET, nor a route whose statements all go over HTTP (reads, batched writes, a webhook's): they have no connection to open.
    const socketless = c.req.method === "GET" || c.req.method === "HEAD" || overHttp(c.req.method, c.req.path);
    if (c.req.header("Authorization") && !socketless) database.warm();
    const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
    c.set("ctx", new RequestContext(requestId, config, c.env, database, c.req.url, waitUntil));
    try {
      await next();
    } finally {
      c.executionCtx.waitUntil(database.close());
    }
    c.res.headers.set("X-Request-Id", requestId);
    if (config.logRequests) {
      const status = c.res.status;
      // The logger adds level, msg, request_id and tenant.
      const line = {
        method: c.req.method,
        route: c.req.routePath,
        path: c.req.path,
        status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      };
      // The context authenticate left carries the tenant.
      const log = c.var.ctx.log;
      if (status >= 500) log.error("request", line);
      else log.info("request", line);
    }
  };
