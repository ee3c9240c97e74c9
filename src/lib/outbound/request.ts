// What every configured outbound request shares (the workflow actions
// `http`, `httpCallback` and `llmCallback`; an app's `$http` source): the
// request knobs and their ranges, building the request from a config,
// sending it with its credentials (an OAuth2 token refused with 401 is
// refreshed once), the answer as a result, and when a failed attempt is
// tried again.
import { AUTH_PROFILE_SCHEMA } from "./profile-schema";
import { outboundFetch } from "./client";
import { outboundRunError } from "./errors";
import { backoffDelay } from "../backoff";
import { isRetryable } from "./retry";
import { OutboundError, type OutboundEnv, type OutboundResponse } from "./types";
import { authorize, type Credentials, type ProfileContext } from "./auth-profiles";
import { credentialsFor, type ProfileSource } from "./profiles";
import { errorValue, type ErrorValue } from "../errors";
import type { Accepted } from "../validate";

/** What a request needs from its caller: the profiles it may name, the tenant's token cache, the masking of credentials, the time. */
export interface OutboundContext extends ProfileSource, ProfileContext {
  env: OutboundEnv & ProfileContext["env"];
  now(): number;
}

/** A response body larger than this fails the request (a run would keep it as state; a render, in memory). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export const DEFAULTS = { method: "GET", timeoutMs: 115_000, maxRetries: 2, initialRetryDelayMs: 15_000, maxRetryDelayMs: 60_000, redirect: "follow" } as const;

/** A header name is an HTTP token; a value has no line breaks or NUL (fetch would throw on either). */
const headerValue = { type: ["string", "number", "boolean"], pattern: "^[^\\r\\n\\u0000]*$" } as const;
const scalar = { type: ["string", "number", "boolean"] } as const;

/** The knobs every outbound action takes, with their ranges: a templated knob out of range fails the action with its path. */
export const knobProperties = {
  timeoutMs: { type: "integer", minimum: 1000, maximum: 115_000 },
  maxRetries: { type: "integer", minimum: 0, maximum: 5 },
  initialRetryDelayMs: { type: "integer", minimum: 0 },
  maxRetryDelayMs: { type: "integer", minimum: 0 },
} as const;

/** The request fields every outbound action takes. */
export const requestProperties = {
  url: { type: "string", minLength: 1 },
  headers: { type: "object", propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }, additionalProperties: headerValue },
  query: { type: "object", additionalProperties: scalar },
  auth: {
    anyOf: [
      { type: "string", minLength: 1 },
      { type: "object", ...AUTH_PROFILE_SCHEMA },
    ],
  },
  ...knobProperties,
} as const;

/** The knobs as a config the schema accepted holds them. */
export type Knobs = Accepted<{ type: "object"; properties: typeof knobProperties; additionalProperties: false }>;

/** The request fields as a config the schema accepted holds them; an inline profile's fields follow its `type` (its `if`/`then` branches). */
export type RequestConfig = Accepted<{ type: "object"; required: ["url"]; properties: typeof requestProperties; additionalProperties: false }>;

/** The back-off bounds, defaults applied; a maximum below the initial delay is refused as at save. */
export function delays(config: Knobs): { initial: number; max: number } | { error: ErrorValue } {
  const initial = config.initialRetryDelayMs ?? DEFAULTS.initialRetryDelayMs;
  const max = config.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs;
  if (max < initial) {
    const line = `config.maxRetryDelayMs: must be at least initialRetryDelayMs (${initial})`;
    return { error: errorValue("VALIDATION_FAILED", "The config does not satisfy its schema", { errors: [line], validation_errors: [line] }) };
  }
  return { initial, max };
}

export function validationError(line: string): ErrorValue {
  return errorValue("VALIDATION_FAILED", "The config does not satisfy its schema", { errors: [line], validation_errors: [line] });
}

/** A request ready to send: its URL with the config's query added, its headers, and the credentials it goes with. */
export interface Prepared {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  redirect: "follow" | "manual";
  credentials?: Credentials;
}

export interface Payload {
  method: string;
  body?: string | Uint8Array;
  redirect?: "follow" | "manual";
  /** Sent as Content-Type unless the config's headers set one (in any case). */
  contentType?: string;
}

/**
 * Builds the request and checks its auth against it; an error outcome's error
 * when either is refused. A request other than GET and HEAD carries
 * `idempotencyKey` as `Idempotency-Key` (unless the config sets that
 * header): a workflow action's is the same on every attempt, so a target
 * deduplicating by it applies the action once. GET and HEAD change nothing
 * to deduplicate.
 */
