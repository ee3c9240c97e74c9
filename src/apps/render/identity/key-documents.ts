// The documents identity tokens are verified against: an oidc provider's
// JWKS, an exchange provider's metadata document. Each is fetched through
// the one outbound client (its SSRF guard, a short timeout, a size cap) and
// kept per URL for 10 minutes; a token naming a key the kept document lacks
// fetches it again, at most once a minute per URL, so a stream of tokens
// with made-up key ids cannot turn into a stream of fetches.
//
// The URL comes partly from the unverified token (oidc's `{tid}`, exchange's
// `amurl`), so a caller holding nothing could make the service fetch a new
// URL per request. Two bounds hold that (docs/apps.md, "Verifying identity
// tokens"):
// - A budget of 10 distinct URLs per integration per minute, counted by the
//   RateLimiter Durable Object (key `key-documents:<integration id>`): one
//   count for every isolate, where a per-isolate bound would multiply by the
//   isolates serving the integration. It is consulted only before a fetch,
//   which the cache below makes rare, so a render from a kept document costs
//   no round trip.
// - A failed fetch is remembered for 60 seconds: renders needing that URL
//   are refused without asking the key server again.
//
// Documents and failures are kept in the isolate (module scope): they
// survive across the requests one isolate serves, and each isolate fills
// its own. Only parsed JSON is kept, never a promise or a response, since
// workerd ties those to the request that made them.
import { outboundFetch } from "../../../lib/outbound/client";
import type { OutboundEnv } from "../../../lib/outbound/types";
import type { RateLimits } from "../../../lib/ratelimit/interface";
import { refused } from "./refusal";

/** How long a fetched document is used. */
export const DOCUMENT_TTL_MS = 10 * 60_000;
/** The least time between two fetches of one URL caused by an unknown key. */
export const REFETCH_INTERVAL_MS = 60_000;
/** How long a URL whose fetch failed is refused without a fetch. */
const FAILURE_TTL_MS = 60_000;
/** Distinct URLs one integration may have fetched per window. */
const FETCH_BUDGET = { limit: 10, windowSeconds: 60 };
/** A key document answers quickly or the render is refused: a host is waiting. */
const FETCH_TIMEOUT_MS = 5_000;
/** JWKS and metadata documents are a few keys; anything far larger is not one. */
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** Bounded, oldest out: an isolate serves many providers. */
const MAX_ENTRIES = 500;

/** What a key document is fetched with and for whom. */
export interface KeyDocumentDeps {
  env: OutboundEnv;
  rateLimits: RateLimits;
  /** The integration whose fetch budget a fetch spends. */
  integrationId: string;
  now: number;
}

interface Kept {
  document: unknown;
  fetchedAt: number;
}

const kept = new Map<string, Kept>();
/** When a URL's last fetch failed. */
const failed = new Map<string, number>();

function remember<V>(map: Map<string, V>, url: string, value: V): void {
  map.delete(url);
  map.set(url, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

async function fetchDocument(url: string, deps: KeyDocumentDeps): Promise<Kept> {
  const failedAt = failed.get(url);
  if (failedAt !== undefined && deps.now - failedAt < FAILURE_TTL_MS) throw refused("key document failed within the last minute");
  const budget = await deps.rateLimits.consume({ key: `key-documents:${deps.integrationId}`, member: url, ...FETCH_BUDGET });
  if (!budget.allowed) throw refused("key document fetch budget spent");
  let document: unknown;
  try {
    const res = await outboundFetch(
      { url, method: "GET", headers: { Accept: "application/json" }, redirect: "follow", timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_DOCUMENT_BYTES },
      deps.env,
    );
    if (res.status !== 200) throw new Error(`answered ${res.status}`);
    document = JSON.parse(new TextDecoder().decode(res.body));
  } catch {
    // Why it failed (refused, timed out, too large, not JSON) is the provider's business, not the host's.
    remember(failed, url, deps.now);
    throw refused("key document fetch failed");
  }
  failed.delete(url);
  const entry = { document, fetchedAt: deps.now };
  remember(kept, url, entry);
  return entry;
}

/**
 * The key `pick` finds in the document at `url`, from the kept copy while it
 * is fresh; undefined when even a copy fetched now (or within the last
 * minute) lacks it. 401 when the document cannot be fetched, its URL failed
 * within the last minute, or the integration's fetch budget is spent.
 */
export async function findKey<K>(url: string, deps: KeyDocumentDeps, pick: (document: unknown) => K | undefined): Promise<K | undefined> {
  let entry = kept.get(url);
  if (!entry || deps.now - entry.fetchedAt >= DOCUMENT_TTL_MS) entry = await fetchDocument(url, deps);
  const key = pick(entry.document);
  if (key !== undefined || deps.now - entry.fetchedAt < REFETCH_INTERVAL_MS) return key;
  return pick((await fetchDocument(url, deps)).document);
}
