// Authentication and the permission check, applied per route so that the routes
// that take no credentials (docs/api.md, Authentication) simply do not carry
// them.
//
// A credential the isolate verified in the last minute is taken from its
// cache (auth/caller-cache.ts) without a lookup; its guard then rides ahead of
// the request's first statement, whichever path that statement takes
// (db/client.ts Precondition). Should the guard be refused (the token revoked,
// its user deactivated, the tenant's access changed), that statement did not
// run and its transaction rolled back, so nothing of the request was written:
// the entry is dropped and the request runs again from the lookup on, as an
// uncached request would. docs/architecture.md, "Who is calling, and what it
// costs".
import type { Context, MiddlewareHandler } from "hono";
import { authenticate as resolveCaller, type Caller } from "./credentials";
import { ApiError } from "../lib/errors";
import type { HonoEnv } from "../gateway/env";
import { hasPermission } from "../lib/principal";
import { enforce } from "../gateway/rate-limit";

type Handler = (c: Context<HonoEnv>) => Promise<Response> | Response;

/**
 * A body up to this many bytes (the default body limit) that a guarded
 * request reads through Hono (JSON, text, bytes) is read up front and kept,
 * so a second run reads it again; a larger one, or one of unknown length, has
 * the guard settled first instead, as a streamed body does.
 */
const REPLAYABLE_BODY_BYTES = 1024 * 1024;

export interface CredentialOptions {
  /**
   * The handler reads the request body as a stream (an upload, a CSV
   * import), which a second run could not read again, and may store it
   * elsewhere (R2) before its first statement: a cached caller's guard is
   * then settled before the handler runs (one round trip, as the lookup
   * would have cost).
   */
  streamsBody?: boolean;
}

/** Runs `chain` and then `handler` as Hono's compose would, leaving the answer in `c.res`; errors propagate. */
async function run(c: Context<HonoEnv>, chain: MiddlewareHandler<HonoEnv>[], handler: Handler): Promise<Response> {
  const step = async (i: number): Promise<void> => {
    const res = i < chain.length ? await chain[i](c, () => step(i + 1)) : await handler(c);
    if (res) c.res = res;
  };
  await step(0);
  return c.res;
}

type Outcome = { res: Response } | { error: unknown };

function answer(outcome: Outcome): Response {
  if ("error" in outcome) throw outcome.error;
  return outcome.res;
}

/**
 * A credentials route's handler: authenticates the caller, spends its
 * identity's rate budget, then runs `chain` (the permission check,
 * idempotency) and `handler` as that caller, again without the cache when a
 * cached caller's guard is refused.
 */
export function withCredentials(chain: MiddlewareHandler<HonoEnv>[], handler: Handler, { streamsBody = false }: CredentialOptions = {}): Handler {
  return async (c) => {
    const outer = c.var.ctx;
    const database = outer.database;
    const adopt = (caller: Caller) => {
      database.require(caller.guard);
      c.set("ctx", outer.forTenant(caller.principal.tenantId, caller.principal));
      return caller;
    };
    const resolve = (cache: boolean) => resolveCaller(database, c.env.JWT_SECRET, c.req.header("Authorization"), outer.clock.now(), { cache });
    const attempt = (): Promise<Outcome> =>
      run(c, chain, handler).then(
        (res) => ({ res }),
        (error: unknown) => ({ error }),
      );

    const caller = adopt(await resolve(true));
    await enforce(c, "identity", caller.principal.identity, outer.config.rateLimitIdentity);
    if (caller.guard) {
      const declared = Number(c.req.header("Content-Length") ?? NaN);
      const replayable = !c.req.raw.body || (!streamsBody && declared <= REPLAYABLE_BODY_BYTES);
      // Kept by Hono for every later reader (readJson drops only its text copy); a second run reads it from there.
      if (c.req.raw.body && replayable) await c.req.arrayBuffer();
      const outcome = !replayable && !(await database.confirm()) ? undefined : await attempt();
      // A guard no statement carried (the answer came from the principal alone,
      // or the handler failed first) is settled before the answer goes out.
      if (outcome && (await database.confirm())) return answer(outcome);
      caller.forget();
      database.require(undefined);
      adopt(await resolve(false));
      // The first run's answer is dropped whole: Hono reads a finalized context's response when a header is set, so it is unfinalized too.
      c.res = undefined;
      c.finalized = false;
    }
    return answer(await attempt());
  };
}

export function requirePermission(resource: string, action: string): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    if (!hasPermission(c.var.ctx.principal, resource, action)) {
      throw new ApiError("FORBIDDEN", `Permission ${resource}:${action} is required`, { resource, action });
    }
    await next();
  };
}
