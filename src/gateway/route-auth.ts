// How a route knows who is calling, declared with the route (gateway/route.ts).
// Most routes take credentials (a PAT or an access token: the gateway's
// authenticate middleware). The others prove themselves otherwise: a signed
// capability link, a signed callback URL, a webhook's signature, an app
// host's app token or provider identity token (apps/render/identity). Each such strategy checks
// what the request carries, binds the tenant it names to the request
// context, and hands the handler what it verified (`input.auth`), so no
// handler repeats "no credentials, then verify, then bind the tenant".
import type { Context } from "hono";
import type { HonoEnv } from "./env";

/** How OpenAPI shows a strategy: the credential schemes it takes, or none. */
export type AuthScheme = "credentials" | "capability" | "callback" | "signature" | "appHost" | "none";

export interface AuthStrategy<A = unknown> {
  scheme: AuthScheme;
  /**
   * Runs once the path and query parameters are valid, before the body is
   * read: throws 401 (or 404 for what names nothing) unless the request
   * proves itself, and binds its tenant with `c.var.ctx.forTenant`.
   */
  authenticate(c: Context<HonoEnv>, input: { params: Record<string, string>; query: unknown }): Promise<A>;
}

/** A PAT or an access token: checked by the gateway's middleware before anything else. */
export const credentials: AuthStrategy<undefined> = { scheme: "credentials", authenticate: async () => undefined };

/** No credentials at all (health, the OpenAPI document, the token exchange that checks its own client). */
export const noAuth: AuthStrategy<undefined> = { scheme: "none", authenticate: async () => undefined };
