// The aggregate statement (docs/query.md, Aggregates). The rows are the query
// engine's own: compileQuery's statement (tenant predicate, permission
// narrowing, shared-row confinement, the filter) is the FROM of a GROUP BY,
// which Postgres pulls up into one plan. Group keys and aggregates are
// compiled from the same operands as filters and sorts, every path bound as
// a parameter. Paging is keyset over the groups: the requested order, then
// every group key not named, so the order is total.
import { validationFailed } from "../../../lib/validate";
import type { ReadScope } from "../../../db/entity-access";
import type { Compilation } from "../filter";
import { operandOf, type Operand, type QueryType } from "../operands";
import type { Params } from "../../../db/params";
import { compileQuery } from "../service";
import { after, orderBy, type OrderKey } from "../sort";
import type { FromSchema } from "json-schema-to-ts";
import type { AGGREGATE_FUNCTIONS, BUCKETS, aggregateBody } from "./schemas";

export type Bucket = (typeof BUCKETS)[number];
export type AggregateFn = (typeof AGGREGATE_FUNCTIONS)[number];

export type AggregateInput = FromSchema<typeof aggregateBody, { keepDefaultedPropertiesOptional: true }>;
export type GroupEntry = Exclude<NonNullable<AggregateInput["group_by"]>[number], string[]>;
export type AggregateSpec = AggregateInput["aggregates"][number];
export type AggregateSort = NonNullable<AggregateInput["sort"]>[number];

/**
 * How an answer column's value reads back: `exact` numerics as a JSON number
 * when it prints back as the same decimal, else as text; `average` as the
 * nearest number; `count` as an integer; the rest as the driver gives them
 * (timestamps already in the API's RFC 3339 form, jsonb parsed).
 */
export type ValueKind = "plain" | "exact" | "average" | "count";

export interface OutputColumn {
  /** The key in the answer: a group key in `group`, or an alias beside it. */
  name: string;
  /** g0.. or a0.. in the statement. */
  column: string;
  kind: ValueKind;
}

export interface CompiledAggregate {
  /** `SELECT g0.., a0.. FROM (<the query's rows>) e GROUP BY ...`: one row per group. */
  grouped: string;
  params: Params;
  compilation: Compilation;
  groups: OutputColumn[];
  aggregates: OutputColumn[];
  /** The order of the groups, each key's `sql` a grouped column (g0.., a0..); empty without group_by (one row, nothing to page). */
  keys: OrderKey[];
}

/** A value an aggregate or group reads: its SQL over `e`, its Postgres type, and how the caller names it in errors. */
interface Value {
  sql: string;
  type: "text" | "uuid" | "numeric" | "timestamptz" | "boolean" | "jsonb";
  label: string;
  nullable: boolean;
  /** An unindexed attribute: jsonb, read as a number when it holds one. */
  operand?: Operand;
}

const bad = (at: string, reason: string) => validationFailed([`${at}: ${reason}`], "Aggregate is invalid");

/** The group key a path answers under when no `as` names it. */
export const groupKeyOf = (entry: string[] | GroupEntry): string => (Array.isArray(entry) ? entry.join(".") : (entry.as ?? entry.path.join(".")));

const entryOf = (entry: string[] | GroupEntry): GroupEntry => (Array.isArray(entry) ? { path: entry } : entry);

/**
 * The value at `path` on the row alias `e`, or null when the path names no
 * field of an entity (a warning, as for filters: it groups as one null group
 * and aggregates as nothing).
 */
function valueAt(path: string[], type: QueryType, c: Compilation, at: string, shared: boolean): Value | null {
  if (path[0] === "relationships") throw bad(at, "cannot group or aggregate by a relationship path (filter by it instead)");
  const label = path.join(".");
  // Rows another tenant shares carry source_type: shared; the caller's own carry none.
  if (path.length === 1 && path[0] === "source_type") return { sql: shared ? "'shared'::text" : "NULL::text", type: "text", label, nullable: !shared };
  const operand = operandOf(path, type, "e", c, at);
  if (!operand) return null;
  switch (operand.kind) {
    case "column":
      return { sql: operand.sql, type: operand.type, label, nullable: false };
    case "indexed": {
      const indexed = operand.type === "text_array" ? "jsonb" : operand.type;
      return { sql: operand.at.typed(operand.type), type: indexed, label: `${label} (indexed ${operand.type})`, nullable: true };
    }
    case "attribute":
      // A JSON null is no value, as a missing attribute is.
      return { sql: `NULLIF(${operand.at.json}, 'null'::jsonb)`, type: "jsonb", label, nullable: true, operand };
  }
}

