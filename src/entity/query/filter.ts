// The filter compiler (docs/query.md, Filters): a filter tree becomes one SQL
// boolean over an entity row alias, every value and attribute name bound as a
// parameter. Pure: it needs the types involved (preloaded by the caller) and
// reads nothing else.
//
// Truth: a particle is true, or false/NULL (which WHERE, AND and OR treat
// alike as long as no NOT is above). `not` wraps its operand in COALESCE(...,
// false) so a NULL from a missing attribute negates to true, as "matches
// nothing" should. Particles stay bare elsewhere so the planner can match
// them to indexes.
import { isUuid } from "../../lib/ids";
import { validationFailed } from "../../lib/validate";
import { operandOf, type Operand, type QueryType } from "./operands";
import type { Params } from "../../db/params";
import { confineRow, unreadable, type ReadScope } from "../../db/entity-access";
import { noType } from "./warnings";
import { isObject } from "../../lib/is-object";

export const MAX_FILTER_DEPTH = 25;
const MAX_PATH = 12;
const MAX_IN = 1000;
const MAX_TEXT = 10_000;
export const DEFAULT_FUZZY_THRESHOLD = 0.6;

const COMPOSITES = ["and", "or", "not"] as const;
export const OPERATORS = ["eq", "neq", "is", "gt", "gte", "lt", "lte", "in", "like", "ilike", "segment", "fuzzy", "cs", "ov", "exists", "rel_exists"] as const;
type Operator = (typeof OPERATORS)[number];
const RANGE: Record<string, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

export interface Particle {
  operator: Operator;
  path: string[];
  value?: unknown;
  optional?: boolean;
  threshold?: number;
}

/** What one compilation produced besides the SQL. */
export interface Compilation {
  params: Params;
  /**
   * The tenant predicate's placeholder. The compiled statements run without
   * row-level security (db/client.ts Database.tenantRead), so every table
   * they read is confined to the tenant by this parameter.
   */
  readonly tenant: string;
  /** The rows the caller may read (db/entity-access.ts); every entity row the statement reaches is confined to it. */
  readonly scope: ReadScope;
  /** Types by name, for relationship paths; missing names match nothing. */
  typeByName(name: string): QueryType | undefined;
  /** Thresholds of `fuzzy` particles served by a trigram index (the caller sets pg_trgm.similarity_threshold to the lowest). */
  trigramThresholds: number[];
  /**
   * `<where>: <what>` lines for paths that name nothing the schema or the
   * caller knows: they still match nothing, and the answer says so.
   */
  warnings: string[];
  aliases: number;
}

export function newCompilation(params: Params, scope: ReadScope, typeByName: (name: string) => QueryType | undefined): Compilation {
  let tenant: string | undefined;
  return {
    params,
    scope,
    typeByName,
    trigramThresholds: [],
    warnings: [],
    aliases: 0,
    // Bound on first use: a placeholder no statement refers to is an error.
    get tenant() {
      return (tenant ??= params.add(scope.tenantId, "uuid"));
    },
  };
}

interface Scope {
  type: QueryType;
  alias: string;
}

const TRUE = "TRUE";
const FALSE = "FALSE";

const bad = (at: string, reason: string) => validationFailed([`${at}: ${reason}`], "Filter is invalid");

/** Postgres text cannot hold NUL or lone surrogates; refusing them here keeps them from ever reaching SQL. */
function checkText(s: string, at: string): string {
  if (s.length > MAX_TEXT) throw bad(at, `must be at most ${MAX_TEXT} characters`);
  if (s.includes("\u0000") || !s.isWellFormed()) throw bad(at, "must not contain NUL characters or unpaired surrogates");
  return s;
}

function checkValueText(value: unknown, at: string): void {
  if (typeof value === "string") checkText(value, at);
  else if (Array.isArray(value)) value.forEach((v, i) => checkValueText(v, `${at}[${i}]`));
}

/** Every type name a filter's relationship paths mention, so the caller can load them first. */
export function relatedTypeNames(filter: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (!isObject(filter) || depth > MAX_FILTER_DEPTH + 1) return out;
  if (Array.isArray(filter.filters)) for (const f of filter.filters) relatedTypeNames(f, out, depth + 1);
  const path = filter.path;
  if (Array.isArray(path) && path[0] === "relationships" && typeof path[1] === "string") {
    out.add(path[1]);
    if (filter.operator === "rel_exists") relatedTypeNames(filter.value, out, depth + 1);
  }
  return out;
}

