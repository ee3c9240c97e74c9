// Mounts the declared routes on the app: the same-origin check, the
// credentials and the permission check, idempotency, then the declaration's
// own validation and auth strategy around its handler. It sits beside app.ts,
// above every area, because the credentials middleware reaches auth/ and
// through it access/ and entity/; the declaration (gateway/route.ts) stays
// below them all.
import type { Context, Hono, MiddlewareHandler } from "hono";
import { requirePermission, withCredentials } from "./auth/authenticate";
import type { HonoEnv } from "./gateway/env";
import { idempotency } from "./gateway/idempotency";
import type { RouteSpec } from "./gateway/route";
import { credentials } from "./gateway/route-auth";
import { jsonFromOwnOrigin } from "./gateway/same-origin";
import { jsonBody, optionalJsonBody, queryParams } from "./lib/body";
import { pathParams } from "./lib/ids";
import { guardJson } from "./lib/input-guard";
import type { JsonSchema } from "./lib/validate";

export function mount(app: Hono<HonoEnv>, routes: RouteSpec[]): void {
  for (const spec of routes) {
    const chain: MiddlewareHandler<HonoEnv>[] = [];
    const strategy = spec.auth ?? credentials;
    // Before the credentials: a cross-site post is refused before anything of the caller is read.
    const before: MiddlewareHandler<HonoEnv>[] = spec.jsonFromOwnOrigin ? [jsonFromOwnOrigin] : [];
    if (spec.permission) chain.push(requirePermission(...spec.permission));
    if (spec.idempotent) chain.push(idempotency);
    const handler = async (c: Context<HonoEnv>) => {
      // Hono percent-decodes parameters, so `%00` arrives as NUL.
      const params = c.req.param();
      guardJson(params, { message: "Path parameters failed validation" });
      if (spec.params) pathParams(spec.params, params);
      const query = spec.query ? queryParams(c, spec.query as JsonSchema) : undefined;
      const auth = await strategy.authenticate(c, { params, query });
      const read = spec.bodyOptional ? optionalJsonBody : jsonBody;
      const body = spec.body ? await read(c, spec.body as JsonSchema) : undefined;
      return spec.handler(c, { params, body, query, auth });
    };
    // Credentials run around the rest, which runs again should a cached caller's guard be refused (auth/authenticate.ts).
    // A body documented by media type is the handler's stream to read (a JSON body is read once and kept by Hono).
    if (strategy === credentials)
      app.on([spec.method.toUpperCase()], [spec.path], ...before, withCredentials(chain, handler, { streamsBody: !!spec.documentedRequest?.content }));
    else app.on([spec.method.toUpperCase()], [spec.path], ...before, ...chain, handler);
  }
}
