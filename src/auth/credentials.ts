// Resolves an Authorization header to a Principal: PAT over Basic, or a JWT
// from POST /auth/token over Bearer. Every failure is a 401 whose
// WWW-Authenticate names both schemes, so a client learns what to send.
import { ApiError } from "../lib/errors";
import { sha256, timingSafeEqual } from "../lib/crypto";
import { isCleanText } from "../lib/input-guard";
import type { Database, Precondition, Sql } from "../db/client";
import type { Principal } from "../lib/principal";
import { verifyAccessToken } from "./jwt";
import { permissionsAt } from "../access/permissions";
import { accessTokenKey, cachedCaller, callerGuard, forgetCaller, patKey, rememberCaller } from "./caller-cache";

interface TokenRow {
  id: string;
  tenant_id: string;
  user_id: string;
  secret_hash: Uint8Array;
  expires_at: string | null;
  revoked_at: string | null;
  inherits_user_roles: boolean;
  user_active: boolean;
  access_version: number;
}

// Runs as the connecting role: a credential names its tenant, so the lookup
// cannot be tenant-scoped yet. It reads one token row, whether its user is
// active, and the tenant's access version (the permission cache's key).
const TOKEN_SELECT = `
  SELECT t.id, t.tenant_id, t.user_id, t.secret_hash, t.expires_at, t.revoked_at, t.inherits_user_roles,
         u.is_active AS user_active, coalesce(v.version, 0) AS access_version
    FROM api_tokens t
    JOIN users u ON u.id = t.user_id
    LEFT JOIN access_versions v ON v.tenant_id = t.tenant_id`;

const REALM = 'realm="platform"';
/** What every authenticated route accepts: a PAT over Basic or an access token over Bearer. */
const ROUTE_CHALLENGE = `Basic ${REALM}, Bearer ${REALM}`;
/** A Bearer token was presented and failed verification (RFC 6750 3.1). */
const INVALID_TOKEN_CHALLENGE = `${ROUTE_CHALLENGE}, error="invalid_token"`;
/** POST /auth/token authenticates its client over Basic (or with body fields, which have no challenge). */
export const CLIENT_CHALLENGE = `Basic ${REALM}`;

/** A 401 with the challenge telling the client which schemes this request could have used (RFC 7235 3.1). */
export const unauthorized = (message: string, challenge = ROUTE_CHALLENGE) => new ApiError("UNAUTHORIZED", message, {}, { "WWW-Authenticate": challenge });

export async function findTokenByClientId(sql: Sql, clientId: string): Promise<TokenRow | undefined> {
  return (await sql.query<TokenRow & Record<string, unknown>>(`${TOKEN_SELECT} WHERE t.client_id = $1`, [clientId])).rows[0];
}

async function findTokenById(sql: Sql, id: string): Promise<TokenRow | undefined> {
  return (await sql.query<TokenRow & Record<string, unknown>>(`${TOKEN_SELECT} WHERE t.id = $1`, [id])).rows[0];
}

function usable(row: TokenRow | undefined, now: number): row is TokenRow {
  return !!row && row.user_active && !row.revoked_at && (!row.expires_at || Date.parse(row.expires_at) > now);
}

async function principalOf(sql: Sql, row: TokenRow): Promise<Principal> {
  const token = { tokenId: row.id, tenantId: row.tenant_id, userId: row.user_id, inheritsUserRoles: row.inherits_user_roles };
  const { permissions, scoped } = await permissionsAt(sql, token, row.access_version);
  return { tenantId: row.tenant_id, userId: row.user_id, tokenId: row.id, permissions, scoped, identity: `token:${row.id}`, accessVersion: row.access_version };
}

/**
 * What a request made now with API token `id` of `tenantId` could do (a
 * test run acts so); null when the token is unknown, another tenant's,
 * revoked or expired, or its user is deactivated. Runs as the connecting role.
 */
export async function tokenPrincipal(sql: Sql, tenantId: string, id: string, now: number): Promise<Principal | null> {
  const row = await findTokenById(sql, id);
  return usable(row, now) && row.tenant_id === tenantId ? principalOf(sql, row) : null;
}

