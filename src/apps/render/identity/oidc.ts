// An oidc provider's identity token: an RS256 JWT signed by a key of the
// JWKS at `jwksUriTemplate` (`{tid}` replaced by the token's own tenant
// claim, percent-encoded so it stays inside one path segment or query
// value), `iss` matching `issuerPattern` whole (run on the linear-time
// regex engine: the pattern is the tenant's), `aud` matching `audience`,
// and every `requiredClaims` entry present and non-empty. A provider
// missing `jwksUriTemplate`, `issuerPattern` or `audience` accepts no token.
import { importJWK, type JWK } from "jose";
import { linearRegExp } from "../../../lib/linear-regexp";
import type { OutboundEnv } from "../../../lib/outbound/types";
import { findKey } from "./key-documents";
import type { ProviderAuth } from "./provider";
import { unauthorized } from "./refusal";
import { audienceOf, unverified, verifiedClaims, type Claims } from "./token-checks";

/** The JWK with this `kid` that can verify RS256 signatures. */
function jwkNamed(kid: string) {
  return (document: unknown): JWK | undefined => {
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return undefined;
    return keys.find(
      (k: JWK) => typeof k === "object" && k !== null && k.kid === kid && k.kty === "RSA" && (k.alg === undefined || k.alg === "RS256") && (k.use === undefined || k.use === "sig"),
    );
  };
}

const present = (value: unknown) =>
  value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0) && !(typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

function jwksUrl(template: string, tidClaim: string, claims: Claims): string {
  if (!template.includes("{tid}")) return template;
  const tid = claims[tidClaim];
  if (typeof tid !== "string" || tid === "") throw unauthorized(`The identity token has no ${tidClaim} claim to find its signing keys by`);
  return template.replaceAll("{tid}", encodeURIComponent(tid));
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

export async function verifyOidc(token: string, auth: ProviderAuth, env: OutboundEnv, now: number): Promise<Claims> {
  const audience = audienceOf(auth.audience);
  if (!auth.jwksUriTemplate || !auth.issuerPattern || !audience) throw unauthorized("The provider declares no jwksUriTemplate, issuerPattern or audience, so no identity token can be verified");
  const { header, claims } = unverified(token);
  if (typeof header.kid !== "string" || header.kid === "") throw unauthorized("The identity token's header names no kid");
  const jwk = await findKey(jwksUrl(auth.jwksUriTemplate, auth.allowedTidClaim ?? "tid", claims), env, now, jwkNamed(header.kid));
  if (!jwk) throw unauthorized("The identity token's kid names no signing key of the provider's JWKS");
  let key: CryptoKey;
  try {
    key = (await importJWK(jwk, "RS256")) as CryptoKey;
  } catch {
    throw unauthorized("The provider's JWKS key for this kid is not a usable RSA key");
  }
  const verified = await verifiedClaims(token, key, audience, now);
  if (!issuerMatches(auth.issuerPattern, verified.iss)) throw unauthorized("The identity token's issuer does not match the provider's issuerPattern");
  const missing = (auth.requiredClaims ?? []).filter((name) => !present(verified[name]));
  if (missing.length) throw unauthorized(`The identity token lacks required claims: ${missing.join(", ")}`);
  return verified;
}
