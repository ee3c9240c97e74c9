// The one way bodies, queries and stored data are checked against JSON Schema.
import { Validator, type OutputUnit, type Schema } from "@cfworker/json-schema";
import { ApiError } from "./errors";

export type JsonSchema = Schema;

const MAX_LINES = 20;
/** Keywords that only wrap the errors of their children. */
const WRAPPERS = new Set(["properties", "additionalProperties", "items", "prefixItems", "additionalItems", "allOf", "$ref", "$dynamicRef", "if", "then", "else", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "patternProperties", "propertyNames"]);
const ALTERNATIVES = new Set(["anyOf", "oneOf"]);

const cache = new WeakMap<object, Validator>();

function validatorFor(schema: Schema): Validator {
  let v = cache.get(schema);
  if (!v) {
    v = new Validator(schema, "2020-12", false);
    cache.set(schema, v);
  }
  return v;
}

/** `#/data/3/name` becomes `data[3].name`; the root is `(root)`. */
export function renderPath(instanceLocation: string): string {
  const parts = instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts.length === 0) return "(root)";
  let out = "";
  for (const raw of parts) {
    const p = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  }
  return out;
}

/** Rewrites @cfworker's "Instance ..." sentences into short reasons. */
function reasonOf(unit: OutputUnit): string {
  const e = unit.error;
  let m: RegExpMatchArray | null;
  if (unit.keyword === "false") return "is not allowed";
  if ((m = e.match(/^Instance type "(\w+)" is invalid\. Expected (.+)\.$/))) return `must be ${m[2].replace(/"/g, "").replace(/, /g, " or ")}, got ${m[1]}`;
  if ((m = e.match(/^Instance does not match any of (.+)\.$/))) return `must be one of ${m[1]}`;
  if ((m = e.match(/^Instance does not match (.+)\.$/)) && unit.keyword === "const") return `must equal ${m[1]}`;
  if ((m = e.match(/^Instance does not have required property "(.+)"\.$/))) return `${m[1]} is required`;
  return e.replace(/^Instance /, "").replace(/\.$/, "");
}

/**
 * Turns the validator's output into `<path>: <reason>` lines: wrapper errors
 * dropped, errors under one anyOf/oneOf merged into one line per path,
 * at most twenty lines with the rest counted.
 */
export function formatErrors(units: OutputUnit[]): string[] {
  const byPath = new Map<string, string[]>();
  const alternativePaths = new Set(units.filter((u) => ALTERNATIVES.has(u.keyword)).map((u) => u.instanceLocation));
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue;
    const underAlternative = [...alternativePaths].some((p) => unit.instanceLocation === p && !ALTERNATIVES.has(unit.keyword));
    if (underAlternative) continue;
    // A missing property is reported at the property's own path.
    const missing = unit.keyword === "required" ? unit.error.match(/required property "(.+)"/)?.[1] : undefined;
    const path = renderPath(missing ? `${unit.instanceLocation}/${missing}` : unit.instanceLocation);
    const reasons = byPath.get(path) ?? [];
    const reason = ALTERNATIVES.has(unit.keyword) ? alternativeReason(units, unit) : missing ? "is required" : reasonOf(unit);
    if (!reasons.includes(reason)) reasons.push(reason);
    byPath.set(path, reasons);
  }
  const lines = [...byPath].map(([path, reasons]) => `${path}: ${reasons.join("; ")}`);
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `... and ${lines.length - MAX_LINES} more errors`];
}

function alternativeReason(units: OutputUnit[], alt: OutputUnit): string {
  const inner = units
    .filter((u) => u.instanceLocation === alt.instanceLocation && u.keywordLocation.startsWith(alt.keywordLocation + "/") && !WRAPPERS.has(u.keyword) && !ALTERNATIVES.has(u.keyword))
    .map(reasonOf);
  const unique = [...new Set(inner)];
  return unique.length ? `does not match any allowed shape (${unique.join(" | ")})` : reasonOf(alt);
}

export function check(schema: Schema, value: unknown): string[] {
  const result = validatorFor(schema).validate(value);
  return result.valid ? [] : formatErrors(result.errors);
}

/** Throws 422 VALIDATION_FAILED with the rendered lines, or returns the value typed. */
export function validate<T>(schema: Schema, value: unknown, message = "Request failed validation"): T {
  const errors = check(schema, value);
  if (errors.length) throw validationFailed(errors, message);
  return value as T;
}

export function validationFailed(errors: string[], message = "Request failed validation"): ApiError {
  return new ApiError("VALIDATION_FAILED", message, { validation_errors: errors, errors });
}
