// One write rule for every config scope (app, integration, company, team,
// user): the patch is merged into the stored value, the scope schema's
// defaults for properties still unset are stored too, and the effective
// value (the definition's `config.<scope>` under the stored one) must satisfy
// the scope's schema and leave every `x-immutable` property the definition
// sets at the definition's value. A refusal is 422 naming the scope.
import { ApiError } from "../../lib/errors";
import { checkAll, capLines, type JsonSchema } from "../../lib/validate";
import { effectiveConfig, mergePatch, patchAt, sameJson, valueAt, type ConfigObject } from "./merge";
import { isObject } from "../../lib/is-object";

export const SCOPES = ["app", "integration", "company", "team", "user"] as const;
export type Scope = (typeof SCOPES)[number];

/** What a scope's writes are checked against, from the spec version in use. */
export interface ScopeRules {
  scope: Scope;
  /** The definition's `config.<scope>`. */
  definition: ConfigObject | undefined;
  /** The schema `configSchemas.<scope>` names; undefined: unvalidated. */
  schema: JsonSchema | undefined;
}

export function scopeFailed(scope: Scope, errors: string[], message: string): ApiError {
  const lines = capLines(errors);
  return new ApiError("VALIDATION_FAILED", message, { scope, validation_errors: lines, errors: lines });
}

type Walk = (path: string[], property: ConfigObject) => void;

/** Every property the schema declares through nested `properties`, outermost first. */
function walkProperties(schema: unknown, visit: Walk, path: string[] = []): void {
  if (!isObject(schema) || !isObject(schema.properties)) return;
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    visit([...path, key], property);
    walkProperties(property, visit, [...path, key]);
  }
}

/** Patches storing each schema `default` whose property the effective value leaves unset (under objects it holds). */
function defaultsPatch(schema: JsonSchema | undefined, effective: ConfigObject): ConfigObject {
  let patch: ConfigObject = {};
  walkProperties(schema, (path, property) => {
    if (!Object.hasOwn(property, "default") || property.default === null) return;
    const parent = path.length === 1 ? effective : valueAt(effective, path.slice(0, -1));
    if (isObject(parent) && !Object.hasOwn(parent, path[path.length - 1])) patch = mergePatch(patch, patchAt(path, property.default)) as ConfigObject;
  });
  return patch;
}

function immutableViolations(rules: ScopeRules, effective: ConfigObject): string[] {
  const lines: string[] = [];
  walkProperties(rules.schema, (path, property) => {
    if (property["x-immutable"] !== true) return;
    const fixed = valueAt(rules.definition, path);
    if (fixed !== undefined && !sameJson(valueAt(effective, path), fixed))
      lines.push(`${path.join(".")}: is immutable: the definition sets it to ${JSON.stringify(fixed)}`);
  });
  return lines;
}

/** The stored value after `patch`, or 422 (nothing to write). */
export function writeScope(rules: ScopeRules, stored: ConfigObject, patch: ConfigObject | undefined): ConfigObject {
  let next = patch === undefined ? stored : (mergePatch(stored, patch) as ConfigObject);
  next = mergePatch(next, defaultsPatch(rules.schema, effectiveConfig(rules.definition, next))) as ConfigObject;
  const effective = effectiveConfig(rules.definition, next);
  const immutable = immutableViolations(rules, effective);
  if (immutable.length) throw scopeFailed(rules.scope, immutable, `The ${rules.scope} config overrides a value the definition fixes`);
  if (rules.schema !== undefined) {
    const errors = checkAll(rules.schema, effective);
    if (errors.length) throw scopeFailed(rules.scope, errors, `The ${rules.scope} config does not satisfy its schema`);
  }
  return next;
}
