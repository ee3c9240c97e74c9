// An exchange provider's identity token: an RS256 JWT whose `appctx` claim
// (a JSON string) names `amurl`, the https URL of a metadata document on one
// of the provider's `trustedAmurlHosts`. The document lists X.509
// certificates by thumbprint; the JWT header's `x5t` picks the one whose key
// signed it. `aud` must match `audience`; exp and nbf are checked with skew.
// A provider missing `audience` or `trustedAmurlHosts` accepts no token.
// Extractors then see the claims with `appctx` parsed.
import { importX509 } from "jose";
import { isAllowlisted } from "../../../lib/outbound/guard";
import type { OutboundEnv } from "../../../lib/outbound/types";
import { findKey, type KeyDocumentDeps } from "./key-documents";
import type { ProviderAuth } from "./provider";
import { refused } from "./refusal";
import { audienceOf, unverified, verifiedClaims, type Claims } from "./token-checks";

interface MetadataKey {
  keyinfo?: { x5t?: unknown };
  keyvalue?: { type?: unknown; value?: unknown };
}

/** The base64 DER certificate listed under this thumbprint. */
function certificateFor(x5t: string) {
  return (document: unknown): string | undefined => {
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return undefined;
    const found = keys.find((k: MetadataKey) => k?.keyinfo?.x5t === x5t && k.keyvalue?.type === "x509Certificate" && typeof k.keyvalue.value === "string");
    return found?.keyvalue?.value as string | undefined;
  };
}

function parseAppctx(claims: Claims): Record<string, unknown> {
  try {
    const appctx: unknown = typeof claims.appctx === "string" ? JSON.parse(claims.appctx) : undefined;
    if (typeof appctx === "object" && appctx !== null && !Array.isArray(appctx)) return appctx as Record<string, unknown>;
  } catch {
    // Not JSON: refused below like a missing claim.
  }
  throw refused("appctx claim missing or malformed");
}

/** The metadata URL, when it is https on a trusted host (plain http only to a test's allowlisted server). */
function metadataUrl(amurl: unknown, trusted: string[], env: OutboundEnv): string {
  let url: URL;
  try {
    url = new URL(String(amurl));
  } catch {
    throw refused("amurl is not a URL");
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isAllowlisted(url, env));
  const host = url.host.toLowerCase();
  if (!secure || !trusted.some((t) => t.toLowerCase() === host || t.toLowerCase() === url.hostname.toLowerCase())) {
    throw refused("amurl host not trusted");
  }
  return url.href;
}

const pem = (der: string) => `-----BEGIN CERTIFICATE-----\n${der.replace(/\s+/g, "").replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----`;

export async function verifyExchange(token: string, auth: ProviderAuth, deps: KeyDocumentDeps): Promise<Claims> {
  const audience = audienceOf(auth.audience);
  const trusted = (auth.trustedAmurlHosts ?? []).filter((h) => typeof h === "string" && h !== "");
  if (!audience || trusted.length === 0) throw refused("provider lacks audience or trustedAmurlHosts");
  const { header, claims } = unverified(token);
  if (typeof header.x5t !== "string" || header.x5t === "") throw refused("token names no x5t");
  const url = metadataUrl(parseAppctx(claims).amurl, trusted, deps.env);
  const certificate = await findKey(url, deps, certificateFor(header.x5t));
  if (!certificate) throw refused("no certificate with the token's x5t");
  let key: CryptoKey;
  try {
    key = (await importX509(pem(certificate), "RS256")) as CryptoKey;
  } catch {
    throw refused("certificate not importable");
  }
  const verified = await verifiedClaims(token, key, audience, deps.now);
  return { ...verified, appctx: parseAppctx(verified) };
}
