// Whether a type's JSON Schema rules an attribute path out: no value the
// schema accepts can hold anything there, so a filter on the path matches
// nothing and a sort on it orders nothing. The answer only feeds warnings, so
// it errs towards silence: whatever the walk cannot decide (references,
// combinators, pattern-matched names, an object open to other names) is
// taken as allowed.

/** Keywords that can admit names or shapes the walk does not follow. */
const UNDECIDABLE = ["$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "patternProperties", "unevaluatedProperties", "prefixItems"];

const INDEX = /^-?\d+$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * True when `schema` (a type's schema, over the attributes object) rules out
 * every value at `path` (segments below `attributes`). A segment reaches an
 * object's property or, as an integer, an array's item, as the compiled
 * `#>` does.
 */
export function schemaRulesOut(schema: unknown, path: string[]): boolean {
  let at = schema;
  for (const segment of path) {
    if (at === false) return true;
    const node = at;
    if (!isRecord(node) || UNDECIDABLE.some((k) => k in node)) return false;
    const types = node.type === undefined ? null : ([] as unknown[]).concat(node.type);
    const object = types === null || types.includes("object");
    const array = types === null || types.includes("array");
    if (!object && !array) return true;
    if (INDEX.test(segment)) {
      // An integer names an array item or an object property: decided only when the value can be just one of them.
      if (object && array) return false;
      if (array) {
        at = node.items ?? true;
        continue;
      }
    } else if (!object) return true;
    const properties = isRecord(node.properties) ? node.properties : {};
    if (Object.hasOwn(properties, segment)) at = properties[segment];
    else if (node.additionalProperties === false) return true;
    else if (isRecord(node.additionalProperties)) at = node.additionalProperties;
    else return false;
  }
  return at === false;
}