/** Compiles `filter` over `alias` (an entities row of `type`). */
export function compileFilter(filter: unknown, type: QueryType, alias: string, c: Compilation, at = "filter"): string {
  return compileNode(filter, { type, alias }, c, at, 0);
}

function compileNode(node: unknown, scope: Scope, c: Compilation, at: string, depth: number): string {
  if (!isObject(node)) throw bad(at, "must be an object");
  const op = node.operator;
  if (typeof op !== "string") throw bad(`${at}.operator`, "is required");
  if ((COMPOSITES as readonly string[]).includes(op)) {
    if (depth + 1 > MAX_FILTER_DEPTH) throw bad(at, `filters nest at most ${MAX_FILTER_DEPTH} levels`);
    for (const key of Object.keys(node)) if (key !== "operator" && key !== "filters") throw bad(`${at}.${key}`, "is not allowed on a composite");
    if (!Array.isArray(node.filters)) throw bad(`${at}.filters`, "must be an array");
    const parts = node.filters.map((f, i) => compileNode(f, scope, c, `${at}.filters[${i}]`, depth + 1));
    if (op === "not") {
      if (!parts.length) throw bad(`${at}.filters`, "must not be empty for not");
      return `(NOT COALESCE((${parts.join(" AND ")}), false))`;
    }
    if (!parts.length) return op === "and" ? TRUE : FALSE;
    return parts.length === 1 ? parts[0] : `(${parts.join(op === "and" ? " AND " : " OR ")})`;
  }
  if (!(OPERATORS as readonly string[]).includes(op)) throw bad(`${at}.operator`, `must be one of ${[...COMPOSITES, ...OPERATORS].join(", ")}`);
  const particle = checkParticle(node, at);
  if (particle.optional && isEmptyValue(particle.value)) return TRUE;
  return compileParticle(particle, scope, c, at, depth);
}

function checkParticle(node: Record<string, unknown>, at: string): Particle {
  for (const key of Object.keys(node)) {
    if (!["operator", "path", "value", "optional", "threshold"].includes(key)) throw bad(`${at}.${key}`, "is not allowed on a particle");
  }
  const { path, optional, threshold } = node;
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATH) throw bad(`${at}.path`, `must be an array of 1 to ${MAX_PATH} strings`);
  path.forEach((seg, i) => {
    if (typeof seg !== "string" || seg.length === 0) throw bad(`${at}.path[${i}]`, "must be a non-empty string");
    checkText(seg, `${at}.path[${i}]`);
  });
  if (optional !== undefined && typeof optional !== "boolean") throw bad(`${at}.optional`, "must be a boolean");
  if (threshold !== undefined && (typeof threshold !== "number" || threshold < 0 || threshold > 1))
    throw bad(`${at}.threshold`, "must be a number from 0 to 1");
  if (threshold !== undefined && node.operator !== "fuzzy") throw bad(`${at}.threshold`, "only applies to fuzzy");
  if (node.operator !== "rel_exists") checkValueText(node.value, `${at}.value`);
  return node as unknown as Particle;
}

/** An app's optional particle whose value did not resolve is left out. */
function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
}

function compileParticle(p: Particle, scope: Scope, c: Compilation, at: string, depth: number): string {
  if (p.path[0] === "relationships") return compileRelationship(p, scope, c, at, depth);
  if (p.operator === "exists" || p.operator === "rel_exists") throw bad(`${at}.path`, `${p.operator} needs a path ["relationships", "<TypeName>"]`);
  const operand = operandOf(p.path, scope.type, scope.alias, c, `${at}.path`);
  if (!operand) return FALSE;
  switch (operand.kind) {
    case "column":
      return onColumn(operand, p, c, at);
    case "indexed":
      return onIndexed(operand, p, c, at);
    case "attribute":
      return onAttribute(operand, p, c, at);
  }
}

// --- relationships -------------------------------------------------------

