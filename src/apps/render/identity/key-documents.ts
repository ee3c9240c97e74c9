// The documents identity tokens are verified against: an oidc provider's
// JWKS, an exchange provider's metadata document. Each is fetched through
// the one outbound client (its SSRF guard, a short timeout, a size cap) and
// kept per URL for 10 minutes; a token naming a key the kept document lacks
// fetches it again, at most once a minute per URL, so a stream of tokens
// with made-up key ids cannot turn into a stream of fetches.
//
// The cache lives in the isolate (module scope): it survives across the
// requests one isolate serves, and each isolate fills its own. Only parsed
// JSON is kept, never a promise or a response, since workerd ties those to
// the request that made them. A failed fetch is not kept: the next render
// tries again.
import { outboundFetch } from "../../../lib/outbound/client";
import type { OutboundEnv } from "../../../lib/outbound/types";
import { unauthorized } from "./refusal";

/** How long a fetched document is used. */
export const DOCUMENT_TTL_MS = 10 * 60_000;
/** The least time between two fetches of one URL caused by an unknown key. */
export const REFETCH_INTERVAL_MS = 60_000;
/** A key document answers quickly or the render is refused: a host is waiting. */
const FETCH_TIMEOUT_MS = 5_000;
/** JWKS and metadata documents are a few keys; anything far larger is not one. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** Bounded, oldest out: an isolate serves many providers. */
const MAX_DOCUMENTS = 500;

interface Kept {
  document: unknown;
  fetchedAt: number;
}

const kept = new Map<string, Kept>();

async function fetchDocument(url: string, env: OutboundEnv, now: number): Promise<Kept> {
  let document: unknown;
  try {
    const res = await outboundFetch({ url, method: "GET", headers: { Accept: "application/json" }, redirect: "follow", timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_DOCUMENT_BYTES }, env);
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
    document = JSON.parse(new TextDecoder().decode(res.body));
  } catch {
    // Why it failed (refused, timed out, too large, not JSON) is the provider's business, not the host's.
    throw unauthorized("The identity token's signing keys could not be fetched");
  }
  const entry = { document, fetchedAt: now };
  kept.delete(url);
  kept.set(url, entry);
  if (kept.size > MAX_DOCUMENTS) kept.delete(kept.keys().next().value!);
  return entry;
}

/**
 * The key `pick` finds in the document at `url`, from the kept copy while it
 * is fresh; undefined when even a copy fetched now (or within the last
 * minute) lacks it. 401 when the document cannot be fetched.
 */
export async function findKey<K>(url: string, env: OutboundEnv, now: number, pick: (document: unknown) => K | undefined): Promise<K | undefined> {
  let entry = kept.get(url);
  if (!entry || now - entry.fetchedAt >= DOCUMENT_TTL_MS) entry = await fetchDocument(url, env, now);
  const key = pick(entry.document);
  if (key !== undefined || now - entry.fetchedAt < REFETCH_INTERVAL_MS) return key;
  return pick((await fetchDocument(url, env, now)).document);
}
