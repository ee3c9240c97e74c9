// The pure parts of the OAuth2 client-credentials exchange: the request it
// sends, how long its answer may be reused, what an answer yields, and the
// cache key a profile is stored under. The TokenCache object
// (durable-objects/token-cache.ts) does the sending and the remembering.
import { sha256Hex } from "../crypto";
import { Redactor } from "../redact";
import type { OutboundRequest } from "./types";
import { errorValue, type ErrorValue } from "../errors";

/** An `oauth2` profile with every string already resolved by the caller. */
export interface ResolvedOAuth2 {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  audience?: string;
  clientAuth: "basic" | "body";
}

export type TokenAnswer = { token: string; fresh: boolean } | { error: ErrorValue };

/** The whole exchange, one attempt, never retried: a slow token endpoint fails the request that needed it. */
export const EXCHANGE_TIMEOUT_MS = 15_000;
/** A token answer is a small JSON object; anything past this is not one. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
/** Reuse when the answer has no numeric `expires_in`. */
export const DEFAULT_REUSE_SECONDS = 300;
/** A token is given up this long before it expires, unless that leaves less than half its lifetime. */
export const REUSE_MARGIN_SECONDS = 60;
/** At most this many characters of a failed answer's body appear in the error. */
export const BODY_PREVIEW_CHARS = 200;

/**
 * Seconds a token may be reused after it was requested:
 * max(lifetime − 60, ceil(lifetime / 2)); 0 (used once, never reused) for a
 * lifetime of 1 s or less; 300 when `expires_in` is not a number.
 */
export function reuseSeconds(expiresIn: unknown): number {
  if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn)) return DEFAULT_REUSE_SECONDS;
  if (expiresIn <= 1) return 0;
  return Math.max(expiresIn - REUSE_MARGIN_SECONDS, Math.ceil(expiresIn / 2));
}

/** application/x-www-form-urlencoded encoding of one value, as URLSearchParams writes it (RFC 6749 2.3.1). */
function formEncoded(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}

/** The `Authorization` value of `clientAuth: basic`: the form-encoded id and secret, base64. */
export function basicCredential(profile: ResolvedOAuth2): string {
  return `Basic ${btoa(`${formEncoded(profile.clientId)}:${formEncoded(profile.clientSecret)}`)}`;
}

/** The form: `grant_type` plus `scope`/`audience` when set; the client's id and secret only with `clientAuth: body`. */
export function exchangeForm(profile: ResolvedOAuth2): string {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (profile.scope !== undefined) form.set("scope", profile.scope);
  if (profile.audience !== undefined) form.set("audience", profile.audience);
  if (profile.clientAuth === "body") {
    form.set("client_id", profile.clientId);
    form.set("client_secret", profile.clientSecret);
  }
  return form.toString();
}

/** The token request: a POST whose 3xx is an answer (a redirect is a failure, never followed with the credentials). */
export function exchangeRequest(profile: ResolvedOAuth2, timeoutMs: number): OutboundRequest {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" };
  if (profile.clientAuth === "basic") headers.Authorization = basicCredential(profile);
  return {
    url: profile.tokenUrl,
    method: "POST",
    headers,
    body: exchangeForm(profile),
    redirect: "manual",
    timeoutMs,
    maxResponseBytes: MAX_TOKEN_RESPONSE_BYTES,
  };
}

/** What a token answer yields: the token and its reuse, or why it is not usable. */
export type TokenReading = { token: string; reuseSeconds: number } | { reason?: string };

/** Usable: a 2xx whose JSON body has a non-empty string `access_token`. */
export function readTokenAnswer(status: number, body: string): TokenReading {
  // Often an http:// token URL answered by its https:// twin: the reason says where to look.
  if (status >= 300 && status <= 399) return { reason: "the token endpoint redirected; redirects are not followed" };
  if (status < 200 || status > 299) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { reason: "the token endpoint's answer is not JSON" };
  }
  const token = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).access_token : undefined;
  if (typeof token !== "string" || token === "") return { reason: "the token endpoint's answer has no access_token" };
  return { token, reuseSeconds: reuseSeconds((parsed as Record<string, unknown>).expires_in) };
}

// A token value in a JSON answer (`"access_token": "..."`) or a form-encoded one (`access_token=...`): prefix, value.
const TOKEN_VALUES = [/("(?:access_token|refresh_token|id_token)"\s*:\s*")((?:[^"\\]|\\.)*)/g, /(\b(?:access_token|refresh_token|id_token)=)([^&\s"]*)/g];

/**
 * At most 200 characters of a failed answer with every credential replaced by
 * `***`: the client secret as sent (raw, form- and URI-encoded, JSON-escaped,
 * inside the Basic header) and every token value, wherever they occur (by the
 * redactor that keeps credentials out of run records) and, however short,
 * where the answer names them. Redacted before it is cut, so a cut never
 * leaves part of a secret.
 */
export function bodyPreview(body: string, profile: ResolvedOAuth2): string {
  const secret = profile.clientSecret;
  const redactor = new Redactor([
    secret,
    formEncoded(secret),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    basicCredential(profile).slice("Basic ".length),
  ]);
  for (const pattern of TOKEN_VALUES) for (const match of body.matchAll(pattern)) redactor.conceal(match[2]);
  let preview = redactor.text(body);
  for (const pattern of TOKEN_VALUES) preview = preview.replace(pattern, "$1***");
  return preview.slice(0, BODY_PREVIEW_CHARS);
}

/** The token URL as errors show it: origin and path, never its query (it may carry a credential). */
export function shownTokenUrl(tokenUrl: string): string {
  try {
    const url = new URL(tokenUrl);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "";
  }
}

/** `HTTP_AUTH_TOKEN_EXCHANGE_FAILED`; `status` 0 when no answer came. */
export function exchangeFailed(profile: ResolvedOAuth2, status: number, bodyText: string, reason?: string): ErrorValue {
  const tokenUrl = shownTokenUrl(profile.tokenUrl);
  return errorValue(
    {
      code: "HTTP_AUTH_TOKEN_EXCHANGE_FAILED",
      status,
      token_url: tokenUrl,
      ...(reason === undefined ? {} : { reason }),
      body_preview: bodyPreview(bodyText, profile),
    },
    `The OAuth2 token exchange with ${tokenUrl} failed${status ? ` (status ${status})` : ""}${reason ? `: ${reason}` : ""}`,
  );
}

/**
 * The cache key: SHA-256 of a canonical JSON of the six fields that make a
 * token (a fixed-order array, absent fields as null), so an object's name
 * never carries the secret and any change starts a fresh entry.
 */
export function cacheKey(profile: ResolvedOAuth2): Promise<string> {
  const { tokenUrl, clientId, clientSecret, scope, audience, clientAuth } = profile;
  return sha256Hex(JSON.stringify([tokenUrl, clientId, clientSecret, scope ?? null, audience ?? null, clientAuth]));
}
