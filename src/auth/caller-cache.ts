// The isolate's cache of verified callers: what a credential's lookup found
// (the token, its tenant and user, its permissions at the tenant's access
// version), so that a request presenting the same credential again within a
// minute runs no lookup of its own. An entry is never trusted on its own: a
// request that uses one sends the guard (migrations/0020,
// platform_assert_caller) ahead of its first statement, in that statement's
// round trip (db/client.ts Precondition), and the gateway authenticates the
// request again without the cache when the guard is refused
// (auth/authenticate.ts). docs/architecture.md, "Who is calling, and what
// it costs", has the whole design.
//
// Keys never hold a secret: a PAT's is its client id and the SHA-256 of the
// secret presented (a wrong secret is another key, so it misses and the
// lookup refuses it), an access token's the tenant and API token it names
// (its signature and expiry are checked on every request, locally).
import { Precondition } from "../db/client";
import type { Principal } from "../lib/principal";
import { toHex } from "../lib/crypto";
import { isUuid } from "../lib/ids";

/** The SQLSTATE platform_assert_caller raises when a cached caller no longer holds. */
export const CALLER_REFUSED = "PC401";

/** How long an entry serves; the guard decides each use, this bounds how long an unused one lingers. */
export const CALLER_TTL_MS = 60_000;
/** Entries an isolate keeps, least recently used out first. */
const MAX_ENTRIES = 5000;

interface Entry {
  principal: Principal;
  /** The token's expires_at (ms), compared with each request's clock, as the lookup does. */
  tokenExpiresAt: number | null;
  storedAt: number;
}

const entries = new Map<string, Entry>();

export const patKey = (clientId: string, secretHash: Uint8Array) => `pat:${clientId}:${toHex(secretHash)}`;
export const accessTokenKey = (tenantId: string, tokenId: string) => `jwt:${tenantId}:${tokenId}`;

/** The principal stored under `key`, while its bounds hold at `now`. */
export function cachedCaller(key: string, now: number): Principal | undefined {
  const entry = entries.get(key);
  if (!entry) return undefined;
  // A clock that went back (a test's) is not trusted to say the entry is young.
  const stale = now < entry.storedAt || now - entry.storedAt >= CALLER_TTL_MS || (entry.tokenExpiresAt !== null && entry.tokenExpiresAt <= now);
  entries.delete(key);
  if (stale) return undefined;
  entries.set(key, entry);
  return entry.principal;
}

export function rememberCaller(key: string, principal: Principal, tokenExpiresAt: number | null, now: number): void {
  entries.delete(key);
  entries.set(key, { principal, tokenExpiresAt, storedAt: now });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}

export function forgetCaller(key: string): void {
  entries.delete(key);
}

/** How many entries the isolate holds (tests). */
export function cachedCallerCount(): number {
  return entries.size;
}

/**
 * What must hold ahead of the request's first statement for a cached
 * principal to act at `now` (the request's clock): its token the tenant's,
 * not revoked and unexpired, its user active, and the tenant's access version
 * the one its permissions were computed at. The values are inlined (a prefix
 * statement takes no parameters): two UUIDs, an integer and an instant,
 * checked or formatted here.
 */
export function callerGuard(principal: Principal, now: number): Precondition {
  const { tokenId, tenantId, accessVersion } = principal;
  if (!isUuid(tokenId) || !isUuid(tenantId) || !Number.isInteger(accessVersion)) throw new Error("a cached caller with malformed ids");
  const at = new Date(now).toISOString();
  return new Precondition(`SELECT platform_assert_caller('${tokenId}'::uuid, '${tenantId}'::uuid, ${accessVersion}, '${at}'::timestamptz)`, CALLER_REFUSED);
}