/** The value as a number: indexed numerics as they are, unindexed attributes when they hold a JSON number; null when it is no number at all. */
function numericOf(v: Value): string | null {
  if (v.type === "numeric") return v.sql;
  if (v.operand?.kind === "attribute") {
    const at = v.operand.at;
    return `(CASE WHEN jsonb_typeof(${at.json}) = 'number' THEN (${at.text})::numeric END)`;
  }
  return null;
}

/** The SQL unit of each bucket, so no request text reaches the statement. */
const UNITS: Record<Bucket, string> = { hour: "hour", day: "day", week: "week", month: "month", year: "year" };

/** `at` is the entry's place in the request, `pathAt` its path's (the entry itself when it is a bare path). */
function groupColumn(
  entry: GroupEntry,
  type: QueryType,
  c: Compilation,
  at: string,
  pathAt: string,
  shared: boolean,
): { sql: string; cast: string; nullable: boolean } {
  const v = valueAt(entry.path, type, c, pathAt, shared);
  if (entry.bucket !== undefined) {
    if (v && v.type !== "timestamptz") throw bad(`${at}.bucket`, `applies to timestamps (created_at, updated_at, timestamptz attributes), not ${v.label}`);
    // date_trunc with a zone truncates the UTC wall clock: a day is a UTC day, a week starts on a UTC Monday.
    return v
      ? { sql: `date_trunc('${UNITS[entry.bucket]}', ${v.sql}, 'UTC')`, cast: "timestamptz", nullable: v.nullable }
      : { sql: "NULL::timestamptz", cast: "timestamptz", nullable: true };
  }
  return v ? { sql: v.sql, cast: v.type, nullable: v.nullable } : { sql: "NULL::text", cast: "text", nullable: true };
}

function aggregateColumn(
  spec: AggregateSpec,
  type: QueryType,
  c: Compilation,
  at: string,
  shared: boolean,
): { sql: string; cast: string; kind: ValueKind; nullable: boolean } {
  if (spec.fn === "count" && spec.path === undefined) return { sql: "count(*)", cast: "bigint", kind: "count", nullable: false };
  if (spec.path === undefined) throw bad(`${at}.path`, `is required for ${spec.fn}`);
  const v = valueAt(spec.path, type, c, `${at}.path`, shared);
  if (spec.fn === "count" || spec.fn === "count_distinct") {
    const distinct = spec.fn === "count_distinct" ? "DISTINCT " : "";
    return { sql: v ? `count(${distinct}${v.sql})` : "0::bigint", cast: "bigint", kind: "count", nullable: false };
  }
  const numeric = v ? numericOf(v) : "NULL::numeric";
  const timestamp = v?.type === "timestamptz" && (spec.fn === "min" || spec.fn === "max");
  if (v && !numeric && !timestamp) {
    const over = spec.fn === "min" || spec.fn === "max" ? "numeric and timestamp values" : "numeric values";
    throw bad(`${at}.path`, `${spec.fn} applies to ${over}, not ${v.label}`);
  }
  if (timestamp) return { sql: `${spec.fn}(${v.sql})`, cast: "timestamptz", kind: "plain", nullable: true };
  return { sql: `${spec.fn}(${numeric})`, cast: "numeric", kind: spec.fn === "avg" ? "average" : "exact", nullable: true };
}

