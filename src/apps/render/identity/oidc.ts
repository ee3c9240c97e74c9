// An oidc provider's identity token: an RS256 JWT signed by a key of the
// JWKS at `jwksUriTemplate` (`{tid}` replaced by the token's own tenant
// claim), `iss` matching `issuerPattern` whole (run on the linear-time
// regex engine: the pattern is the tenant's), `aud` matching `audience`,
// and every `requiredClaims` entry present and non-empty. A provider
// missing `jwksUriTemplate`, `issuerPattern` or `audience` accepts no token.
import { importJWK, type JWK } from "jose";
import { linearRegExp } from "../../../lib/linear-regexp";
import { findKey, type KeyDocumentDeps } from "./key-documents";
import type { ProviderAuth } from "./provider";
import { failedCheck, refused } from "./refusal";
import { audienceOf, unverified, verifiedClaims, type Claims } from "./token-checks";

/** The JWK with this `kid` that can verify RS256 signatures. */
function jwkNamed(kid: string) {
  return (document: unknown): JWK | undefined => {
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return undefined;
    return keys.find(
      (k: JWK) =>
        typeof k === "object" &&
        k !== null &&
        k.kid === kid &&
        k.kty === "RSA" &&
        (k.alg === undefined || k.alg === "RS256") &&
        (k.use === undefined || k.use === "sig"),
    );
  };
}

const present = (value: unknown) =>
  value !== undefined &&
  value !== null &&
  value !== "" &&
  !(Array.isArray(value) && value.length === 0) &&
  !(typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

/**
 * What a `{tid}` may be. The value comes from a token not yet verified, so
 * it is held to characters that need no encoding and cannot leave their
 * path segment (`..`, `/`, `%`, `?`, `#` are all outside it), and to a
 * length no real tenant id reaches.
 */
const TID = /^[A-Za-z0-9_-]{1,128}$/;

function jwksUrl(template: string, tidClaim: string, claims: Claims): string {
  if (!template.includes("{tid}")) return template;
  const tid = claims[tidClaim];
  if (typeof tid !== "string" || !TID.test(tid)) throw refused("tid claim missing or outside its pattern");
  return template.replaceAll("{tid}", tid);
}

function issuerMatches(pattern: string, iss: unknown): boolean {
  if (typeof iss !== "string") return false;
  try {
    return linearRegExp(pattern).matches(iss);
  } catch {
    // A pattern the engine cannot run matches nothing.
    return false;
  }
}

export async function verifyOidc(token: string, auth: ProviderAuth, deps: KeyDocumentDeps): Promise<Claims> {
  const audience = audienceOf(auth.audience);
  if (!auth.jwksUriTemplate || !auth.issuerPattern || !audience) throw refused("provider lacks jwksUriTemplate, issuerPattern or audience");
  const { header, claims } = unverified(token);
  if (typeof header.kid !== "string" || header.kid === "") throw refused("token names no kid");
  const jwk = await findKey(jwksUrl(auth.jwksUriTemplate, auth.allowedTidClaim ?? "tid", claims), deps, jwkNamed(header.kid));
  if (!jwk) throw refused("no key with the token's kid");
  let key: CryptoKey;
  try {
    key = (await importJWK(jwk, "RS256")) as CryptoKey;
  } catch {
    throw refused("key not importable");
  }
  const verified = await verifiedClaims(token, key, audience, deps.now);
  if (!issuerMatches(auth.issuerPattern, verified.iss)) throw failedCheck("issuer");
  const missing = (auth.requiredClaims ?? []).find((name) => !present(verified[name]));
  if (missing !== undefined) throw failedCheck(`required claim ${missing}`);
  return verified;
}
