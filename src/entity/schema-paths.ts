// What a type's JSON Schema says about one attribute path, decided from the
// schema's own keywords only. Entity-type configs are refused on it (a key or
// an index no entity could ever fill) and queries warn on it (a path that
// matches nothing). A property segment "is defined" when it is named in
// `properties`, matches a `patternProperties` pattern, or is let through by an
// `additionalProperties` that is not `false`; an integer segment may also
// reach an array's item, as Postgres's `#>` does. The walk answers
// "forbidden" only when no value at the path can ever pass validation;
// whatever it cannot decide statically (a `$ref`, a pattern it cannot run,
// names that only `allOf`/`anyOf`/`oneOf` branches could add under
// `unevaluatedProperties: false`) counts as allowed with nothing known about it.
import { linearRegExp } from "../lib/linear-regexp";

export type SchemaNode = Record<string, unknown>;

/** Either the reason no value at the path can be written, or the schemas that all apply to the value there (empty: nothing known). */
export type PathVerdict = { forbidden: string } | { schemas: SchemaNode[] };

/**
 * How a path reaches into a value. `jsonb`: as Postgres's `#>` (queries and
 * indexed attributes), where an integer segment inside an array is an item.
 * `object`: through object properties only, as the identifier key is read.
 */
export type Reach = "jsonb" | "object";

/** Keywords that apply subschemas to the same value; their branches may declare properties or items the walk does not follow. */
const BRANCHES = ["allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"];

/** `$ref` and its kin point elsewhere; older drafts even ignore a reference's siblings, so such a node is left undecided. */
const REFERENCES = ["$ref", "$dynamicRef", "$recursiveRef"];

/** A segment Postgres reads as an array subscript (strtol: leading C whitespace, a sign, digits); a negative one counts from the end. */
const SUBSCRIPT = /^[\t\n\v\f\r ]*[+-]?\d+$/;

const isNode = (s: unknown): s is SchemaNode => typeof s === "object" && s !== null && !Array.isArray(s);
const has = (node: SchemaNode, key: string) => Object.prototype.hasOwnProperty.call(node, key);

/** The JSON types a node declares, or undefined when it declares none. */
export function declaredTypes(node: SchemaNode): string[] | undefined {
  if (typeof node.type === "string") return [node.type];
  if (Array.isArray(node.type) && node.type.every((t) => typeof t === "string")) return node.type as string[];
  return undefined;
}

/** `string`, `string or null`, `string with format email`, `array of number`: how a line names what the schema says. */
export function describeTypes(node: SchemaNode, types: string[]): string {
  return types
    .map((t) => {
      if (t === "string" && typeof node.format === "string") return `string with format ${node.format}`;
      const items = isNode(node.items) ? declaredTypes(node.items) : undefined;
      if (t === "array" && items) return `array of ${items.join(" or ")}`;
      return t;
    })
    .join(" or ");
}

/** The verdict for a value that `sub` alone describes, at `where`. */
function only(sub: unknown, where: string, why = ""): PathVerdict {
  if (sub === false) return { forbidden: `${where} is not allowed by the schema${why}` };
  return { schemas: isNode(sub) ? [sub] : [] };
}

/** The schemas applying to property `segment` of an object `node` describes; `at` is the object's dotted path. */
function property(node: SchemaNode, segment: string, at: string): PathVerdict {
  const schemas: unknown[] = [];
  let named = false;
  const properties = node.properties;
  if (isNode(properties) && has(properties, segment)) {
    schemas.push(properties[segment]);
    named = true;
  }
  // A pattern the engine cannot run might match: then the name may be allowed, and nothing is refused for want of it.
  let undecided = false;
  const patterns = node.patternProperties;
  if (isNode(patterns)) {
    for (const [pattern, sub] of Object.entries(patterns)) {
      let matches = false;
      try {
        matches = linearRegExp(pattern).test(segment);
      } catch {
        undecided = true;
      }
      if (matches) {
        schemas.push(sub);
        named = true;
      }
    }
  }
  if (!named && !undecided) {
    const additional = node.additionalProperties;
    if (additional === false) {
      const branches = BRANCHES.filter((k) => has(node, k));
      const note = branches.length ? `, and it ignores properties named inside ${branches.join("/")}` : "";
      return { forbidden: `${at}.${segment} is not defined by the schema (additionalProperties is false${note})` };
    }
    if (additional !== undefined) schemas.push(additional);
    else if (node.unevaluatedProperties === false && !BRANCHES.some((k) => has(node, k))) {
      return { forbidden: `${at}.${segment} is not defined by the schema (unevaluatedProperties is false)` };
    }
  }
  if (schemas.includes(false)) return { forbidden: `${at}.${segment} is not allowed by the schema` };
  return { schemas: schemas.filter(isNode) };
}

