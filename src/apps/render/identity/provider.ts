// A host provider as the spec declares it (`providers.<name>`). Publish has
// checked the shape against the spec schema, so a render reads it as typed;
// what a provider leaves out is read here as "accepts nothing" where a
// default would open the door (see oidc.ts and exchange.ts).

/** An identity key read from one fixed place of the request or the verified claims. */
export interface Extractor {
  source: "body" | "header" | "query" | "jwt_claim";
  path: string;
}

export interface ProviderAuth {
  type: "bearer" | "oidc" | "exchange";
  /** The header carrying the credential instead of `Authorization` (with or without `Bearer `). */
  header?: string;
  issuerPattern?: string;
  audience?: string | string[];
  jwksUriTemplate?: string;
  allowedTidClaim?: string;
  requiredClaims?: string[];
  trustedAmurlHosts?: string[];
}

export interface Provider {
  auth: ProviderAuth;
  /** Identity key to an extractor or a smart value. */
  identity?: Record<string, unknown>;
  autoCreateUsers?: boolean;
  allowEmailLink?: boolean;
}

/** `{ source, path }` and no directive key: anything else in `identity` is a smart value. */
export function isExtractor(value: unknown): value is Extractor {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  return typeof fields.source === "string" && typeof fields.path === "string" && !Object.keys(fields).some((key) => key.startsWith("$"));
}
