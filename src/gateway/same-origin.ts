// A POST that a page of another site must not be able to make in the
// caller's name. A browser re-sends Basic credentials it has cached to any
// page's form post, and a form can send text/plain, urlencoded or multipart
// bodies to any origin without asking; it cannot send application/json
// there without a CORS preflight, which this service never grants for these
// routes. So such a route takes only application/json and refuses an Origin
// other than the service's own, before the credentials are read.
import type { Context, MiddlewareHandler } from "hono";
import type { HonoEnv } from "./env";
import { ApiError } from "../lib/errors";

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Where the service is reached: the request's own origin, and PUBLIC_URL's when set (a proxy in front may rewrite the first). */
function ownOrigins(c: Context<HonoEnv>): string[] {
  const own = [new URL(c.req.url).origin];
  if (c.env.PUBLIC_URL) {
    try {
      own.push(new URL(c.env.PUBLIC_URL).origin);
    } catch {
      // A PUBLIC_URL that is no URL names no origin to admit.
    }
  }
  return own;
}

/**
 * 403 for an Origin that is not the service's own (a request without one,
 * from a server or a same-origin GET-like client, is not a browser's
 * cross-site post); 415 for a body, or a Content-Type, other than
 * application/json. A POST with neither body nor Content-Type passes.
 */
export const jsonFromOwnOrigin: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && !ownOrigins(c).includes(origin)) {
    throw new ApiError("FORBIDDEN", `Origin ${origin} is not this service's own: this route is called from the service's pages or from a server`, { origin });
  }
  const type = c.req.header("Content-Type");
  const sent = c.req.raw.body !== null && c.req.header("Content-Length") !== "0";
  if (type !== undefined ? !JSON_TYPE.test(type) : sent) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "This route takes only an application/json body", { content_type: type ?? null });
  }
  await next();
};