function compileRelationship(p: Particle, scope: Scope, c: Compilation, at: string, depth: number): string {
  const [, typeName, ...rest] = p.path;
  if (typeName === undefined) throw bad(`${at}.path`, 'a relationships path is ["relationships", "<TypeName>", ...] or ["relationships", "rule", "name"]');
  if (typeName === "rule" && rest.length === 1 && rest[0] === "name") {
    if (p.operator === "exists" || p.operator === "rel_exists") throw bad(`${at}.path`, `${p.operator} takes the path ["relationships", "<TypeName>"]`);
    const rule = { kind: "column", sql: "rr.name", type: "text", trigram: false } as const;
    const cond = onColumn(rule, p, c, at);
    const far = `x${++c.aliases}`;
    const confined = confineRow(c.scope, far, c.params);
    // A link counts only when the caller may read the row at its other end.
    const farEnd = confined
      ? ` AND EXISTS (SELECT 1 FROM entities ${far} WHERE ${far}.id = CASE WHEN r.from_entity_id = ${scope.alias}.id THEN r.to_entity_id ELSE r.from_entity_id END AND ${confined})`
      : "";
    return `EXISTS (SELECT 1 FROM relationships r JOIN relationship_rules rr ON rr.id = r.rule_id AND rr.tenant_id = ${c.tenant}
      WHERE r.tenant_id = ${c.tenant} AND r.deleted_at IS NULL AND (r.from_entity_id = ${scope.alias}.id OR r.to_entity_id = ${scope.alias}.id) AND ${cond}${farEnd})`;
  }
  const found = c.typeByName(typeName);
  // A type the caller reaches no row of is, to its filters, a type that does not exist, warning included.
  const related = found && !unreadable(c.scope, found) ? found : undefined;
  if (!related) c.warnings.push(`${at}.path: ${noType(typeName)}`);
  if (rest.length === 0) {
    if (p.operator === "exists") return related ? linkedExists(scope.alias, related, TRUE, c) : FALSE;
    if (p.operator === "rel_exists") {
      if (!isObject(p.value)) throw bad(`${at}.value`, "must be a filter over the related row");
      // A filter inside a filter: a level, as a composite is, whatever types exist.
      if (depth + 1 > MAX_FILTER_DEPTH) throw bad(at, `filters nest at most ${MAX_FILTER_DEPTH} levels`);
      if (!related) return FALSE;
      const alias = `x${++c.aliases}`;
      const before = c.aliases;
      const inner = compileNode(p.value, { type: related, alias }, c, `${at}.value`, depth + 1);
      return linkedExists(scope.alias, related, inner, c, alias, c.aliases > before);
    }
    throw bad(`${at}.operator`, `${p.operator} needs a path to a field of the related row`);
  }
  if (p.operator === "exists" || p.operator === "rel_exists") throw bad(`${at}.path`, `${p.operator} takes the path ["relationships", "<TypeName>"]`);
  if (!related) return FALSE;
  const alias = `x${++c.aliases}`;
  const before = c.aliases;
  const inner = compileParticle({ ...p, path: rest }, { type: related, alias }, c, at, depth);
  return linkedExists(scope.alias, related, inner, c, alias, c.aliases > before);
}

/**
 * A live link in either direction to a live entity of `related` satisfying
 * `cond` (over `alias`).
 *
 * A plain condition is checked per anchor row, one correlated EXISTS per
 * direction: both walk the link indexes from the anchor and stop at the
 * first match, so a page of anchors never computes the whole related set.
 *
 * A condition that itself reaches related rows (`nested`: `rel_exists`
 * inside `rel_exists`) is written once, as a set: the matching related rows
 * (the CTE), then the entities linked to them either way. Written once per
 * direction, it doubled the statement at every level (2^n subqueries at n
 * levels); correlated to the anchor, a plan may rescan the related type per
 * row of the level above. As an uncorrelated set per level, Postgres computes
 * each level once per statement and the work grows with the nesting.
 */
