// Browser hosts: an integration lists the exact origins (scheme, host,
// port) allowed to render from a browser. A request with an `Origin` header
// not listed is refused; one without (a server host) is not checked. The
// same list answers CORS preflights for POST /apps/run/{id}.
import type { Database } from "../../../db/client";
import { ApiError } from "../../../lib/errors";
import { loadTarget } from "./target";

/** 403 when the request carries an Origin the integration does not list exactly. */
export function checkOrigin(integration: { allowedOrigins: string[] }, origin: string | null | undefined): void {
  if (origin === null || origin === undefined) return;
  if (!integration.allowedOrigins.includes(origin)) {
    throw new ApiError("FORBIDDEN", `Origin ${origin} is not one of the integration's allowed_origins`, { origin });
  }
}

/** What a render answer from a listed origin carries so the browser hands it to the page (the origin was checked: it is listed). */
export function corsHeaders(origin: string | null | undefined): Record<string, string> {
  return origin ? { "Access-Control-Allow-Origin": origin, Vary: "Origin" } : { Vary: "Origin" };
}

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
  const target = origin ? await loadTarget(database, integrationId) : undefined;
  if (origin && target?.allowedOrigins.includes(origin)) {
    const credentialHeader = target.provider?.auth.header;
    answer.set("Access-Control-Allow-Origin", origin);
    answer.set("Access-Control-Allow-Methods", "POST, OPTIONS");
    answer.set("Access-Control-Allow-Headers", ["Authorization", "Content-Type", ...(credentialHeader ? [credentialHeader] : [])].join(", "));
    answer.set("Access-Control-Max-Age", "600");
  }
  return new Response(null, { status: 204, headers: answer });
}
