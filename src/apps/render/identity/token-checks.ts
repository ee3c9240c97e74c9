// What oidc and exchange tokens share: RS256 signatures checked by jose,
// exp and nbf with 60 seconds of skew (exp is required: a token that never
// expires is not accepted), the audience, and the unverified look at a
// token's header and claims needed to find its key. Everything before the
// signature checks out is the one refusal; what fails after it is named
// (refusal.ts).
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import { failedCheck, refused } from "./refusal";

/** Skew allowed on `exp` and `nbf`, in seconds. */
export const CLOCK_SKEW_SECONDS = 60;

export type Claims = JWTPayload & Record<string, unknown>;

/** The header and claims as the token states them, before anything is verified; 401 when it is no JWS compact JWT. */
export function unverified(token: string): { header: ProtectedHeaderParameters; claims: Claims } {
  try {
    const header = decodeProtectedHeader(token);
    const claims = decodeJwt(token) as Claims;
    if (header.alg !== "RS256") throw new Error(`alg ${String(header.alg)}`);
    return { header, claims };
  } catch {
    throw refused("not an RS256 JWT");
  }
}

/**
 * The token's claims once its signature by `key`, its lifetime and its
 * audience check out; 401 otherwise. jose verifies the signature before it
 * reads a claim, so a claim error from it is one of a signed token; given
 * no claim options, it checks only `nbf`, `exp` and `iat` (their times, and
 * that they are numbers).
 */
export async function verifiedClaims(token: string, key: CryptoKey, audience: string | string[], now: number): Promise<Claims> {
  let claims: Claims;
  try {
    claims = (await jwtVerify(token, key, { algorithms: ["RS256"], clockTolerance: CLOCK_SKEW_SECONDS, currentDate: new Date(now) })).payload as Claims;
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw failedCheck("expired");
    if (error instanceof errors.JWTClaimValidationFailed)
      throw failedCheck(error.claim === "nbf" ? "not yet valid" : error.claim === "exp" ? "expired" : "issued at");
    throw refused("bad signature");
  }
  if (claims.exp === undefined) throw failedCheck("required claim exp");
  const held = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  const wanted = typeof audience === "string" ? [audience] : audience;
  if (!held.some((aud) => wanted.includes(aud))) throw failedCheck("audience");
  return claims;
}

/** A declared audience: a non-empty string or a list of them; undefined when the provider declares none. */
export function audienceOf(audience: string | string[] | undefined): string | string[] | undefined {
  if (typeof audience === "string") return audience === "" ? undefined : audience;
  const listed = (audience ?? []).filter((a) => typeof a === "string" && a !== "");
  return listed.length ? listed : undefined;
}
