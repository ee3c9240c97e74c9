// GET /healthz: unauthenticated; says whether the database answers.
import { route } from "../gateway/route";
import { ApiError } from "../lib/errors";
import { dataEnvelope } from "../lib/schemas";
import { noAuth } from "../gateway/route-auth";

export const healthRoutes = [
  route({
    operation: "health",
    method: "get",
    path: "/healthz",
    tag: "health",
    summary: "Gateway health and database reachability",
    auth: noAuth,
    responses: {
      200: {
        description: "Healthy",
        schema: dataEnvelope({ type: "object", required: ["status", "database"], properties: { status: { const: "ok" }, database: { const: "reachable" } } }),
      },
      503: { description: "The database is unreachable" },
    },
    handler: async (c) => {
      try {
        await c.var.ctx.database.lookup((sql) => sql.query("SELECT 1"));
      } catch (e) {
        throw new ApiError("SERVICE_UNAVAILABLE", "The database is unreachable", {
          database: "unreachable",
          reason: (e as ApiError).details?.reason ?? (e as Error).message,
        });
      }
      return c.json({ data: { status: "ok", database: "reachable" } });
    },
  }),
];
