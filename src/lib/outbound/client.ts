// The one outbound HTTP client (types.ts says who uses it). The platform
// fetch never follows redirects itself: each hop is checked by the guard
// before anything is sent to it, and the rules for what a hop keeps (method,
// body, credentials) are applied here, as the Fetch standard applies them.
import { checkUrl } from "./guard";
import { OutboundError, type OutboundEnv, type OutboundRequest, type OutboundResponse } from "./types";

/** Redirects followed under `follow`; the sixth fails with `redirects`. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Dropped when a hop crosses origin: the next origin is not who they were meant for. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Dropped with the body when a redirect turns the request into a GET (the Fetch standard's request-body headers). */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];

/**
 * Sends `req`, following redirects under `follow`. A request no server could
 * be sent (an invalid header name or value, a body on GET or HEAD) is the
 * caller's bug, not an outbound failure: it throws a TypeError before
 * anything is resolved or sent.
 */
export async function outboundFetch(req: OutboundRequest, env: OutboundEnv): Promise<OutboundResponse> {
  const headers = new Headers(req.headers);
  if (req.body !== undefined && (req.method === "GET" || req.method === "HEAD")) throw new TypeError(`a ${req.method} request cannot carry a body`);
  const deadline = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The race ends the attempt at `timeoutMs` even if some step ignored the abort.
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new OutboundError("timeout", `no complete answer within ${req.timeoutMs} ms`);
      deadline.abort(e);
      reject(e);
    }, req.timeoutMs);
  });
  try {
    return await Promise.race([exchange(req, headers, env, deadline.signal), expired]);
  } catch (e) {
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (e instanceof OutboundError) throw e;
    throw new OutboundError("connection", `the connection failed (${String(e instanceof Error ? e.message : e).slice(0, 200)})`);
  } finally {
    clearTimeout(timer);
  }
}

async function exchange(req: OutboundRequest, headers: Headers, env: OutboundEnv, signal: AbortSignal): Promise<OutboundResponse> {
  let url = await checkUrl(req.url, env, signal);
  let method = req.method;
  let body = req.body;
  for (let hops = 0; ; hops++) {
    const res = await fetch(url, { method, headers, body, redirect: "manual", signal });
    if (req.redirect === "manual" || !REDIRECT_STATUSES.has(res.status)) return answer(res, url, req.maxResponseBytes);
    await res.body?.cancel();
    const location = res.headers.get("location");
    if (location === null) throw new OutboundError("redirects", `a ${res.status} redirect without a Location header`);
    if (hops === MAX_REDIRECTS) throw new OutboundError("redirects", `more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new OutboundError("redirects", `a ${res.status} redirect to an unusable Location`);
    }
    if ((res.status === 303 && method !== "GET" && method !== "HEAD") || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    url = await checkUrl(next.href, env, signal);
  }
}

async function answer(res: Response, url: URL, maxBytes: number): Promise<OutboundResponse> {
  const headers: Record<string, string> = {};
  // Iteration may yield `set-cookie` once per value: joined like the rest.
  for (const [name, value] of res.headers) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  return { status: res.status, headers, body: await readCapped(res, maxBytes), url: url.href };
}

/** The body, read no further than one chunk past `maxBytes`; `too-large` past it. */
async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new OutboundError("too-large", `the response body is larger than ${maxBytes} bytes`);
  if (!res.body) return new Uint8Array(0);
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body.cancel();
    throw tooLarge();
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
