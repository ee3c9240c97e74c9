// HS256 access tokens minted by POST /auth/token. They name the API token they
// were exchanged for, so revoking that token revokes them too.
import { base64url, fromBase64url, hmacSha256, timingSafeEqualText } from "../lib/crypto";

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const ISSUER = "entity-platform";

export interface AccessClaims {
  iss: string;
  /** API token id. */
  sub: string;
  /** Tenant id. */
  tid: string;
  iat: number;
  exp: number;
}

const encode = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

export async function signAccessToken(secret: string, tokenId: string, tenantId: string, now: number): Promise<string> {
  const iat = Math.floor(now / 1000);
  const claims: AccessClaims = { iss: ISSUER, sub: tokenId, tid: tenantId, iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS };
  const unsigned = `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}`;
  return `${unsigned}.${base64url(await hmacSha256(secret, unsigned))}`;
}

/** The claims of a well-formed, correctly signed, unexpired token; otherwise null. */
export async function verifyAccessToken(secret: string, token: string, now: number): Promise<AccessClaims | null> {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [header, payload, signature] = parts;
  let claims: AccessClaims;
  try {
    const h = JSON.parse(new TextDecoder().decode(fromBase64url(header)));
    if (h.alg !== "HS256") return null;
    const expected = await hmacSha256(secret, `${header}.${payload}`);
    if (!timingSafeEqualText(base64url(expected), signature)) return null;
    claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    return null;
  }
  if (claims.iss !== ISSUER || typeof claims.sub !== "string" || typeof claims.tid !== "string") return null;
  if (typeof claims.exp !== "number" || claims.exp * 1000 <= now) return null;
  return claims;
}