/** The schemas applying to the item `segment` (a subscript) of an array `node` describes; `at` is the array's dotted path. */
function item(node: SchemaNode, segment: string, at: string): PathVerdict {
  const where = `${at}.${segment}`;
  const index = Number(segment);
  // Draft-07 and 2019-09 write a tuple as an `items` array followed by `additionalItems`; 2020-12 as `prefixItems` followed by `items`.
  const tuple = Array.isArray(node.items);
  const prefix = tuple ? (node.items as unknown[]) : Array.isArray(node.prefixItems) ? node.prefixItems : [];
  const [prefixName, restName] = tuple ? ["items", "additionalItems"] : ["prefixItems", "items"];
  if (typeof node.maxItems === "number" && index >= node.maxItems)
    return { forbidden: `${where} cannot be written: ${at} has at most ${node.maxItems} items in the schema` };
  // Counted from the end, the item may sit at any position of the prefix or after it.
  if (index < 0 && prefix.length) return { schemas: [] };
  if (index >= 0 && index < prefix.length) return only(prefix[index], where);
  if (has(node, restName))
    return only(node[restName], where, prefix.length ? ` (${restName} is false after the ${prefix.length} ${prefixName})` : ` (${restName} is false)`);
  if (node.unevaluatedItems === false && !has(node, "contains") && !BRANCHES.some((k) => has(node, k))) {
    return {
      forbidden: `${where} is not defined by the schema (unevaluatedItems is false${prefix.length ? ` after the ${prefix.length} ${prefixName}` : ""})`,
    };
  }
  return { schemas: [] };
}

/** The schemas applying to `segment` inside a value `node` describes; `at` is the value's dotted path. */
function child(node: SchemaNode, segment: string, at: string, reach: Reach): PathVerdict {
  if (REFERENCES.some((k) => has(node, k))) return { schemas: [] };
  const types = declaredTypes(node);
  const object = !types || types.includes("object");
  const array = reach === "jsonb" && SUBSCRIPT.test(segment) && (!types || types.includes("array"));
  if (!array) {
    if (!object) return { forbidden: `${at}.${segment} cannot be written: ${at} is ${describeTypes(node, types ?? [])} in the schema` };
    return property(node, segment, at);
  }
  const asItem = item(node, segment, at);
  if (!object) return asItem;
  const asProperty = property(node, segment, at);
  if ("forbidden" in asItem) return asProperty;
  if ("forbidden" in asProperty) return asItem;
  // The value may be an array or an object: either side's schemas apply, not both, so nothing is known.
  return { schemas: [] };
}

/** Walks `path` (segments below `attributes`) through `schema`, the schema of `attributes`. */
export function schemasAt(schema: unknown, path: string[], reach: Reach = "jsonb"): PathVerdict {
  if (schema === false) return { forbidden: "attributes is not allowed by the schema (the schema is false)" };
  let current = isNode(schema) ? [schema] : [];
  let at = "attributes";
  for (const segment of path) {
    const next: SchemaNode[] = [];
    for (const node of current) {
      const step = child(node, segment, at, reach);
      if ("forbidden" in step) return step;
      next.push(...step.schemas);
    }
    current = next;
    at = `${at}.${segment}`;
  }
  return { schemas: current };
}

/** True when the root schema names `attributes` as a property of its own, so a leading `attributes` segment is meant. */
export function namesAttributes(schema: unknown): boolean {
  return isNode(schema) && isNode(schema.properties) && has(schema.properties, "attributes");
}