/** The live token row whose secret hashes to `presented`, compared in constant time. */
async function patRow(sql: Sql, clientId: string, presented: Uint8Array, now: number): Promise<TokenRow | null> {
  const row = await findTokenByClientId(sql, clientId);
  // Compare even for unknown ids, so timing does not reveal which ids exist.
  const matches = timingSafeEqual(presented, row ? new Uint8Array(row.secret_hash) : new Uint8Array(32));
  return matches && usable(row, now) ? row : null;
}

/** Checks a PAT's client id and secret: the row must exist, be live, and hash-match in constant time. */
export async function verifyPat(sql: Sql, clientId: string, clientSecret: string, now: number): Promise<Principal | null> {
  const row = await patRow(sql, clientId, await sha256(clientSecret), now);
  return row ? principalOf(sql, row) : null;
}

/** The two halves of Basic credentials around the first colon; null when they are not base64 text with a non-empty first half. */
export function parseBasic(value: string): [string, string] | null {
  let decoded: string;
  try {
    decoded = atob(value.trim());
  } catch {
    return null;
  }
  const sep = decoded.indexOf(":");
  // Postgres text cannot hold NUL; no client id or secret contains one.
  if (sep <= 0 || !isCleanText(decoded)) return null;
  return [decoded.slice(0, sep), decoded.slice(sep + 1)];
}

/** Who a request's credentials name, and how far that is proven yet. */
export interface Caller {
  principal: Principal;
  /**
   * Set when the principal came from the isolate's cache (auth/caller-cache.ts):
   * the check that must hold ahead of the request's first statement.
   */
  guard?: Precondition;
  /** Drops the cache entry the principal came from (its guard was refused). */
  forget(): void;
}

const expiry = (row: TokenRow) => (row.expires_at ? Date.parse(row.expires_at) : null);

/**
 * Resolves the Authorization header to its caller: from the isolate's cache
 * when `cache` allows and it holds the credential (then with the guard to
 * send), else by looking the token up, which refreshes the cache.
 */
export async function authenticate(database: Database, jwtSecret: string, header: string | undefined, now: number, { cache = true } = {}): Promise<Caller> {
  if (!header)
    throw unauthorized("Authorization header is required: a PAT as Basic base64(client_id:client_secret), or an access token from POST /auth/token as Bearer");
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1);
  if (space <= 0 || !value) throw unauthorized("Malformed Authorization header: expected Basic <base64 of client_id:client_secret> or Bearer <access token>");
  let key: string;
  let lookUp: (sql: Sql) => Promise<{ principal: Principal; expiresAt: number | null }>;
  if (scheme === "basic") {
    const pair = parseBasic(value);
    if (!pair) throw unauthorized("Malformed Basic credentials");
    const presented = await sha256(pair[1]);
    key = patKey(pair[0], presented);
    lookUp = async (sql) => {
      const row = await patRow(sql, pair[0], presented, now);
      if (!row) throw unauthorized("Invalid, expired or revoked API token, or its user is deactivated");
      return { principal: await principalOf(sql, row), expiresAt: expiry(row) };
    };
  } else if (scheme === "bearer") {
    const claims = await verifyAccessToken(jwtSecret, value, now);
    if (!claims) throw unauthorized("Invalid or expired access token", INVALID_TOKEN_CHALLENGE);
    key = accessTokenKey(claims.tid, claims.sub);
    lookUp = async (sql) => {
      const row = await findTokenById(sql, claims.sub);
      if (!usable(row, now) || row.tenant_id !== claims.tid) {
        throw unauthorized("The access token's API token is expired or revoked, or its user is deactivated", INVALID_TOKEN_CHALLENGE);
      }
      return { principal: await principalOf(sql, row), expiresAt: expiry(row) };
    };
  } else {
    throw unauthorized(`Unsupported authorization scheme ${scheme}: use Basic or Bearer`);
  }
  const forget = () => forgetCaller(key);
  const cached = cache ? cachedCaller(key, now) : undefined;
  if (cached) return { principal: cached, guard: callerGuard(cached, now), forget };
  try {
    const { principal, expiresAt } = await database.lookup(lookUp);
    rememberCaller(key, principal, expiresAt, now);
    return { principal, forget };
  } catch (e) {
    forget();
    throw e;
  }
}
