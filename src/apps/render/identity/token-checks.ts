// What oidc and exchange tokens share: RS256 signatures checked by jose,
// exp and nbf with 60 seconds of skew (exp is required: a token that never
// expires is not accepted), the audience, and the unverified look at a
// token's header and claims needed to find its key.
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import { unauthorized } from "./refusal";

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
    throw unauthorized("The identity token is not an RS256-signed JWT");
  }
}

/** The token's claims once its signature by `key`, its lifetime and its audience check out; 401 otherwise. */
export async function verifiedClaims(token: string, key: CryptoKey, audience: string | string[], now: number): Promise<Claims> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["RS256"],
      audience,
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: new Date(now),
      requiredClaims: ["exp"],
    });
    return payload as Claims;
  } catch {
    throw unauthorized("The identity token failed verification (signature, expiry, not-before or audience)");
  }
}

/** A declared audience: a non-empty string or a list of them; undefined when the provider declares none. */
export function audienceOf(audience: string | string[] | undefined): string | string[] | undefined {
  if (typeof audience === "string") return audience === "" ? undefined : audience;
  const listed = (audience ?? []).filter((a) => typeof a === "string" && a !== "");
  return listed.length ? listed : undefined;
}
