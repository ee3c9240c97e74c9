// Entity type config (SPEC.md 2.3, DECISIONS.md "Entity types"): its schema,
// the rules JSON Schema cannot express, and normalisation with defaults.
import { ApiError } from "../../lib/errors";
import { validationFailed } from "../../lib/validate";
import { INDEXED_TYPES, type IndexedAttribute } from "../indexed-attributes";

export const MAX_INDEXED = 20;
export const MAX_SORTABLE = 10;
export const MAX_SEARCHABLE = 10;

const pathSegment = { type: "string", minLength: 1, maxLength: 200 } as const;

export const indexedAttributeSchema = {
  type: "object",
  additionalProperties: false,
  required: ["path", "type"],
  properties: {
    path: { type: "array", items: pathSegment, minItems: 1, maxItems: 10 },
    type: { enum: INDEXED_TYPES },
    filterable: { type: "boolean" },
    sortable: { type: "boolean" },
    searchable: { type: "boolean" },
  },
} as const;

export const configSchema = {
  type: "object",
  additionalProperties: false,
  required: ["identifier_key"],
  properties: {
    identifier_key: { type: "array", items: { type: "string", minLength: 1, maxLength: 500 }, minItems: 1, maxItems: 10 },
    indexed_attributes: { type: "array", items: indexedAttributeSchema, maxItems: MAX_INDEXED },
    sort_by_updated_at: { type: "boolean" },
    name_search: { type: "boolean" },
  },
} as const;

export interface TypeConfig {
  identifier_key: string[];
  indexed_attributes: IndexedAttribute[];
  sort_by_updated_at: boolean;
  name_search: boolean;
}

type IndexedInput = { path: string[]; type: IndexedAttribute["type"]; filterable?: boolean; sortable?: boolean; searchable?: boolean };

export function normalizeIndexed(entries: IndexedInput[]): IndexedAttribute[] {
  const out = entries.map((e) => ({
    path: e.path,
    type: e.type,
    filterable: e.filterable ?? true,
    sortable: e.sortable ?? false,
    searchable: e.searchable ?? false,
  }));
  const errors: string[] = [];
  const seen = new Set<string>();
  out.forEach((e, i) => {
    const key = JSON.stringify(e.path);
    if (seen.has(key)) errors.push(`config.indexed_attributes[${i}].path: duplicates an earlier entry`);
    seen.add(key);
    if (e.searchable && e.type !== "text") errors.push(`config.indexed_attributes[${i}].searchable: only text attributes can be searchable`);
    if (e.sortable && e.type === "text_array") errors.push(`config.indexed_attributes[${i}].sortable: a text_array attribute cannot be sortable`);
  });
  if (out.length > MAX_INDEXED) errors.push(`config.indexed_attributes: at most ${MAX_INDEXED} entries`);
  if (out.filter((e) => e.sortable).length > MAX_SORTABLE) errors.push(`config.indexed_attributes: at most ${MAX_SORTABLE} sortable entries`);
  if (out.filter((e) => e.searchable).length > MAX_SEARCHABLE) errors.push(`config.indexed_attributes: at most ${MAX_SEARCHABLE} searchable entries`);
  if (errors.length) throw validationFailed(errors);
  return out;
}

/** Dotted identifier paths (`address.zip`) split into segments. */
export function keyPaths(identifierKey: string[]): string[][] {
  return identifierKey.map((p) => p.split("."));
}

export function assertIdentifierUnchanged(current: string[], next: string[] | undefined) {
  if (next && JSON.stringify(current) !== JSON.stringify(next)) {
    throw new ApiError("UNPROCESSABLE_ENTITY", "config.identifier_key cannot change after creation; create a new type instead", {
      identifier_key: current,
    });
  }
}