function linkedExists(anchor: string, related: QueryType, relatedCond: string, c: Compilation, alias = `x${++c.aliases}`, nested = false): string {
  const typeId = c.params.add(related.id, "uuid");
  const confined = confineRow(c.scope, alias, c.params, related);
  const cond = confined ? `${relatedCond} AND ${confined}` : relatedCond;
  if (!nested) {
    const side = (near: string, far: string) =>
      `EXISTS (SELECT 1 FROM relationships r JOIN entities ${alias} ON ${alias}.id = r.${far} AND ${alias}.tenant_id = ${c.tenant}
      WHERE r.tenant_id = ${c.tenant} AND r.${near} = ${anchor}.id AND r.deleted_at IS NULL AND ${alias}.type_id = ${typeId} AND ${alias}.deleted_at IS NULL AND ${cond})`;
    return `(${side("from_entity_id", "to_entity_id")} OR ${side("to_entity_id", "from_entity_id")})`;
  }
  const matches = `${alias}_ids`;
  const side = (near: string, far: string) =>
    `SELECT r.${near} FROM relationships r JOIN ${matches} m ON m.id = r.${far} WHERE r.tenant_id = ${c.tenant} AND r.deleted_at IS NULL`;
  return `(${anchor}.id IN (WITH ${matches} AS (SELECT ${alias}.id FROM entities ${alias} WHERE ${alias}.tenant_id = ${c.tenant} AND ${alias}.type_id = ${typeId} AND ${alias}.deleted_at IS NULL AND ${cond})
      ${side("from_entity_id", "to_entity_id")} UNION ALL ${side("to_entity_id", "from_entity_id")}))`;
}

// --- operators -----------------------------------------------------------

const notApplicable = (p: Particle, what: string, at: string) => bad(`${at}.operator`, `${p.operator} does not apply to ${what}`);

function requireString(p: Particle, at: string): string {
  if (typeof p.value !== "string") throw bad(`${at}.value`, `must be a string for ${p.operator}`);
  return p.value;
}

function requireArray(p: Particle, at: string): unknown[] {
  if (!Array.isArray(p.value)) throw bad(`${at}.value`, `must be an array for ${p.operator}`);
  if (p.value.length > MAX_IN) throw bad(`${at}.value`, `must have at most ${MAX_IN} items`);
  return p.value;
}

function requireScalar(p: Particle, at: string): string | number | boolean {
  const v = p.value;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (v === null) throw bad(`${at}.value`, `must not be null for ${p.operator} (use is)`);
  throw bad(`${at}.value`, `must be a string, number or boolean for ${p.operator}`);
}

function requireIsValue(p: Particle, at: string): null | boolean {
  if (p.value === null || p.value === true || p.value === false) return p.value;
  throw bad(`${at}.value`, "must be null, true or false for is");
}

/** Escapes LIKE's wildcards so `s` matches itself. */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (m) => `\\${m}`);
}

const TEXT_OPERATORS = ["like", "ilike", "segment", "fuzzy"] as const;
type TextOperator = (typeof TEXT_OPERATORS)[number];
const isTextOperator = (op: Operator): op is TextOperator => (TEXT_OPERATORS as readonly string[]).includes(op);

/** Text operators shared by every text operand (`text` is a text expression that may be NULL). */
function textOperator(text: string, op: TextOperator, p: Particle, c: Compilation, at: string, trigram: boolean): string {
  const v = requireString(p, at);
  switch (op) {
    case "like":
    case "ilike":
      // Postgres refuses a pattern whose last character is an unescaped escape.
      if ((/\\+$/.exec(v)?.[0].length ?? 0) % 2 === 1) throw bad(`${at}.value`, "must not end with an unescaped backslash (write \\\\ for a literal one)");
      return `(platform_unaccent(${text}) ${op === "like" ? "LIKE" : "ILIKE"} platform_unaccent(${c.params.add(v, "text")}))`;
    case "segment": {
      const exact = `(${c.params.add(v, "text")} = ANY(string_to_array(trim(both '|' from ${text}), '|')))`;
      // The trigram index narrows the candidates; the exact segment test decides.
      if (!trigram) return exact;
      return `(platform_unaccent(${text}) LIKE platform_unaccent(${c.params.add(`%${likeLiteral(v)}%`, "text")}) AND ${exact})`;
    }
    case "fuzzy": {
      // Below any similarity two texts can have (their trigram counts are bounded), a threshold means 0; Postgres's real would underflow.
      const threshold = (p.threshold ?? DEFAULT_FUZZY_THRESHOLD) < 1e-6 ? 0 : (p.threshold ?? DEFAULT_FUZZY_THRESHOLD);
      const term = c.params.add(v, "text");
      if (!trigram) return `(strpos(lower(platform_unaccent(${text})), lower(platform_unaccent(${term}))) > 0)`;
      c.trigramThresholds.push(threshold);
      return `(platform_unaccent(${text}) % platform_unaccent(${term}) AND similarity(platform_unaccent(${text}), platform_unaccent(${term})) >= ${c.params.add(threshold, "real")})`;
    }
  }
}

