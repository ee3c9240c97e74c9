// Expression results leave as plain JSON: JSONata's sequences become arrays,
// and what JSON cannot carry (functions, NaN, Infinity) is refused rather
// than silently turned into null by a later JSON.stringify.
import { MAX_JSON_DEPTH } from "../input-guard";
import { ExpressionError } from "./errors";

export function toJson(value: unknown, depth = 0): unknown {
  switch (typeof value) {
    case "undefined":
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new ExpressionError(`expression result ${value} is not a JSON number`);
      return value;
    case "function":
      throw new ExpressionError("expression result is a function, not JSON");
    case "object": {
      if (value === null) return null;
      if (depth >= MAX_JSON_DEPTH) throw new ExpressionError(`expression result nests deeper than ${MAX_JSON_DEPTH} levels`);
      if (Array.isArray(value)) return value.filter((item) => item !== undefined).map((item) => toJson(item, depth + 1));
      if (isFunctionObject(value)) throw new ExpressionError("expression result is a function, not JSON");
      // fromEntries defines `__proto__` as an own key instead of setting the prototype.
      return Object.fromEntries(
        Object.entries(value)
          .filter(([, member]) => member !== undefined)
          .map(([key, member]) => [key, toJson(member, depth + 1)]),
      );
    }
    default:
      throw new ExpressionError(`expression result of type ${typeof value} is not JSON`);
  }
}

/** JSONata's own lambdas and built-ins are objects, not JavaScript functions. */
function isFunctionObject(value: object): boolean {
  const marked = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return marked._jsonata_function === true || marked._jsonata_lambda === true;
}

/** JSONata's boolean cast: empty arrays, empty strings, 0, null, undefined and functions are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) {
    // An array is true when any member is: [0, ""] is false, [[], 1] is true.
    return value.some(isTruthy);
  }
  switch (typeof value) {
    case "string":
      return value.length > 0;
    case "number":
      return value !== 0 && !Number.isNaN(value);
    case "boolean":
      return value;
    case "object":
      return Object.keys(value).length > 0;
    default:
      return false;
  }
}
