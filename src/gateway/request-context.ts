// First in the chain: a request id, the per-request database, and one
// structured log line per request once the response is known.
import type { MiddlewareHandler } from "hono";
import { Database, tenantDb } from "../db/client";
import { readConfig, type HonoEnv } from "../env";

export interface RequestLog {
  level: "info" | "error";
  msg: "request";
  method: string;
  route: string;
  path: string;
  status: number;
  duration_ms: number;
  tenant: string | null;
  request_id: string;
}

export const requestContext: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const started = performance.now();
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : crypto.randomUUID();
  const config = readConfig(c.env);
  const database = new Database(c.env.DATABASE_URL, c.env.NEON_WS_PROXY, config.statementLimits);
  // Every credential is checked against the database: connect while the rate limiter answers.
  if (c.req.header("Authorization")) database.warm();
  c.set("requestId", requestId);
  c.set("config", config);
  c.set("database", database);
  c.set("tenantFor", (tenantId) => tenantDb(database, tenantId));
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(database.close());
  }
  c.res.headers.set("X-Request-Id", requestId);
  if (config.logRequests) {
    const line: RequestLog = {
      level: c.res.status >= 500 ? "error" : "info",
      msg: "request",
      method: c.req.method,
      route: c.req.routePath,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      tenant: c.var.principal?.tenantId ?? null,
      request_id: requestId,
    };
    console.log(JSON.stringify(line));
  }
};
