// The gateway: request context, body limit and IP rate limit for every
// request (mount.ts adds authentication, the identity rate limit, the
// permission check and idempotency per route), then every area's routes.
// The whole API surface is listed here, grouped by path prefix.
import { Hono } from "hono";
import type { HonoEnv } from "./gateway/env";
import { ApiError, errorBody } from "./lib/errors";
import { log } from "./lib/logger";
import { routeTable, type RouteSpec } from "./gateway/route";
import { mount } from "./mount";
import { requestContext } from "./gateway/request-context";
import { bodyLimit } from "./gateway/body-limit";
import { ipRateLimit } from "./gateway/rate-limit";
import { openApiRoutes } from "./openapi/routes";
import { healthRoutes } from "./health/routes";
import { authRoutes } from "./auth/routes";
import { accessRoutes } from "./access/routes";
import { secretRoutes } from "./access/secrets/routes";
import { externalRoutes } from "./access/external/routes";
import { shareRoutes } from "./access/shares/routes";
import { manifestRoutes } from "./access/manifests/routes";
import { schemaRoutes } from "./schema/routes";
import { entityTypeRoutes } from "./entity/entity-types/routes";
import { entityRoutes } from "./entity/entities/routes";
import { relationshipRoutes } from "./entity/relationships/routes";
import { upsertRoutes } from "./entity/upsert/routes";
import { queryRoutes } from "./entity/query/routes";
import { aggregateRoutes } from "./entity/query/aggregate/routes";
import { csvRoutes } from "./entity/csv/routes";
import { queryGraphRoutes } from "./entity/query/graph-routes";
import { graphqlRoutes } from "./entity/graphql/routes";
import { eventRoutes } from "./events/routes";
import { artifactRoutes } from "./entity/artifacts/routes";
import { tempFileRoutes } from "./entity/temp-files/routes";
import { definitionRoutes, jobRoutes } from "./definition/routes";
import { specRoutes } from "./definition/specs/routes";
import { activationRoutes } from "./workflows/activation/routes";
import { testRunRoutes } from "./workflows/test-runs/routes";
import { runRoutes } from "./workflows/runs/routes";
import { webhookRoutes } from "./workflows/triggers/routes";
import { callbackRoutes } from "./workflows/actions/outbound/callback-routes";
import { appRoutes } from "./apps/routes";
import { renderRoutes } from "./apps/render/routes";
import { uploadRoutes } from "./apps/uploads/routes";
import { componentRoutes } from "./apps/components/routes";
import { hostRoutes } from "./apps/host/routes";
import { hostCors, preflight } from "./apps/host/cors";

export const routes: RouteSpec[] = [
  ...openApiRoutes(() => routes),
  ...healthRoutes,
  ...authRoutes,
  ...accessRoutes,
  ...secretRoutes,
  ...externalRoutes,
  ...shareRoutes,
  ...manifestRoutes,
  ...schemaRoutes,
  ...entityTypeRoutes,
  ...upsertRoutes,
  ...csvRoutes,
  ...entityRoutes,
  ...relationshipRoutes,
  ...queryRoutes,
  ...aggregateRoutes,
  ...queryGraphRoutes,
  ...graphqlRoutes,
  ...eventRoutes,
  ...artifactRoutes,
  ...tempFileRoutes,
  ...definitionRoutes,
  ...testRunRoutes,
  ...jobRoutes,
  ...specRoutes,
  ...activationRoutes,
  ...runRoutes,
  ...webhookRoutes,
  ...callbackRoutes,
  ...uploadRoutes,
  ...componentRoutes,
  ...hostRoutes,
  ...appRoutes,
  ...renderRoutes,
];

const table = routeTable(routes);

/** For 405: which methods a path answers to. */
export function allowedMethods(path: string): string[] {
  return table.methods(path);
}

/** Whether the route a request reaches sends its statements over HTTP only (no WebSocket opened ahead for it), known before the route runs. */
export function overHttp(method: string, path: string): boolean {
  return table.find(method, path)?.overHttp === true;
}

/** The body limit the route a request reaches declares, known before the route runs. */
export function declaredBodyLimit(method: string, path: string): number | undefined {
  return table.find(method, path)?.bodyLimit;
}

export function createApp() {
  const app = new Hono<HonoEnv>();
  app.use("*", requestContext(overHttp));
  // Before the body limit and the rate limit, so their refusals reach a browser host's page too.
  app.use("/apps/run/:integrationId", hostCors);
  app.use("/apps/upload/:integrationId/:uploadId", hostCors);
  app.use("*", bodyLimit(declaredBodyLimit), ipRateLimit);
  // A browser host's preflight: answered before any credential, granting only the integration's listed origins.
  app.options("/apps/run/:integrationId", (c) => preflight(c.var.ctx.database, c.req.param("integrationId"), c.req.raw.headers));
  // The upload link too: a page that follows an upload's progress makes the browser ask first.
  app.options("/apps/upload/:integrationId/:uploadId", (c) => preflight(c.var.ctx.database, c.req.param("integrationId"), c.req.raw.headers));
  mount(app, routes);

  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    const err = allowed.length
      ? new ApiError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on ${c.req.path}`, { allowed })
      : new ApiError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
    if (allowed.length) c.header("Allow", allowed.join(", "));
    return c.json(errorBody(err, c.var.ctx.requestId), err.status as 404);
  });

  app.onError(async (e, c) => {
    const requestId = c.var.ctx?.requestId ?? crypto.randomUUID();
    const err = e instanceof ApiError ? e : new ApiError("INTERNAL_ERROR", "Internal server error");
    const logger = c.var.ctx?.log ?? log.with({ request_id: requestId });
    if (!(e instanceof ApiError)) logger.error("unhandled", { error: e.message, stack: e.stack });
    const own = table.find(c.req.method, c.req.path)?.errorAnswer;
    if (own) {
      try {
        return await own.answer(c, err);
      } catch (failure) {
        logger.error("error answer failed", { error: (failure as Error).message });
      }
    }
    return c.json(errorBody(err, requestId), err.status as 500, err.headers);
  });
  return app;
}
