// What the outbound actions (`http`, `httpCallback`, `llmCallback`) share:
// the request knobs and their ranges, building the request from a config,
// sending it with its credentials (an OAuth2 token refused with 401 is
// refreshed once), the answer as a result, and when a failed attempt is
// tried again.
import type { AuthProfile } from "../../../definition/language/workflow-schema";
import { WORKFLOW_LANGUAGE_SCHEMA } from "../../../definition/language/workflow-schema";
import { outboundFetch } from "../../../lib/outbound/client";
import { outboundRunError } from "../../../lib/outbound/errors";
import { backoffDelay } from "../../../lib/backoff";
import { isRetryable } from "../../../lib/outbound/retry";
import { OutboundError, type OutboundResponse } from "../../../lib/outbound/types";
import type { JsonSchema } from "../../../lib/validate";
import type { ActionOutcome } from "../../engine/types";
import type { ActionContext } from "../types";
import { authorize, type Credentials } from "../../../lib/outbound/auth-profiles";
import { credentialsFor } from "./profiles";
import { errorValue, type ErrorValue } from "../../../lib/errors";

/** A response body larger than this fails the action (it would become part of the run's state). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export const DEFAULTS = { method: "GET", timeoutMs: 115_000, maxRetries: 2, initialRetryDelayMs: 15_000, maxRetryDelayMs: 60_000, redirect: "follow" } as const;

/** A header name is an HTTP token; a value has no line breaks or NUL (fetch would throw on either). */
const headerValue: JsonSchema = { type: ["string", "number", "boolean"], pattern: "^[^\\r\\n\\u0000]*$" };
const scalar: JsonSchema = { type: ["string", "number", "boolean"] };

/** The knobs every outbound action takes, with their ranges: a templated knob out of range fails the action with its path. */
export const knobProperties: Record<string, JsonSchema> = {
  timeoutMs: { type: "integer", minimum: 1000, maximum: 115_000 },
  maxRetries: { type: "integer", minimum: 0, maximum: 5 },
  initialRetryDelayMs: { type: "integer", minimum: 0 },
  maxRetryDelayMs: { type: "integer", minimum: 0 },
};

/** The request fields every outbound action takes. */
export const requestProperties: Record<"url" | "headers" | "query" | "auth", JsonSchema> & Record<string, JsonSchema> = {
  url: { type: "string", minLength: 1 },
  headers: { type: "object", propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }, additionalProperties: headerValue },
  query: { type: "object", additionalProperties: scalar },
  auth: {
    anyOf: [
      { type: "string", minLength: 1 },
      { type: "object", ...(WORKFLOW_LANGUAGE_SCHEMA.$defs.profile as unknown as JsonSchema) },
    ],
  },
  ...knobProperties,
};

export interface Knobs {
  timeoutMs?: number;
  maxRetries?: number;
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
}

export interface RequestConfig extends Knobs {
  url: string;
  headers?: Record<string, string | number | boolean>;
  query?: Record<string, string | number | boolean>;
  auth?: string | AuthProfile;
}

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
 * when either is refused. It carries the action's idempotency key as
 * `Idempotency-Key` (unless the config sets that header): the same on every
 * attempt of the action, so a target deduplicating by it applies the action once.
 */
export async function prepare(config: RequestConfig, payload: Payload, ctx: ActionContext, idempotencyKey: string): Promise<Prepared | { error: ErrorValue }> {
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
  if (!has("idempotency-key")) headers["Idempotency-Key"] = idempotencyKey;
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
export async function send(req: Prepared, knobs: Knobs, ctx: ActionContext, resend = true): Promise<Sent> {
  let auth = await authorize(req.credentials, ctx);
  if ("error" in auth) return auth;
  let sent = await sendOnce(req, auth.headers, auth.query, knobs, ctx);
  if (!("response" in sent) || sent.response.status !== 401 || !auth.token || auth.token.fresh) return sent;
  auth = await authorize(req.credentials, ctx, auth.token.value);
  if ("error" in auth) return auth;
  if (resend) sent = await sendOnce(req, auth.headers, auth.query, knobs, ctx);
  return sent;
}

async function sendOnce(req: Prepared, authHeaders: Record<string, string>, authQuery: [string, string][], knobs: Knobs, ctx: ActionContext): Promise<Sent> {
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
 * Whether a failed attempt is tried again: on 408, 425, 429, 5xx and a failed
 * connection (never a timeout), while this attempt is within `maxRetries`.
 * The outcome then waits for the back-off as the next attempt.
 */
export function retryAfter(sent: Sent, attempt: number, knobs: Knobs, bounds: { initial: number; max: number }, ctx: ActionContext, detail?: unknown): ActionOutcome | undefined {
  if ("error" in sent) return undefined;
  const retryable = "failure" in sent ? isRetryable(sent.failure) : isRetryable(sent.response);
  if (!retryable || attempt > (knobs.maxRetries ?? DEFAULTS.maxRetries)) return undefined;
  return { kind: "wait", retry: true, until: ctx.now() + backoffDelay(attempt, bounds.initial, bounds.max), detail };
}

/** A send that produced no answer, as the action's error (credentials masked). */
export function failureError(sent: { failure: OutboundError } | { error: ErrorValue }, ctx: ActionContext): ErrorValue {
  return ctx.redact("error" in sent ? sent.error : outboundRunError(sent.failure));
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** A response as a result: `{ status, headers, body }`, the body parsed when it says JSON, else text. */
export function responseResult(response: OutboundResponse, ctx: ActionContext): { status: number; headers: Record<string, string>; body: unknown } {
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

export function bodyPreview(response: OutboundResponse, ctx: ActionContext): string {
  return ctx.redact(new TextDecoder().decode(response.body.slice(0, 4 * BODY_PREVIEW_CHARS)).slice(0, BODY_PREVIEW_CHARS));
}
