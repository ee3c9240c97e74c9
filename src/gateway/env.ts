// The Worker's configuration, read and checked once per isolate from the bindings.
import { DEFAULT_LIMITS, type StatementLimits } from "../db/client";
import type { RequestContext } from "./request-context";

export interface Config {
  rateLimitIp: number;
  rateLimitIdentity: number;
  rateLimitWindowSeconds: number;
  bodyLimitBytes: number;
  logRequests: boolean;
  /** How long an app render may wait for its data sources (APP_RENDER_DEADLINE_MS). */
  renderDeadlineMs: number;
  /** statement_timeout and work_mem for every tenant statement (STATEMENT_TIMEOUT_MS, WORK_MEM_KB). */
  statementLimits: StatementLimits;
}

export interface HonoEnv {
  Bindings: Env;
  Variables: {
    /** Built once per request; authenticate replaces it with the caller's tenant context. */
    ctx: RequestContext;
    /** The budget reported in X-Rate-Limit-* headers (identity when authenticated, else IP). */
    rateLimit: { limit: number; remaining: number };
  };
}

const cached = new WeakMap<object, Config>();

function positiveInt(env: Env, name: keyof Env, fallback: number): number {
  const raw = env[name] as unknown;
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${String(name)} must be a positive integer, got ${String(raw)}`);
  return n;
}

export function readConfig(env: Env): Config {
  let config = cached.get(env);
  if (config) return config;
  for (const name of ["DATABASE_URL", "JWT_SECRET", "MASTER_KEY"] as const) {
    if (!env[name]) throw new Error(`${name} is not configured; see README.md (Configuration)`);
  }
  config = {
    rateLimitIp: positiveInt(env, "RATE_LIMIT_IP", 10_000),
    rateLimitIdentity: positiveInt(env, "RATE_LIMIT_IDENTITY", 1_000),
    rateLimitWindowSeconds: positiveInt(env, "RATE_LIMIT_WINDOW_SECONDS", 60),
    bodyLimitBytes: positiveInt(env, "BODY_LIMIT_BYTES", 1024 * 1024),
    logRequests: env.LOG_REQUESTS !== "false",
    renderDeadlineMs: positiveInt(env, "APP_RENDER_DEADLINE_MS", 25_000),
    statementLimits: {
      statementTimeoutMs: positiveInt(env, "STATEMENT_TIMEOUT_MS", DEFAULT_LIMITS.statementTimeoutMs),
      workMemKb: positiveInt(env, "WORK_MEM_KB", DEFAULT_LIMITS.workMemKb),
    },
  };
  cached.set(env, config);
  return config;
}
