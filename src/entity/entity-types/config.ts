// Entity type config: its request schema, the rules JSON Schema cannot
// express (its own, and its fit with the type's schema), and normalisation
// with defaults.
import { ApiError } from "../../lib/errors";
import { capLines, validationFailed } from "../../lib/validate";
import { INDEXED_TYPES, type IndexedAttribute, type IndexedType } from "../indexed-attributes";
import { declaredTypes, describeTypes, namesAttributes, schemasAt, type SchemaNode } from "../schema-paths";

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
  return entries.map((e) => ({
    path: e.path,
    type: e.type,
    filterable: e.filterable ?? true,
    sortable: e.sortable ?? false,
    searchable: e.searchable ?? false,
  }));
}

/** The rules on indexed attributes that JSON Schema cannot express. */
function indexedRuleProblems(entries: IndexedAttribute[]): string[] {
  const errors: string[] = [];
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const key = JSON.stringify(e.path);
    if (seen.has(key)) errors.push(`config.indexed_attributes[${i}].path: duplicates an earlier entry`);
    seen.add(key);
    if (e.searchable && e.type !== "text") errors.push(`config.indexed_attributes[${i}].searchable: only text attributes can be searchable`);
    if (e.sortable && e.type === "text_array") errors.push(`config.indexed_attributes[${i}].sortable: a text_array attribute cannot be sortable`);
  });
  if (entries.length > MAX_INDEXED) errors.push(`config.indexed_attributes: at most ${MAX_INDEXED} entries`);
  if (entries.filter((e) => e.sortable).length > MAX_SORTABLE) errors.push(`config.indexed_attributes: at most ${MAX_SORTABLE} sortable entries`);
  if (entries.filter((e) => e.searchable).length > MAX_SEARCHABLE) errors.push(`config.indexed_attributes: at most ${MAX_SEARCHABLE} searchable entries`);
  return errors;
}

/**
 * Refuses (422, every line at once) a config its own rules or the type's
 * schema make useless: an identifier key no entity could ever carry, an index
 * over a path no entity could ever have or over values its type never reads.
 */
export function assertConfigFits(config: TypeConfig, schema: unknown): void {
  const errors = [...indexedRuleProblems(config.indexed_attributes), ...schemaProblems(config, schema)];
  if (errors.length) throw validationFailed(capLines(errors));
}

/** String formats whose values Postgres reads as numeric. */
export const NUMERIC_FORMATS = ["decimal", "number", "integer", "int32", "int64", "float", "double"];
/** String formats whose values Postgres reads as timestamptz. */
export const TIMESTAMP_FORMATS = ["date-time", "date"];

const always = () => true;
const either = (words: string[]) => `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;

/**
 * Which values each indexed type reads, by the JSON type the schema gives the
 * property; `needs` says it in the refusal. `text` reads scalars as their
 * text, but an array's or object's JSON text matches no filter value. A
 * timestamp has no JSON type of its own, so any string may hold one unless
 * its format says otherwise; a number has one, so a string must say by its
 * format that it holds one. `text_array` filters compare strings.
 */
export const INDEX_TYPE_READS: Record<IndexedType, { needs: string; reads: Partial<Record<string, (node: SchemaNode) => boolean>> }> = {
  text: {
    needs: "a string, number, integer or boolean (text_array reads arrays of strings)",
    reads: { string: always, number: always, integer: always, boolean: always },
  },
  numeric: {
    needs: `a number, an integer or a string with format ${either(NUMERIC_FORMATS)}`,
    reads: { number: always, integer: always, string: (node) => NUMERIC_FORMATS.includes(node.format as string) },
  },
  timestamptz: {
    needs: `a string without a format or with format ${either(TIMESTAMP_FORMATS)}`,
    reads: { string: (node) => node.format === undefined || TIMESTAMP_FORMATS.includes(node.format as string) },
  },
  boolean: { needs: "a boolean", reads: { boolean: always } },
  text_array: { needs: "an array of strings", reads: { array: (node) => itemsMayBeStrings(node.items) } },
};

function itemsMayBeStrings(items: unknown): boolean {
  if (typeof items !== "object" || items === null || Array.isArray(items)) return items !== false;
  const types = declaredTypes(items as SchemaNode);
  return !types || types.includes("string");
}

/**
 * Why `type` cannot index the value `node` describes at `where`, or undefined
 * when it can. A node declaring several types fits when one of them (null
 * aside) does; one declaring none fits anything.
 */
export function indexTypeMismatch(type: IndexedType, node: SchemaNode, where: string): string | undefined {
  const types = declaredTypes(node);
  if (!types) return undefined;
  const { needs, reads } = INDEX_TYPE_READS[type];
  if (types.some((t) => t !== "null" && reads[t]?.(node))) return undefined;
  return `${type} cannot index ${where} (${describeTypes(node, types)} in the schema); it reads ${needs}`;
}

/** The line for a path written from `attributes` (config paths start below it), unless the schema has an `attributes` property of its own. */
function attributesPrefix(path: string[], schema: unknown, suggestion: (rest: string[]) => string): string | undefined {
  if (path[0] !== "attributes" || namesAttributes(schema)) return undefined;
  return path.length > 1 ? `paths are relative to attributes; use ${suggestion(path.slice(1))}` : "paths are relative to attributes";
}

/** The line for one identifier key path, in segments. */
function identifierProblem(path: string[], schema: unknown): string | undefined {
  const prefixed = attributesPrefix(path, schema, (rest) => JSON.stringify(rest.join(".")));
  if (prefixed) return prefixed;
  // The key is read through object properties only (identifier-key.ts), never into an array's items.
  const verdict = schemasAt(schema, path, "object");
  return "forbidden" in verdict ? verdict.forbidden : undefined;
}

/** The line for one indexed attribute, at its `path` or its `type`. */
function indexedProblem(attr: IndexedAttribute, schema: unknown): { field: "path" | "type"; reason: string } | undefined {
  const prefixed = attributesPrefix(attr.path, schema, (rest) => JSON.stringify(rest));
  if (prefixed) return { field: "path", reason: prefixed };
  const verdict = schemasAt(schema, attr.path);
  if ("forbidden" in verdict) return { field: "path", reason: verdict.forbidden };
  for (const node of verdict.schemas) {
    const mismatch = indexTypeMismatch(attr.type, node, `attributes.${attr.path.join(".")}`);
    if (mismatch) return { field: "type", reason: mismatch };
  }
  return undefined;
}

/** The config's contradictions with `schema`, the schema of `attributes`. */
export function schemaProblems(config: Pick<TypeConfig, "identifier_key" | "indexed_attributes">, schema: unknown): string[] {
  const errors: string[] = [];
  keyPaths(config.identifier_key).forEach((path, i) => {
    const reason = identifierProblem(path, schema);
    if (reason) errors.push(`config.identifier_key[${i}]: ${reason}`);
  });
  config.indexed_attributes.forEach((attr, i) => {
    const problem = indexedProblem(attr, schema);
    if (problem) errors.push(`config.indexed_attributes[${i}].${problem.field}: ${problem.reason}`);
  });
  return errors;
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
