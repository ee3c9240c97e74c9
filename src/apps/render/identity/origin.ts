// Browser hosts: an integration lists the exact origins (scheme, host,
// port) allowed to render from a browser. A request with an `Origin` header
// not listed is refused; one without (a server host) is not checked. The
// same list answers CORS preflights and grants CORS on the host's routes
// (apps/host/cors.ts).
import { ApiError } from "../../../lib/errors";

/** 403 when the request carries an Origin the integration does not list exactly. */
export function checkOrigin(integration: { allowedOrigins: string[] }, origin: string | null | undefined): void {
  if (origin === null || origin === undefined) return;
  if (!integration.allowedOrigins.includes(origin)) {
    throw new ApiError("FORBIDDEN", `Origin ${origin} is not one of the integration's allowed_origins`, { origin });
  }
}
