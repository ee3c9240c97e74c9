// Verifying a webhook call against its trigger's secret. Pure apart from
// WebCrypto: the caller hands in the request's parts and the secret.
//
// Where the signature sits (`location`): the header named `key`, the query
// parameter `key`, or the JSON body field at the dotted path `key`. How it
// is checked (`method`): `exact` (the value is the secret itself), or
// `hmac-sha256` / `hmac-sha1` (the lowercase hex HMAC of the raw body keyed
// with the whole `whsec_...` secret, optionally prefixed `sha256=` / `sha1=`).
import { sha256, timingSafeEqual } from "../../lib/crypto";

export type VerificationLocation = "header" | "query" | "body";
export type VerificationMethod = "exact" | "hmac-sha256" | "hmac-sha1";

export interface Verification {
  location: VerificationLocation;
  key: string;
  method: VerificationMethod;
}

/** The parts of a webhook call a signature can sit in or cover. */
export interface SignedRequest {
  headers: Headers;
  query: URLSearchParams;
  /** The body as parsed: JSON for a JSON content type, else text. */
  body: unknown;
  /** The body's bytes exactly as received: what an HMAC covers. */
  raw: Uint8Array;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

const HMAC = {
  "hmac-sha256": { hash: "SHA-256", prefix: "sha256=", bytes: 32 },
  "hmac-sha1": { hash: "SHA-1", prefix: "sha1=", bytes: 20 },
} as const;

const PREFIX = /^(sha1|sha256)=/i;
const encoder = new TextEncoder();

/** Where the signature is looked for, in the caller's words. */
export function describeLocation(v: Verification): string {
  if (v.location === "header") return `header ${v.key}`;
  if (v.location === "query") return `query parameter ${v.key}`;
  return `body field ${v.key}`;
}

/** The JSON value at a dotted path (`a.b.0.c`), through objects and arrays; undefined when absent. */
export function atPath(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The signature as the caller sent it, or undefined when it is missing (or, in a body, not a string). */
export function presentedSignature(v: Verification, req: SignedRequest): string | undefined {
  const found = v.location === "header" ? req.headers.get(v.key) : v.location === "query" ? req.query.get(v.key) : atPath(req.body, v.key);
  return typeof found === "string" && found !== "" ? found : undefined;
}

/** Hex of exactly `bytes` bytes as bytes, in either case; null for anything else. */
function fromHex(text: string, bytes: number): Uint8Array | null {
  if (text.length !== bytes * 2 || !/^[0-9a-f]*$/i.test(text)) return null;
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

async function hmac(hash: "SHA-256" | "SHA-1", secret: string, data: Uint8Array): Promise<Uint8Array> {
  // A key per call, never cached: secrets rotate and must not linger in the isolate.
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data));
}

/**
 * Whether the call carries a valid signature. The comparison takes the same
 * time wherever the values differ; `exact` compares digests, so not even the
 * secret's length shows. A refusal says why, never what was expected.
 */
export async function verifySignature(v: Verification, secret: string, req: SignedRequest): Promise<Verdict> {
  const where = describeLocation(v);
  const presented = presentedSignature(v, req);
  if (presented === undefined) return { ok: false, reason: `The signature (${where}) is missing` };
  if (v.method === "exact") {
    const [given, expected] = await Promise.all([sha256(presented), sha256(secret)]);
    return timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: `The signature (${where}) does not match the trigger's secret` };
  }
  const spec = HMAC[v.method];
  let hex = presented;
  const prefix = PREFIX.exec(presented)?.[0];
  if (prefix) {
    if (prefix.toLowerCase() !== spec.prefix)
      return { ok: false, reason: `The signature (${where}) is prefixed ${prefix} but the trigger verifies ${v.method}` };
    hex = presented.slice(prefix.length);
  }
  const expected = await hmac(spec.hash, secret, req.raw);
  const given = fromHex(hex, spec.bytes);
  // Compared even when malformed, so a malformed signature costs what a wrong one does.
  const matches = timingSafeEqual(given ?? new Uint8Array(spec.bytes), expected) && given !== null;
  return matches
    ? { ok: true }
    : { ok: false, reason: `The signature (${where}) is not the ${v.method} of the body as hex${given ? "" : ` (${spec.bytes * 2} hex digits expected)`}` };
}
