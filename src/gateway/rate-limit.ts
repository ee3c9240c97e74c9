// Per-IP (before auth) and per-identity (after auth) budgets, spent through
// the RateLimits interface (one Durable Object per budget behind it).
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../lib/errors";
import type { HonoEnv } from "./env";

/** Spends one unit of the budget `<scope>:<key>`: 429 TOO_MANY_REQUESTS once it is spent. */
export async function enforce(c: Parameters<MiddlewareHandler<HonoEnv>>[0], scope: "ip" | "identity", key: string, limit: number) {
  const result = await c.var.ctx.rateLimits.consume({ key: `${scope}:${key}`, limit, windowSeconds: c.var.ctx.config.rateLimitWindowSeconds });
  if (!result.allowed) throw new ApiError("TOO_MANY_REQUESTS", "Rate limit exceeded", { scope, limit });
  c.set("rateLimit", { limit, remaining: result.remaining });
}

export function clientIp(req: Request): string {
  return req.headers.get("CF-Connecting-IP") ?? req.headers.get("X-Forwarded-For")?.split(",")[0]?.trim() ?? "unknown";
}

export const ipRateLimit: MiddlewareHandler<HonoEnv> = async (c, next) => {
  await enforce(c, "ip", clientIp(c.req.raw), c.var.ctx.config.rateLimitIp);
  await next();
  const budget = c.var.rateLimit;
  if (budget && c.res.status !== 429) {
    c.res.headers.set("X-Rate-Limit-Limit", String(budget.limit));
    c.res.headers.set("X-Rate-Limit-Remaining", String(budget.remaining));
  }
};

export const identityRateLimit: MiddlewareHandler<HonoEnv> = async (c, next) => {
  await enforce(c, "identity", c.var.ctx.principal.identity, c.var.ctx.config.rateLimitIdentity);
  await next();
};
