// Refuses bodies over their route's limit before anything reads them: by
// Content-Length when declared, else by counting the streamed bytes. It also
// owns the body's end: whatever the answer, the part nobody read is read and
// thrown away before the response goes out.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../lib/errors";
import type { HonoEnv } from "./env";

const MiB = 1024 * 1024;

/**
 * How much of an unread body is read to be thrown away; past it the stream is
 * cancelled, which cuts the connection. It covers the largest route limit
 * twice over, so every body a client sends in good faith is drained.
 */
const DISCARD_LIMIT_BYTES = 64 * MiB;

function tooLarge(limit: number): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `Request body exceeds ${limit} bytes`, { limit });
}

/**
 * The body as the handler sees it (erroring with 413 past `limit`), and
 * `discard`, which reads what it left. workerd cannot read a request body
 * once the response is sent, and under `wrangler dev` a body left half read
 * (an early 4xx, a stream errored by the limit, or a cancel) stalls the local
 * proxy: the next request from anyone hangs or answers 503 "Your worker
 * restarted mid-request". Only a body read to its end is safe there.
 */
function meteredBody(source: ReadableStream<Uint8Array>, limit: number) {
  const reader = source.getReader();
  let seen = 0;
  let ended = false;
  const read = async () => {
    const chunk = await reader.read();
    if (chunk.done) ended = true;
    return chunk;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await read();
        if (done) return controller.close();
        seen += value.byteLength;
        if (seen > limit) controller.error(tooLarge(limit));
        else controller.enqueue(value);
      },
    },
    // Nothing is read ahead: a body no handler asks for stays untouched until discard.
    { highWaterMark: 0 },
  );
  const discard = async () => {
    try {
      let thrown = 0;
      while (!ended) {
        if (thrown > DISCARD_LIMIT_BYTES) return await reader.cancel();
        const { value } = await read();
        thrown += value?.byteLength ?? 0;
      }
    } catch {
      // the client went away: nothing is left to read
    }
  };
  return { body, discard };
}

/**
 * `declaredLimit` gives the limit the route a method and path reach declares
 * (route.ts `bodyLimit`), if any; the rest get BODY_LIMIT_BYTES. It runs
 * before the rate limits and authentication, so an oversized body costs nothing.
 */
export function bodyLimit(declaredLimit: (method: string, path: string) => number | undefined): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const limit = declaredLimit(c.req.method, c.req.path) ?? c.var.ctx.config.bodyLimitBytes;
    const declared = raw.headers.get("Content-Length");
    // Refused unread: the platform (and wrangler dev) throws an untouched body away itself.
    if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
    const { body, discard } = meteredBody(raw.body, limit);
    c.req.raw = new Request(raw, { body, duplex: "half" } as RequestInit);
    try {
      await next();
    } finally {
      await discard();
    }
  };
}