/** Every name an answer row holds is unique: group keys among themselves, aliases among themselves and against the group keys and `group`. */
function checkNames(input: AggregateInput): void {
  const groupKeys = new Map<string, number>();
  (input.group_by ?? []).forEach((entry, i) => {
    const key = groupKeyOf(entry);
    if (groupKeys.has(key)) throw bad(`group_by[${i}]`, `group key ${key} is already group_by[${groupKeys.get(key)}]'s (name one with as)`);
    groupKeys.set(key, i);
  });
  const aliases = new Map<string, number>();
  input.aggregates.forEach((spec, i) => {
    if (spec.as === "group") throw bad(`aggregates[${i}].as`, "group is where the group keys are (choose another alias)");
    if (aliases.has(spec.as)) throw bad(`aggregates[${i}].as`, `${spec.as} is already aggregates[${aliases.get(spec.as)}]'s alias`);
    if (groupKeys.has(spec.as)) throw bad(`aggregates[${i}].as`, `${spec.as} is also the group key of group_by[${groupKeys.get(spec.as)}]`);
    aliases.set(spec.as, i);
  });
}

/** Compiles an aggregate request over the rows `scope` lets the caller read of `type`. */
export function compileAggregate(scope: ReadScope, type: QueryType, types: Map<string, QueryType>, input: AggregateInput): CompiledAggregate {
  checkNames(input);
  const query = compileQuery(scope, type, types, { filter: input.filter });
  const c = query.compilation;
  const shared = scope.shared !== null;
  const groupSql = (input.group_by ?? []).map((entry, i) =>
    groupColumn(entryOf(entry), type, c, `group_by[${i}]`, Array.isArray(entry) ? `group_by[${i}]` : `group_by[${i}].path`, shared),
  );
  const aggSql = input.aggregates.map((spec, i) => aggregateColumn(spec, type, c, `aggregates[${i}]`, shared));

  const select = [...groupSql.map((g, i) => `${g.sql} AS g${i}`), ...aggSql.map((a, i) => `${a.sql} AS a${i}`)].join(", ");
  const groupBy = groupSql.length ? ` GROUP BY ${groupSql.map((_, i) => i + 1).join(", ")}` : "";
  const grouped = `SELECT ${select} FROM (${query.inner}) e${groupBy}`;

  const groups = (input.group_by ?? []).map(
    (entry, i): OutputColumn => ({ name: groupKeyOf(entry), column: `g${i}`, kind: groupSql[i].cast === "numeric" ? "exact" : "plain" }),
  );
  const aggregates = input.aggregates.map((spec, i): OutputColumn => ({ name: spec.as, column: `a${i}`, kind: aggSql[i].kind }));

  const keys: OrderKey[] = [];
  if (groups.length) {
    const named = new Set<string>();
    (input.sort ?? []).forEach((s, i) => {
      const g = groups.findIndex((x) => x.name === s.key);
      const a = aggregates.findIndex((x) => x.name === s.key);
      if (g < 0 && a < 0) throw bad(`sort[${i}].key`, `${s.key} names no group key or aggregate alias`);
      if (named.has(s.key)) throw bad(`sort[${i}].key`, `${s.key} is already sorted by`);
      named.add(s.key);
      const col = g >= 0 ? groupSql[g] : aggSql[a];
      keys.push({ sql: g >= 0 ? `g${g}` : `a${a}`, cast: col.cast, desc: s.direction === "desc", nullable: col.nullable });
    });
    // The group keys together are unique: ending the order with those not yet named makes it total.
    groups.forEach((g, i) => {
      if (named.has(g.name)) return;
      keys.push({ sql: `g${i}`, cast: groupSql[i].cast, desc: false, nullable: groupSql[i].nullable });
    });
  } else if (input.sort?.length) {
    throw bad("sort", "applies to groups: without group_by the answer is one row");
  }
  return { grouped, params: query.params, compilation: c, groups, aggregates, keys };
}

/**
 * The page statement: `limit` groups after `position` (one value per order
 * key, as text) in the order, each with its order keys as text (c0..) for
 * the next cursor. Binds what it adds.
 */
export function aggregateStatement(plan: CompiledAggregate, position: unknown[] | null, limit: number): string {
  const column = (i: number) => `q.${plan.keys[i].sql}`;
  const cursorKeys = plan.keys.map((k, i) => `, q.${k.sql}::text AS c${i}`).join("");
  let text = `SELECT q.*${cursorKeys} FROM (${plan.grouped}) q`;
  if (position) text += ` WHERE ${after(plan.keys, position, column, plan.params)}`;
  if (plan.keys.length) text += ` ORDER BY ${orderBy(plan.keys, column)}`;
  return `${text} LIMIT ${plan.params.add(limit, "int")}`;
}
