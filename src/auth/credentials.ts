// Resolves an Authorization header to a Principal: PAT over Basic, or a JWT
// from POST /auth/token over Bearer. Every failure is the same 401.
import { ApiError } from "../lib/errors";
import { sha256, timingSafeEqual } from "../lib/crypto";
import { isCleanText } from "../lib/input-guard";
import type { Database, Sql } from "../db/client";
import type { Principal } from "../gateway/principal";
import { verifyAccessToken } from "./jwt";

interface TokenRow {
  id: string;
  tenant_id: string;
  user_id: string;
  secret_hash: Uint8Array;
  expires_at: string | null;
  revoked_at: string | null;
  permissions: string[];
}

// Runs as the connecting role: a credential names its tenant, so the lookup
// cannot be tenant-scoped yet. It reads one token row and its role grants.
const TOKEN_SELECT = `
  SELECT t.id, t.tenant_id, t.user_id, t.secret_hash, t.expires_at, t.revoked_at,
         coalesce((SELECT array_agg(DISTINCT p ORDER BY p)
                     FROM role_bindings b
                     JOIN roles r ON r.id = b.role_id
                     CROSS JOIN unnest(r.permissions) AS p
                    WHERE b.tenant_id = t.tenant_id AND b.principal_type = 'token' AND b.principal_id = t.id), '{}') AS permissions
    FROM api_tokens t`;

export const unauthorized = (message = "Missing or invalid credentials") => new ApiError("UNAUTHORIZED", message);

export async function findTokenByClientId(sql: Sql, clientId: string): Promise<TokenRow | undefined> {
  return (await sql.query<TokenRow & Record<string, unknown>>(`${TOKEN_SELECT} WHERE t.client_id = $1`, [clientId])).rows[0];
}

async function findTokenById(sql: Sql, id: string): Promise<TokenRow | undefined> {
  return (await sql.query<TokenRow & Record<string, unknown>>(`${TOKEN_SELECT} WHERE t.id = $1`, [id])).rows[0];
}

function usable(row: TokenRow | undefined, now: number): row is TokenRow {
  return !!row && !row.revoked_at && (!row.expires_at || Date.parse(row.expires_at) > now);
}

function principalOf(row: TokenRow): Principal {
  return {
    tenantId: row.tenant_id,
    userId: row.user_id,
    tokenId: row.id,
    permissions: row.permissions,
    identity: `token:${row.id}`,
  };
}

/** Checks a PAT's client id and secret: the row must exist, be live, and hash-match in constant time. */
export async function verifyPat(sql: Sql, clientId: string, clientSecret: string): Promise<Principal | null> {
  const row = await findTokenByClientId(sql, clientId);
  const presented = await sha256(clientSecret);
  // Hash and compare even for unknown ids, so timing does not reveal which ids exist.
  const matches = timingSafeEqual(presented, row ? new Uint8Array(row.secret_hash) : new Uint8Array(32));
  return matches && usable(row, Date.now()) ? principalOf(row) : null;
}

function parseBasic(value: string): [string, string] | null {
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

export async function authenticate(database: Database, jwtSecret: string, header: string | undefined): Promise<Principal> {
  if (!header) throw unauthorized("Authorization header is required");
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1);
  if (space <= 0 || !value) throw unauthorized("Malformed Authorization header");
  if (scheme === "basic") {
    const pair = parseBasic(value);
    if (!pair) throw unauthorized("Malformed Basic credentials");
    const principal = await database.system((sql) => verifyPat(sql, pair[0], pair[1]));
    if (!principal) throw unauthorized("Invalid, expired or revoked API token");
    return principal;
  }
  if (scheme === "bearer") {
    const claims = await verifyAccessToken(jwtSecret, value);
    if (!claims) throw unauthorized("Invalid or expired access token");
    const row = await database.system((sql) => findTokenById(sql, claims.sub));
    if (!usable(row, Date.now()) || row.tenant_id !== claims.tid) throw unauthorized("The access token's API token is expired or revoked");
    return principalOf(row);
  }
  throw unauthorized(`Unsupported authorization scheme ${scheme}`);
}
