// The identity a render carries: each key of the provider's `identity` map
// read by its extractor (`{ source, path }`) or resolved as a smart value
// through the one evaluator. A bearer provider reads the request (body
// without the reserved keys, headers by case-insensitive name, query
// parameters); oidc and exchange read the verified claims, and their smart
// values are rooted at those claims. A key whose value is absent, or whose
// smart value fails, is left out.
import { resolveSmartValue } from "../../../lib/smart-values";
import { isExtractor, type Extractor, type Provider } from "./provider";
import type { Claims } from "./token-checks";

/** Top-level body keys the service reads itself (the previous state, the action, the host's context), never identity. */
export const RESERVED_BODY_KEYS = ["state", "action", "context"] as const;

/** What extractors read: the request (bearer) or the verified claims (oidc, exchange). */
export type IdentitySource = { kind: "request"; body: Record<string, unknown>; headers: Headers; query: URLSearchParams } | { kind: "claims"; claims: Claims };

/** The body as identity sees it: the host's keys without the reserved ones. */
export function identityBody(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !(RESERVED_BODY_KEYS as readonly string[]).includes(key)));
}

function atPath(root: unknown, path: string): unknown {
  let here = root;
  for (const segment of path.split(".")) {
    if (typeof here !== "object" || here === null || !Object.hasOwn(here, segment)) return undefined;
    here = (here as Record<string, unknown>)[segment];
  }
  return here;
}

function extract(extractor: Extractor, source: IdentitySource): unknown {
  if (source.kind === "claims") return extractor.source === "jwt_claim" ? atPath(source.claims, extractor.path) : undefined;
  switch (extractor.source) {
    case "body":
      return atPath(identityBody(source.body), extractor.path);
    case "header":
      return source.headers.get(extractor.path) ?? undefined;
    case "query":
      return source.query.get(extractor.path) ?? undefined;
    case "jwt_claim":
      return undefined;
  }
}

function smartValueRoot(source: IdentitySource): Record<string, unknown> {
  if (source.kind === "claims") return source.claims;
  // Headers iterate with lowercase names, repeated ones joined.
  return { body: identityBody(source.body), headers: Object.fromEntries(source.headers), query: Object.fromEntries(source.query) };
}

/** Every identity key the provider declares that has a value. */
export async function extractIdentity(provider: Provider, source: IdentitySource): Promise<Record<string, unknown>> {
  const identity: Record<string, unknown> = {};
  const root = smartValueRoot(source);
  for (const [key, spec] of Object.entries(provider.identity ?? {})) {
    let value: unknown;
    if (isExtractor(spec)) value = extract(spec, source);
    else {
      try {
        value = await resolveSmartValue(spec, root);
      } catch {
        value = undefined;
      }
    }
    if (value !== undefined && value !== null) identity[key] = value;
  }
  return identity;
}
