// CORS for a browser host: an integration lists the exact origins (scheme,
// host, port) allowed to call its host routes from a browser (render and
// upload). The list answers their preflights and grants CORS on every answer
// of those routes; the render itself refuses an unlisted Origin
// (render/identity/origin.ts).
import type { MiddlewareHandler } from "hono";
import type { Database } from "../../db/client";
import type { HonoEnv } from "../../gateway/env";
import { isUuid } from "../../lib/ids";
import { loadTarget } from "../render/identity/target";

/** The origins the integration lists; none for an id that names no integration. Read as the connecting role: no tenant is known yet. */
async function allowedOrigins(database: Database, integrationId: string): Promise<string[]> {
  if (!isUuid(integrationId)) return [];
  const { rows } = await database.system((sql) =>
    sql.query<{ allowed_origins: string[] }>(`SELECT allowed_origins FROM app_integrations WHERE id = $1`, [integrationId]),
  );
  return rows[0]?.allowed_origins ?? [];
}

/**
 * CORS for a browser host's routes (`/apps/run/{integrationId}`,
 * `/apps/upload/{integrationId}/...`), decided once for every answer after
 * the route, or the error handler, has made it: `Vary: Origin` always, and
 * `Access-Control-Allow-Origin` when the path's integration lists the
 * request's Origin. Without it a browser hands a 401, 403 or 422 to the
 * host's page as "Failed to fetch". The grant follows the integration
 * whatever the answer says, so a 401 for an integration that exists and
 * lists the origin carries it and one for an unknown integration does not:
 * only a page on a listed origin can tell them apart (docs/apps.md, "A
 * browser host").
 */
export const hostCors: MiddlewareHandler<HonoEnv> = async (c, next) => {
  // Read before the chain runs on: afterwards param() answers for whichever handler ran last.
  const { integrationId = "" } = c.req.param() as Record<string, string | undefined>;
  await next();
  // A preflight's answer is preflight()'s own.
  if (c.req.method === "OPTIONS") return;
  const headers = c.res.headers;
  if (!(headers.get("Vary") ?? "").split(",").some((v) => v.trim().toLowerCase() === "origin")) headers.append("Vary", "Origin");
  const origin = c.req.header("Origin");
  // A render that succeeded granted it already (its Origin was checked against the same list): no second read.
  if (origin === undefined || headers.has("Access-Control-Allow-Origin")) return;
  const listed = await allowedOrigins(c.var.ctx.database, integrationId).catch((e: Error): string[] => {
    c.var.ctx.log.error("allowed origins unreadable", { error: e.message });
    return [];
  });
  if (listed.includes(origin)) headers.set("Access-Control-Allow-Origin", origin);
};

/**
 * The answer to `OPTIONS /apps/run/{integrationId}`: 204, and for a listed
 * origin the CORS grant for POST with the headers a host sends (its
 * provider's credential header among them). An unknown integration or an
 * unlisted origin gets the 204 without any grant, so a preflight tells a
 * stranger nothing.
 */
export async function preflight(database: Database, integrationId: string, headers: Headers): Promise<Response> {
  const origin = headers.get("Origin");
  const answer = new Headers({ Vary: "Origin" });
  const target = origin ? await database.lookup((sql) => loadTarget(sql, integrationId)) : undefined;
  if (origin && target?.allowedOrigins.includes(origin)) {
    const credentialHeader = target.provider?.auth.header;
    answer.set("Access-Control-Allow-Origin", origin);
    answer.set("Access-Control-Allow-Methods", "POST, OPTIONS");
    answer.set("Access-Control-Allow-Headers", ["Authorization", "Content-Type", ...(credentialHeader ? [credentialHeader] : [])].join(", "));
    answer.set("Access-Control-Max-Age", "600");
  }
  return new Response(null, { status: 204, headers: answer });
}
