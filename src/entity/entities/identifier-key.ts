// The business key: computed from the type's config.identifier_key,
// never sent by the caller. One path: the value as text; several: `|seg1|seg2|`.
import { validationFailed } from "../../lib/validate";
import { MAX_INDEXED_BYTES, SURELY_FITS, indexedValueBytes, tooLargeToIndex } from "../indexed-attributes";

export function valueAt(attributes: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = attributes;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

function segmentText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The key, or the dotted paths whose values are missing. */
export function tryIdentifierKey(identifierKey: string[], attributes: Record<string, unknown>): { key: string } | { missing: string[] } {
  const values = identifierKey.map((p) => valueAt(attributes, p.split(".")));
  const missing = identifierKey.filter((_, i) => values[i] === undefined || values[i] === null || values[i] === "");
  if (missing.length) return { missing };
  const segments = values.map(segmentText);
  return { key: segments.length === 1 ? segments[0] : `|${segments.join("|")}|` };
}

/**
 * The error line for a key too large for entities_live_key (see
 * MAX_INDEXED_BYTES), naming the path of its largest part.
 */
export function oversizedKey(identifierKey: string[], attributes: Record<string, unknown>, key: string, at = "attributes"): string | undefined {
  if (key.length <= SURELY_FITS) return undefined;
  const bytes = indexedValueBytes(key);
  if (bytes <= MAX_INDEXED_BYTES) return undefined;
  const sizes = identifierKey.map((p) => indexedValueBytes(segmentText(valueAt(attributes, p.split(".")))));
  return tooLargeToIndex(`${at}.${identifierKey[sizes.indexOf(Math.max(...sizes))]}`, bytes, " as the identifier key");
}

export function identifierKey(identifierKeyPaths: string[], attributes: Record<string, unknown>, at = "attributes"): string {
  const result = tryIdentifierKey(identifierKeyPaths, attributes);
  if ("missing" in result)
    throw validationFailed(
      result.missing.map((p) => `${at}.${p}: is required to compute the identifier key`),
      "Identifier key attribute missing",
    );
  const oversized = oversizedKey(identifierKeyPaths, attributes, result.key, at);
  if (oversized) throw validationFailed([oversized], "Identifier key too large to index");
  return result.key;
}
