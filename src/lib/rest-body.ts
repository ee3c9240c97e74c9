// A workflow action or an app command that stands for a REST route takes that
// route's body with its keys in camelCase, as every key of a document is. The config schema is
// that route's body schema with its declared property names renamed, so the
// rules (types, bounds, one-of pairs) are the route's own; the resolved
// config goes back to the route's body by the same schema before the service
// sees it. Values under keys no schema declares (a filter, attributes) are
// data and keep their keys as written.
import type { JsonSchema } from "./validate";

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** `type_name` → `typeName`. */
export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

// Keywords whose values are instances, not schemas: never renamed.
const INSTANCE_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/** A REST body schema with every declared property name in camelCase (`properties` keys and `required` lists, at any depth). */
export function camelSchema(schema: object): JsonSchema {
  return rename(schema) as JsonSchema;
}

function rename(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rename);
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === "properties" && isNode(value)) out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [camelKey(name), rename(sub)]));
    else if (keyword === "required" && Array.isArray(value)) out[keyword] = value.map((name) => camelKey(String(name)));
    else out[keyword] = INSTANCE_KEYWORDS.has(keyword) ? value : rename(value);
  }
  return out;
}

/**
 * A config the camelCase schema accepted, as the REST body `schema` (the
 * route's own, snake_case) describes: each declared key renamed, at any
 * depth the schema declares; everything else as it is.
 */
export function restBody<T>(schema: object, config: unknown): T {
  return toRest(schema, config) as T;
}

function toRest(schema: unknown, value: unknown): unknown {
  if (!isNode(schema)) return value;
  if (Array.isArray(value)) return isNode(schema.items) ? value.map((v) => toRest(schema.items, v)) : value;
  if (!isNode(value)) return value;
  const declared = declaredProperties(schema);
  if (!declared.size) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const found = declared.get(key);
      return found ? [found.name, toRest(found.schema, v)] : [key, v];
    }),
  );
}

/** The properties a schema declares, by camelCase name, including those its allOf/oneOf/anyOf branches declare (the first declaration with a schema wins). */
function declaredProperties(schema: Node): Map<string, { name: string; schema: unknown }> {
  const found = new Map<string, { name: string; schema: unknown }>();
  const visit = (node: unknown) => {
    if (!isNode(node)) return;
    if (isNode(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        const known = found.get(camelKey(name));
        if (!known || (!isNode(known.schema) && isNode(sub))) found.set(camelKey(name), { name, schema: sub });
      }
    }
    for (const keyword of ["allOf", "oneOf", "anyOf"]) if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach(visit);
  };
  visit(schema);
  return found;
}
