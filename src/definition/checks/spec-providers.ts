// Host providers: how each reads identity for its auth type (a bearer host
// posts it, an identity token carries it as claims), the keys a user and
// its company are found by (fixed-path extractors, so they cannot be
// computed), the JWKS URL template, and the smart values of identity keys
// and upload bodies.
import { child, has, type Obj } from "./collector";
import type { SpecChecks } from "./spec-names";
import { isObject } from "../../lib/is-object";

/** Keys read from a fixed place only: the external user and company a render is matched to. */
const FIXED_KEYS = ["user_external_id", "company_external_id"];
const TOKEN_TYPES = new Set(["oidc", "exchange"]);

/** An extractor `{ source, path }` (anything else is a smart value). */
const isExtractor = (value: unknown): value is Obj => isObject(value) && has(value, "source") && !Object.keys(value).some((key) => key.startsWith("$"));

/** Where `{tid}` sits in a URL template: only its path and query may vary with the tenant. */
function tidOutsidePathOrQuery(template: string): boolean {
  if (!template.includes("{tid}")) return false;
  const scheme = template.indexOf("://");
  const authorityStart = scheme < 0 ? 0 : scheme + 3;
  const rest = template.slice(authorityStart);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const fragment = template.indexOf("#");
  return template.slice(0, authorityStart).includes("{tid}") || authority.includes("{tid}") || (fragment >= 0 && template.slice(fragment).includes("{tid}"));
}

function checkIdentity(checks: SpecChecks, identity: Obj, path: string, type: string | undefined): void {
  const { found, expressions } = checks;
  for (const [key, value] of Object.entries(identity)) {
    const at = child(path, key);
    if (!isExtractor(value)) {
      if (FIXED_KEYS.includes(key))
        found.add(
          at,
          "provider_identity_fixed_path",
          `is a smart value; ${key} is read by an extractor { source, path } only, so a render cannot compute whom it acts for`,
        );
      expressions.smartValue(value, at);
      continue;
    }
    const source = value.source;
    if (typeof source !== "string") continue;
    if (type !== undefined && TOKEN_TYPES.has(type) && source !== "jwt_claim") {
      found.add(
        child(at, "source"),
        "provider_extractor_source",
        `is ${source}; an ${type} provider reads identity from the verified token's claims (jwt_claim) only`,
      );
    }
    if (type === "bearer" && source === "jwt_claim") {
      found.add(child(at, "source"), "provider_extractor_source", "is jwt_claim; a bearer provider has no identity token (read body, header or query)");
    }
  }
  const required = type === "bearer" ? FIXED_KEYS : FIXED_KEYS.slice(0, 1);
  for (const key of required) {
    if (!has(identity, key))
      found.add(
        child(path, key),
        "provider_identity_required",
        `is required${key === "company_external_id" ? " on a bearer provider" : ""}: a render is matched to its ${key === "user_external_id" ? "user" : "company"} by it`,
      );
  }
}

export function checkProviders(checks: SpecChecks, providers: Obj, path: string): void {
  const { found, expressions } = checks;
  for (const [name, provider] of Object.entries(providers)) {
    if (!isObject(provider)) continue;
    const at = child(path, name);
    const auth = isObject(provider.auth) ? provider.auth : {};
    const type = typeof auth.type === "string" ? auth.type : undefined;
    checkIdentity(checks, isObject(provider.identity) ? provider.identity : {}, child(at, "identity"), type);
    if (typeof auth.jwksUriTemplate === "string" && tidOutsidePathOrQuery(auth.jwksUriTemplate)) {
      found.add(
        child(child(at, "auth"), "jwksUriTemplate"),
        "jwks_uri_template_tid",
        "places {tid} outside the path and query; the token's tenant may choose only the path or query of the JWKS URL, never its host",
      );
    }
    if (isObject(provider.upload)) {
      for (const [uploadType, upload] of Object.entries(provider.upload)) {
        if (!isObject(upload)) continue;
        const uploadAt = child(child(at, "upload"), uploadType);
        expressions.smartValue(upload.props, child(uploadAt, "props"));
        expressions.smartValue(upload.errorProps, child(uploadAt, "errorProps"));
      }
    }
  }
}
