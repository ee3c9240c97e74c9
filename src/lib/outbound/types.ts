// The one outbound HTTP client's vocabulary (client.ts implements it): what
// callers ask for, what they get, and how it fails. Workflow actions (`http`,
// `httpCallback`, `llmCallback`), the OAuth2 token exchange and the app
// renderer's `$http` sources all go through it, so every request meets the
// same guard (guard.ts) on its URL and on every redirect hop.

export interface OutboundRequest {
  url: string;
  /** Upper case: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS. */
  method: string;
  /** Sent as given (names in any case); `Authorization` and `Cookie` are dropped when a redirect crosses origins. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** `follow` (up to 5 hops; a sixth fails) or `manual` (the 3xx is the answer). */
  redirect: "follow" | "manual";
  /** Per attempt: the whole exchange, redirects included, must end within it. */
  timeoutMs: number;
  /** A response body longer than this fails with `too-large` (the body is read up to it, no further). */
  maxResponseBytes: number;
}

export interface OutboundResponse {
  status: number;
  /** Lowercase names; repeated headers joined by `, ` (`set-cookie` too). */
  headers: Record<string, string>;
  body: Uint8Array;
  /** The URL that answered (after redirects). */
  url: string;
}

/**
 * Why a request produced no response. `refused`: the guard refused the URL
 * or a redirect hop, and nothing was sent to it. `unresolved`: the host name
 * has no address. `timeout`: `timeoutMs` passed. `connection`: the
 * connection failed or broke. `redirects`: a sixth hop, or a 3xx without a
 * usable Location under `follow`. `too-large`: the body passed `maxResponseBytes`.
 */
export type OutboundFailureKind = "refused" | "unresolved" | "timeout" | "connection" | "redirects" | "too-large";

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    /** Says why, without any header or body of the request (no credential can leak through it). */
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The bindings the client reads. */
export interface OutboundEnv {
  /** DNS-over-HTTPS JSON endpoint names are resolved through. */
  OUTBOUND_DNS_URL: string;
  /** Tests only: comma-separated `address:port` pairs let through. */
  OUTBOUND_ALLOWLIST: string;
}
