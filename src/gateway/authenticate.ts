// Authentication and the permission check, applied per route so that the routes
// that take no credentials (docs/api.md, Authentication) simply do not carry
// them.
import type { MiddlewareHandler } from "hono";
import { authenticate as resolvePrincipal } from "../auth/credentials";
import { ApiError } from "../lib/errors";
import type { HonoEnv } from "../env";
import { hasPermission } from "./principal";

export const authenticate: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const principal = await resolvePrincipal(c.var.ctx.database, c.env.JWT_SECRET, c.req.header("Authorization"), c.var.ctx.clock.now());
  const ctx = c.var.ctx.forTenant(principal.tenantId, principal);
  c.set("ctx", ctx);
  await next();
};

export function requirePermission(resource: string, action: string): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    if (!hasPermission(c.var.ctx.principal, resource, action)) {
      throw new ApiError("FORBIDDEN", `Permission ${resource}:${action} is required`, { resource, action });
    }
    await next();
  };
}