function onColumn(o: Extract<Operand, { kind: "column" }>, p: Particle, c: Compilation, at: string): string {
  const what = o.type === "uuid" ? "id" : o.type === "timestamptz" ? "timestamps" : "text fields";
  if (p.operator === "is") {
    requireIsValue(p, at);
    return FALSE; // these columns are never null and never boolean
  }
  if (p.operator === "cs" || p.operator === "ov") throw notApplicable(p, what, at);
  if (isTextOperator(p.operator)) {
    if (o.type !== "text") throw notApplicable(p, what, at);
    return textOperator(o.sql, p.operator, p, c, at, o.trigram);
  }
  if (o.type === "uuid" && RANGE[p.operator]) throw notApplicable(p, what, at);

  // Postgres reads a uuid in either case, so a filter value may be upper case.
  const accepts = (v: unknown): v is string => typeof v === "string" && (o.type !== "uuid" || isUuid(v.toLowerCase()));
  if (o.type === "timestamptz") {
    const values = p.operator === "in" ? requireArray(p, at) : [requireScalar(p, at)];
    values.forEach((v, i) => {
      if (typeof v !== "string" || !isTimestamp(v)) throw bad(p.operator === "in" ? `${at}.value[${i}]` : `${at}.value`, "must be an RFC 3339 timestamp");
    });
  }
  if (p.operator === "in") {
    const values = requireArray(p, at).filter(accepts);
    return values.length ? `(${o.sql} = ANY(${c.params.add(values, `${o.type}[]`)}))` : FALSE;
  }
  const v = requireScalar(p, at);
  // Another type of value never equals a string column: eq matches nothing, neq everything.
  if (!accepts(v)) return p.operator === "neq" ? TRUE : FALSE;
  const param = c.params.add(v, o.type);
  if (p.operator === "eq") return `(${o.sql} = ${param})`;
  if (p.operator === "neq") return `(${o.sql} <> ${param})`;
  return `(${o.sql} ${RANGE[p.operator]} ${param})`;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * An RFC 3339 timestamp (or a date) every field of which Postgres accepts:
 * a real calendar day of years 1 to 9999, and offsets within ±15:59.
 */
function isTimestamp(v: string): boolean {
  const m = TIMESTAMP.exec(v);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m
    .slice(1)
    .map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year >= 1 && days !== undefined && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 15 && offsetMinutes <= 59;
}

function onIndexed(o: Extract<Operand, { kind: "indexed" }>, p: Particle, c: Compilation, at: string): string {
  const label = `attributes.${o.attr.path.join(".")} (indexed ${o.type})`;
  if (p.operator === "is") {
    const v = requireIsValue(p, at);
    // A stored value that is not an array counts as missing, as it does for cs and ov.
    if (v === null) return o.type === "text_array" ? `(jsonb_typeof(${o.at.typed(o.type)}) IS DISTINCT FROM 'array')` : `(${o.at.typed(o.type)} IS NULL)`;
    if (o.type !== "boolean") throw bad(`${at}.value`, `is true/false applies to boolean attributes, not ${label}`);
    return `(${o.at.typed(o.type)} = ${c.params.add(v, "boolean")})`;
  }
  if (o.type === "text_array") {
    if (p.operator !== "cs" && p.operator !== "ov") throw notApplicable(p, label, at);
    const values = requireArray(p, at);
    if (!values.every((v) => typeof v === "string")) throw bad(`${at}.value`, `must be an array of strings for ${p.operator}`);
    return arrayOperator(() => o.at.typed(o.type), p.operator, values as string[], c);
  }
  if (p.operator === "cs" || p.operator === "ov") throw notApplicable(p, label, at);
  if (isTextOperator(p.operator)) {
    if (o.type !== "text") throw notApplicable(p, label, at);
    return textOperator(o.at.typed(o.type), p.operator, p, c, at, o.attr.searchable);
  }
  if (o.type === "boolean" && RANGE[p.operator]) throw notApplicable(p, label, at);

  const scalarType = o.type;
  const fits = (v: unknown): boolean =>
    scalarType === "numeric"
      ? typeof v === "number"
      : scalarType === "boolean"
        ? typeof v === "boolean"
        : scalarType === "timestamptz"
          ? typeof v === "string" && isTimestamp(v)
          : typeof v === "string";
  const need = { text: "a string", numeric: "a number", timestamptz: "an RFC 3339 timestamp", boolean: "a boolean" }[o.type];
  if (p.operator === "in") {
    const values = requireArray(p, at);
    values.forEach((v, i) => {
      if (!fits(v)) throw bad(`${at}.value[${i}]`, `must be ${need} for ${label}`);
    });
    return values.length ? `(${o.at.typed(o.type)} = ANY(${c.params.add(values, `${o.type}[]`)}))` : FALSE;
  }
  const v = requireScalar(p, at);
  if (!fits(v)) throw bad(`${at}.value`, `must be ${need} for ${label}`);
  const param = c.params.add(v, o.type);
  if (p.operator === "eq") return `(${o.at.typed(o.type)} = ${param})`;
  if (p.operator === "neq") return `(${o.at.typed(o.type)} <> ${param})`;
  return `(${o.at.typed(o.type)} ${RANGE[p.operator]} ${param})`;
}

function arrayOperator(json: () => string, op: "cs" | "ov", values: string[], c: Compilation): string {
  if (op === "cs") return `(jsonb_typeof(${json()}) = 'array' AND ${json()} @> ${c.params.add(JSON.stringify(values), "jsonb")})`;
  if (!values.length) return FALSE;
  return `(jsonb_typeof(${json()}) = 'array' AND ${json()} ?| ${c.params.add(values, "text[]")})`;
}

/** Unindexed attributes compare as JSON: a string never equals a number, and ranges only compare like with like. */
function onAttribute(o: Extract<Operand, { kind: "attribute" }>, p: Particle, c: Compilation, at: string): string {
  // Getters, not values: a particle that compiles to a constant must not bind the path.
  const value = o.at;
  const asString = () => `(CASE WHEN jsonb_typeof(${value.json}) = 'string' THEN ${value.text} END)`;
  switch (p.operator) {
    case "eq":
      return `(${value.json} = ${c.params.add(JSON.stringify(requireScalar(p, at)), "jsonb")})`;
    case "neq":
      return `(${value.json} <> ${c.params.add(JSON.stringify(requireScalar(p, at)), "jsonb")})`;
    case "is": {
      const v = requireIsValue(p, at);
      return v === null ? `(${value.json} IS NULL OR ${value.json} = 'null'::jsonb)` : `(${value.json} = ${c.params.add(JSON.stringify(v), "jsonb")})`;
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const v = requireScalar(p, at);
      if (typeof v === "number")
        return `((CASE WHEN jsonb_typeof(${value.json}) = 'number' THEN (${value.text})::numeric END) ${RANGE[p.operator]} ${c.params.add(v, "numeric")})`;
      if (typeof v === "string") return `(${asString()} ${RANGE[p.operator]} ${c.params.add(v, "text")})`;
      throw bad(`${at}.value`, `must be a string or number for ${p.operator}`);
    }
    case "in": {
      const values = requireArray(p, at);
      values.forEach((v, i) => {
        if (typeof v !== "string" && typeof v !== "number") throw bad(`${at}.value[${i}]`, "must be a string or number");
      });
      return values.length
        ? `(${value.json} = ANY(${c.params.add(
            values.map((v) => JSON.stringify(v)),
            "jsonb[]",
          )}))`
        : FALSE;
    }
    case "like":
    case "ilike":
    case "segment":
    case "fuzzy":
      return textOperator(asString(), p.operator, p, c, at, false);
    case "cs":
    case "ov": {
      const values = requireArray(p, at);
      if (!values.every((v) => typeof v === "string")) throw bad(`${at}.value`, `must be an array of strings for ${p.operator}`);
      return arrayOperator(() => value.json, p.operator, values as string[], c);
    }
    default:
      throw notApplicable(p, "attributes", at);
  }
}
