// The JSON Schema drafts the service speaks: a schema's root `$schema` names
// draft-07, 2019-09 or 2020-12, and no `$schema` means 2020-12. Each draft has
// its meta-schema (what a schema of that draft must look like) and its
// validation rules (the validator's `draft` option: draft-07 ignores the
// siblings of a `$ref`; tuple `items` and `additionalItems` belong to draft-07
// and 2019-09, `prefixItems` to 2020-12).
import { dereference, type Schema } from "@cfworker/json-schema";
import { META_SCHEMAS_2019_09 } from "./meta-2019-09";
import { META_SCHEMAS_2020_12 } from "./meta-2020-12";
import { META_SCHEMA_DRAFT_07 } from "./meta-draft-07";

/** A draft as the validator's `draft` option names it. */
export type Draft = "7" | "2019-09" | "2020-12";

export const DRAFT_URIS: Record<Draft, string> = {
  "7": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** The draft a `$schema` value names: the published URI, with or without its empty fragment, over http or https. */
const BY_URI = new Map<string, Draft>(
  (Object.entries(DRAFT_URIS) as [Draft, string][]).map(([draft, uri]) => [uri.replace(/#$/, "").replace(/^https?:/, ""), draft]),
);

/** The draft `$schema` names, or undefined when it names none of them. */
export function draftNamed(uri: string): Draft | undefined {
  return BY_URI.get(uri.replace(/#$/, "").replace(/^https?:/, ""));
}

/** The draft a schema is written in: its root `$schema`, else 2020-12 (also for a `$schema` no draft answers to, which schema checks refuse). */
export function draftOf(schema: unknown): Draft {
  const declared = schema !== null && typeof schema === "object" ? (schema as { $schema?: unknown }).$schema : undefined;
  return (typeof declared === "string" && draftNamed(declared)) || "2020-12";
}

/**
 * The validator implements no `$dynamicRef`, and its `$recursiveRef` follows
 * the recursive anchor of the schema under validation, not the meta-schema's.
 * With the standard meta-schema as the only dynamic scope, either reference
 * always lands on the meta-schema's root, so a plain `$ref` to it means the same.
 */
function staticRefs(node: unknown, rootUri: string): unknown {
  if (Array.isArray(node)) return node.map((item) => staticRefs(item, rootUri));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => (k === "$dynamicRef" || k === "$recursiveRef" ? ["$ref", rootUri] : [k, staticRefs(v, rootUri)])),
  );
}

/** A meta-schema with its vocabularies embedded as `$defs` resources (a compound document, 2020-12 section 9.3). */
function compound(schemas: object[], rootUri: string): Schema {
  const [root, ...vocabularies] = schemas.map((s) => staticRefs(s, rootUri)) as Record<string, unknown>[];
  return { ...root, $defs: Object.fromEntries(vocabularies.map((v) => [String(v.$id).split("/").pop(), v])) } as Schema;
}

/** Each draft's meta-schema, ready to validate a schema of that draft. */
export const META_SCHEMA: Record<Draft, Schema> = {
  "7": META_SCHEMA_DRAFT_07 as Schema,
  "2019-09": compound(META_SCHEMAS_2019_09, DRAFT_URIS["2019-09"]),
  "2020-12": compound(META_SCHEMAS_2020_12, DRAFT_URIS["2020-12"]),
};

/**
 * Every meta-schema and vocabulary by its URI: a tenant's schema may `$ref`
 * them (`{"$ref": "https://json-schema.org/draft/2020-12/schema"}` accepts any
 * schema) though the Worker fetches nothing, because it holds these documents.
 */
export const META_LOOKUP: Readonly<Record<string, Schema | boolean>> = Object.freeze(
  Object.assign(Object.create(null), ...Object.values(META_SCHEMA).map((schema) => dereference(schema))),
);
