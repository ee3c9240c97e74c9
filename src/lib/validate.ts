// The one way bodies, queries and stored data are checked against JSON Schema.
import { dereference, format, validate as evaluate, type OutputUnit, type Schema } from "@cfworker/json-schema";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { ApiError } from "./errors";
import { draftOf, META_LOOKUP } from "./json-schema/drafts";
import { withLinearRegExp } from "./linear-regexp";

export type JsonSchema = Schema;

/**
 * What a value a literal schema accepted holds, as a type. The check fills in
 * no `default`, so a defaulted property stays optional; `if`/`then` branches
 * are followed (an auth profile's fields hang on its `type`).
 */
export type Accepted<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true; parseIfThenElseKeywords: true }>;
/** Any schema: an object (including `as const` literals whose readonly arrays Schema's type rejects) or a boolean. */
type SchemaLike = Schema | object | boolean;

const MAX_LINES = 20;
/** Keywords that only wrap the errors of their children. */
const WRAPPERS = new Set([
  "properties",
  "additionalProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "allOf",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  "patternProperties",
  "propertyNames",
]);
const ALTERNATIVES = new Set(["anyOf", "oneOf"]);

/** Every subschema of a schema by absolute URI, which `$ref` resolves against, beside the meta-schemas the service holds. */
export type Lookup = Record<string, Schema | boolean>;
const cache = new WeakMap<object, Lookup>();

/** Throws when the schema gives one URI to two subschemas. */
export function lookupFor(schema: SchemaLike): Lookup {
  if (typeof schema === "boolean") return { ...META_LOOKUP, ...dereference(schema) };
  let lookup = cache.get(schema);
  if (!lookup) {
    lookup = { ...META_LOOKUP, ...dereference(schema as Schema) };
    cache.set(schema, lookup);
  }
  return lookup;
}

/** A pattern longer than this is shown cut, so a tenant's long pattern cannot swell every line. */
const MAX_PATTERN_SHOWN = 200;

/**
 * The `pattern` a failing unit names, found by walking its keyword location
 * through the schema (the validator's message omits it). `$ref` segments
 * continue at the referenced subschema, as the validator went.
 */
function patternOf(schema: SchemaLike, lookup: Lookup, keywordLocation: string): string | undefined {
  let node: unknown = schema;
  for (const raw of keywordLocation.replace(/^#\/?/, "").split("/")) {
    if (node === null || typeof node !== "object") return undefined;
    const seg = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    const here = node as Record<string, unknown>;
    node = seg === "$ref" && typeof here.$ref === "string" ? lookup[(here.__absolute_ref__ as string | undefined) ?? here.$ref] : here[seg];
  }
  if (typeof node !== "string") return undefined;
  return node.length > MAX_PATTERN_SHOWN ? `${node.slice(0, MAX_PATTERN_SHOWN)}…` : node;
}

/** A validator output unit; a failed `pattern` also carries the pattern it failed. */
type Unit = OutputUnit & { pattern?: string };

// The validator's own `url` format is a backtracking regex that takes
// exponential time on "http://" followed by a few dozen letters and a space
// (22 letters: 93 ms, each two more: four times that). The WHATWG URL parser
// decides the same question in linear time.
format.url = (value: string) => {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return ["http:", "https:", "ftp:"].includes(url.protocol) && url.hostname !== "";
  } catch {
    return false;
  }
};

/** `#/data/3/name` becomes `data[3].name`; the root is `(root)`, or `base` when given. */
export function renderPath(instanceLocation: string, base = ""): string {
  const parts = instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts.length === 0) return base || "(root)";
  let out = base;
  for (const raw of parts) {
    const p = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  }
  return out;
}

/** Rewrites @cfworker's "Instance ..." sentences into short reasons. */
function reasonOf(unit: Unit): string {
  const e = unit.error;
  let m: RegExpMatchArray | null;
  if (unit.keyword === "false" || unit.keyword === "not") return "is not allowed";
  if (unit.keyword === "pattern" && unit.pattern !== undefined) return `must match the pattern ${unit.pattern}`;
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
export function formatErrors(units: Unit[], base = ""): string[] {
  return capLines(allErrors(units, base));
}

/** One line per path, every one of them (formatErrors caps them). */
function allErrors(units: Unit[], base: string): string[] {
  const byPath = new Map<string, string[]>();
  const alternatives = units.filter((u) => ALTERNATIVES.has(u.keyword));
  for (const unit of units) {
    if (WRAPPERS.has(unit.keyword)) continue;
    // Everything raised inside an anyOf/oneOf branch, at its path or deeper, belongs to that alternative's one line.
    if (alternatives.some((alt) => within(unit, alt))) continue;
    // A missing property is reported at the property's own path.
    const missing = unit.keyword === "required" ? unit.error.match(/required property "(.+)"/)?.[1] : undefined;
    const path = renderPath(missing ? `${unit.instanceLocation}/${missing}` : unit.instanceLocation, base);
    const reasons = byPath.get(path) ?? [];
    const reason = ALTERNATIVES.has(unit.keyword) ? alternativeReason(units, unit) : missing ? "is required" : reasonOf(unit);
    if (!reasons.includes(reason)) reasons.push(reason);
    byPath.set(path, reasons);
  }
  return [...byPath].map(([path, reasons]) => `${path}: ${reasons.join("; ")}`);
}

/** At most twenty lines; the rest are counted in a last line. */
export function capLines(lines: string[]): string[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `... and ${lines.length - MAX_LINES} more errors`];
}

