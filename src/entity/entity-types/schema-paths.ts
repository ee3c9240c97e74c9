// What a type's JSON Schema says about one attribute path, decided from the
// schema's own keywords only. A path "is defined" when every segment is named
// in `properties`, matches a `patternProperties` pattern, or is let through by
// an `additionalProperties` that is not `false`. The walk answers "forbidden"
// only when no value at the path can ever pass validation; whatever it cannot
// decide statically (a `$ref`, a pattern it cannot run, names that only
// `allOf`/`anyOf`/`oneOf` branches could add under `unevaluatedProperties:
// false`) counts as allowed with nothing known about it.
import { linearRegExp } from "../../lib/linear-regexp";

export type SchemaNode = Record<string, unknown>;

/** Either the reason no value at the path can be written, or the schemas that all apply to the value there (empty: nothing known). */
export type PathVerdict = { forbidden: string } | { schemas: SchemaNode[] };

/** Keywords that apply subschemas to the same value; their branches may declare properties the walk does not follow. */
const BRANCHES = ["allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"];

/** `$ref` and its kin point elsewhere; older drafts even ignore a reference's siblings, so such a node is left undecided. */
const REFERENCES = ["$ref", "$dynamicRef", "$recursiveRef"];

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

type Step = { forbidden: string } | { schemas: SchemaNode[] };

/** The schemas applying to `segment` inside a value `node` describes; `at` is the value's dotted path. */
function child(node: SchemaNode, segment: string, at: string): Step {
  if (REFERENCES.some((k) => has(node, k))) return { schemas: [] };
  const types = declaredTypes(node);
  if (types && !types.includes("object")) return { forbidden: `${at}.${segment} cannot be written: ${at} is ${describeTypes(node, types)} in the schema` };
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

/** Walks `path` (segments below `attributes`) through `schema`, the schema of `attributes`. */
export function schemasAt(schema: unknown, path: string[], base = "attributes"): PathVerdict {
  if (schema === false) return { forbidden: `${base} is not allowed by the schema (the schema is false)` };
  let current = isNode(schema) ? [schema] : [];
  let at = base;
  for (const segment of path) {
    const next: SchemaNode[] = [];
    for (const node of current) {
      const step = child(node, segment, at);
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
