// The gateway: middleware in SPEC order, then every area's routes. The whole
// API surface is listed here, grouped by path prefix.
import { Hono } from "hono";
import type { HonoEnv } from "./env";
import { ApiError, errorBody } from "./lib/errors";
import { mount, type RouteSpec } from "./lib/route";
import { requestContext } from "./gateway/request-context";
import { bodyLimit } from "./gateway/body-limit";
import { ipRateLimit } from "./gateway/rate-limit";
import { buildOpenApi } from "./openapi/document";
import { healthRoutes } from "./health/routes";
import { authRoutes } from "./auth/routes";
import { accessRoutes } from "./access/routes";
import { schemaRoutes } from "./schema/routes";
import { entityTypeRoutes } from "./entity/entity-types/routes";
import { entityRoutes } from "./entity/entities/routes";
import { relationshipRoutes } from "./entity/relationships/routes";
import { upsertRoutes } from "./entity/upsert/routes";
import { queryRoutes } from "./entity/query/routes";
import { csvRoutes } from "./entity/csv/routes";
import { queryGraphRoutes } from "./entity/query/graph-routes";
import { graphqlRoutes } from "./entity/graphql/routes";
import { eventRoutes } from "./events/routes";
import { fileRoutes } from "./files/routes";

export const routes: RouteSpec[] = [
  ...healthRoutes,
  ...authRoutes,
  ...accessRoutes,
  ...schemaRoutes,
  ...entityTypeRoutes,
  ...upsertRoutes,
  ...csvRoutes,
  ...entityRoutes,
  ...relationshipRoutes,
  ...queryRoutes,
  ...queryGraphRoutes,
  ...graphqlRoutes,
  ...eventRoutes,
  ...fileRoutes,
];

const openApi = buildOpenApi(routes);

/** For 405: which methods a path answers to. */
const patterns = routes.map((r) => ({ method: r.method.toUpperCase(), re: new RegExp(`^${r.path.replace(/:\w+/g, "[^/]+")}$`) }));

export function allowedMethods(path: string): string[] {
  return [...new Set(patterns.filter((p) => p.re.test(path)).map((p) => p.method))];
}

export function createApp() {
  const app = new Hono<HonoEnv>();
  app.use("*", requestContext, bodyLimit, ipRateLimit);
  app.get("/openapi.json", (c) => c.json(openApi));
  mount(app, routes);

  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    const err = allowed.length
      ? new ApiError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on ${c.req.path}`, { allowed })
      : new ApiError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
    if (allowed.length) c.header("Allow", allowed.join(", "));
    return c.json(errorBody(err, c.var.requestId), err.status as 404);
  });

  app.onError((e, c) => {
    const requestId = c.var.requestId ?? crypto.randomUUID();
    const err = e instanceof ApiError ? e : new ApiError("INTERNAL_ERROR", "Internal server error");
    if (!(e instanceof ApiError)) {
      console.error(JSON.stringify({ level: "error", msg: "unhandled", request_id: requestId, error: e.message, stack: e.stack }));
    }
    return c.json(errorBody(err, requestId), err.status as 500);
  });
  return app;
}