export async function prepare(
  config: RequestConfig,
  payload: Payload,
  ctx: OutboundContext,
  idempotencyKey: string,
): Promise<Prepared | { error: ErrorValue }> {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return { error: validationError(`config.url: ${JSON.stringify(config.url.slice(0, 200))} is not an absolute URL`) };
  }
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const query = Object.fromEntries(Object.entries(config.query ?? {}).map(([k, v]) => [k, String(v)]));
  const auth = await credentialsFor(config.auth, { headers, query, url }, ctx);
  if ("error" in auth) return auth;
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (payload.contentType && !has("content-type")) headers["Content-Type"] = payload.contentType;
  if (!has("idempotency-key") && payload.method !== "GET" && payload.method !== "HEAD") headers["Idempotency-Key"] = idempotencyKey;
  // The config's parameters join the URL's own query, after it.
  for (const [k, v] of Object.entries(query)) url.searchParams.append(k, v);
  return { url, method: payload.method, headers, body: payload.body, redirect: payload.redirect ?? DEFAULTS.redirect, credentials: auth.credentials };
}

export type Sent = { response: OutboundResponse } | { failure: OutboundError } | { error: ErrorValue };

/**
 * One attempt: the request with its credentials. A 401 to a reused OAuth2
 * token refreshes it (the cache replaces the refused one) and sends once
 * more, unless `resend` is false (a body that must not go twice); a 401 to
 * a token minted for this very send is the target's answer.
 */
export async function send(req: Prepared, knobs: Knobs, ctx: OutboundContext, resend = true): Promise<Sent> {
  let auth = await authorize(req.credentials, ctx);
  if ("error" in auth) return auth;
  let sent = await sendOnce(req, auth.headers, auth.query, knobs, ctx);
  if (!("response" in sent) || sent.response.status !== 401 || !auth.token || auth.token.fresh) return sent;
  auth = await authorize(req.credentials, ctx, auth.token.value);
  if ("error" in auth) return auth;
  if (resend) sent = await sendOnce(req, auth.headers, auth.query, knobs, ctx);
  return sent;
}

async function sendOnce(req: Prepared, authHeaders: Record<string, string>, authQuery: [string, string][], knobs: Knobs, ctx: OutboundContext): Promise<Sent> {
  const url = new URL(req.url);
  for (const [k, v] of authQuery) url.searchParams.append(k, v);
  try {
    const response = await outboundFetch(
      {
        url: url.href,
        method: req.method,
        headers: { ...req.headers, ...authHeaders },
        body: req.body,
        redirect: req.redirect,
        timeoutMs: knobs.timeoutMs ?? DEFAULTS.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
      },
      ctx.env,
    );
    return { response };
  } catch (e) {
    if (e instanceof OutboundError) return { failure: e };
    throw e;
  }
}

/**
 * When a failed attempt is tried again (epoch ms), if it is: on 408, 425,
 * 429, 5xx and a failed connection (never a timeout), while this attempt is
 * within `maxRetries`, after the back-off.
 */
export function retryAt(
  sent: Sent,
  attempt: number,
  knobs: Knobs,
  bounds: { initial: number; max: number },
  ctx: Pick<OutboundContext, "now">,
): number | undefined {
  if ("error" in sent) return undefined;
  const retryable = "failure" in sent ? isRetryable(sent.failure) : isRetryable(sent.response);
  if (!retryable || attempt > (knobs.maxRetries ?? DEFAULTS.maxRetries)) return undefined;
  return ctx.now() + backoffDelay(attempt, bounds.initial, bounds.max);
}

/** A send that produced no answer, as the action's error (credentials masked). */
export function failureError(sent: { failure: OutboundError } | { error: ErrorValue }, ctx: Pick<OutboundContext, "redact">): ErrorValue {
  return ctx.redact("error" in sent ? sent.error : outboundRunError(sent.failure));
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** A response as a result: `{ status, headers, body }`, the body parsed when it says JSON, else text. */
export function responseResult(
  response: OutboundResponse,
  ctx: Pick<OutboundContext, "redact">,
): { status: number; headers: Record<string, string>; body: unknown } {
  const text = new TextDecoder().decode(response.body);
  let body: unknown = text;
  if (JSON_TYPE.test(response.headers["content-type"] ?? "") && text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  // A target echoing what it was sent gives credentials back: masked before they become state.
  return ctx.redact({ status: response.status, headers: response.headers, body });
}

/** At most this many characters of a body appear in an error. */
export const BODY_PREVIEW_CHARS = 200;

export function bodyPreview(response: OutboundResponse, ctx: Pick<OutboundContext, "redact">): string {
  return ctx.redact(new TextDecoder().decode(response.body.slice(0, 4 * BODY_PREVIEW_CHARS)).slice(0, BODY_PREVIEW_CHARS));
}