/**
 * The twenty-line rule for lines found one at a time over an input too large
 * to hold them all: the first twenty are kept, the rest only counted.
 */
export class LineCollector {
  private readonly kept: string[] = [];
  private total = 0;

  add(lines: string[]): void {
    for (const line of lines) if (this.total++ < MAX_LINES) this.kept.push(line);
  }

  /** What capLines gives for every line added. */
  lines(): string[] {
    return this.total > MAX_LINES ? [...this.kept, `... and ${this.total - MAX_LINES} more errors`] : [...this.kept];
  }
}

/** True when `unit` was raised inside one of `alt`'s branches, for `alt`'s instance (array items share keyword locations). */
function within(unit: OutputUnit, alt: OutputUnit): boolean {
  return (
    unit !== alt &&
    unit.keywordLocation.startsWith(alt.keywordLocation + "/") &&
    (unit.instanceLocation === alt.instanceLocation || unit.instanceLocation.startsWith(alt.instanceLocation + "/"))
  );
}

function alternativeReason(units: Unit[], alt: Unit): string {
  const inner = units.filter((u) => within(u, alt) && !WRAPPERS.has(u.keyword));
  const nested = inner.filter((u) => ALTERNATIVES.has(u.keyword));
  // One group of reasons per branch, in branch order: `a; b | c`.
  const branches = new Map<string, string[]>();
  for (const u of inner) {
    // A nested alternative speaks for the errors inside it.
    if (nested.some((n) => within(u, n))) continue;
    let reason = ALTERNATIVES.has(u.keyword) ? alternativeReason(units, u) : reasonOf(u);
    // Errors below the alternative's own path name their path relative to it.
    if (u.instanceLocation.startsWith(alt.instanceLocation + "/"))
      reason = `${renderPath(`#${u.instanceLocation.slice(alt.instanceLocation.length)}`)}: ${reason}`;
    const branch = u.keywordLocation.slice(alt.keywordLocation.length + 1).split("/")[0];
    const reasons = branches.get(branch) ?? [];
    if (!reasons.includes(reason)) reasons.push(reason);
    branches.set(branch, reasons);
  }
  const shapes = [...new Set([...branches.values()].map((r) => r.join("; ")))];
  return shapes.length ? `does not match any allowed shape (${shapes.join(" | ")})` : reasonOf(alt);
}

export function check(schema: SchemaLike, value: unknown, base = ""): string[] {
  return capLines(checkAll(schema, value, base));
}

/** Every line `check` would answer, uncapped: for answers that list each problem (a document's issues). */
export function checkAll(schema: SchemaLike, value: unknown, base = ""): string[] {
  let lookup: Lookup;
  let result: ReturnType<typeof evaluate>;
  try {
    lookup = lookupFor(schema);
    result = withLinearRegExp(() => evaluate(value, schema as Schema, draftOf(schema), lookup, false));
  } catch (e) {
    // Registration refuses such schemas (src/schema/schema-check.ts); one stored before that check must still answer 4xx.
    const reason = (e as Error).message.split(/\n|\s{2}/)[0];
    throw new ApiError("UNPROCESSABLE_ENTITY", `The schema cannot be evaluated: ${reason}`, { reason });
  }
  if (result.valid) return [];
  return allErrors(
    result.errors.map((u) => (u.keyword === "pattern" ? { ...u, pattern: patternOf(schema, lookup, u.keywordLocation) } : u)),
    base,
  );
}

/** Throws 422 VALIDATION_FAILED with the rendered lines, or returns the value typed. */
export function validate<T>(schema: SchemaLike, value: unknown, message = "Request failed validation", base = ""): T {
  const errors = check(schema, value, base);
  if (errors.length) throw validationFailed(errors, message);
  return value as T;
}

export function validationFailed(errors: string[], message = "Request failed validation"): ApiError {
  return new ApiError("VALIDATION_FAILED", message, { validation_errors: errors, errors });
}
