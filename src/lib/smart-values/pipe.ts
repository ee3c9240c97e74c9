// `$pipe`: how rows are reshaped, in either of its two forms. A JSONata
// expression string reads the rows as `$rows` and gives the result whole. An
// array of steps, each an object with one key, runs the steps in order over
// the rows:
//   { map: "<expr>" }                 each row becomes the expression's value (the row is its input)
//   { filter: "<expr>" }              the rows for which the predicate is truthy (the row is its input)
//   { orderBy: [{ path, direction }] } a stable sort, nulls last in either direction
//   { orderByList: { path, list } }   rows whose value is in `list` first, in its order; the rest after, as they were
//   { distinct: ["<dotted>", ...] }   the first row of each combination of values
//   { leftJoin: { source, localKey, foreignKey, as } }
//                                     each row gets `as`: the first row of `source` whose `foreignKey` equals its `localKey`, or null
//   { guardedProject: { field: "<dotted>" } }
//                                     each row becomes an object of these fields, a missing value as null
// `leftJoin` reads another data source, which only a caller with sources (an
// app page) can give: without one, a pipe holding it is refused.
import { ExpressionError, ExpressionSyntaxError } from "./errors";
import { isTruthy } from "./json";
import { at, item, type DirectiveCheck, type DirectiveRun } from "./registry";
import { isObject } from "../is-object";

/** The rows of another data source, by name, for `leftJoin`. */
export type PipeJoin = (source: string) => Promise<unknown[]>;

type Obj = Record<string, unknown>;
type OrderKey = { path: string; direction: "asc" | "desc" };
export type PipeStep =
  | { map: string }
  | { filter: string }
  | { orderBy: OrderKey[] }
  | { orderByList: { path: string; list: unknown[] } }
  | { distinct: string[] }
  | { leftJoin: { source: string; localKey: string; foreignKey: string; as: string } }
  | { guardedProject: Record<string, string> };

export const PIPE_STEPS = ["map", "filter", "orderBy", "orderByList", "distinct", "leftJoin", "guardedProject"] as const;

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** Why a step is malformed, with the path below `$pipe[i]` it concerns; undefined when it is well formed. */
function stepProblem(step: unknown, joins: boolean): { below: string; reason: string } | undefined {
  if (!isObject(step)) return { below: "", reason: `must be an object with one of ${PIPE_STEPS.join(", ")}` };
  const keys = Object.keys(step);
  if (keys.length !== 1) return { below: "", reason: `must hold exactly one of ${PIPE_STEPS.join(", ")}, got ${keys.length ? keys.join(", ") : "none"}` };
  const [key] = keys;
  const value = step[key];
  const fields = (names: string[], text: string[]): string | undefined => {
    if (!isObject(value)) return "must be an object";
    const extra = Object.keys(value).find((name) => !names.includes(name));
    if (extra !== undefined) return `${JSON.stringify(extra)} is not one of ${names.join(", ")}`;
    const missing = text.find((name) => !isText(value[name]));
    return missing === undefined ? undefined : `${missing} must be a non-empty string`;
  };
  let reason: string | undefined;
  switch (key) {
    case "map":
    case "filter":
      reason = isText(value) ? undefined : "must be a JSONata expression string";
      break;
    case "orderBy":
      if (!Array.isArray(value) || value.length === 0) reason = "must be a non-empty array of { path, direction }";
      else {
        const bad = value.findIndex(
          (entry) =>
            !isObject(entry) ||
            !isText(entry.path) ||
            Object.keys(entry).some((k) => k !== "path" && k !== "direction") ||
            (entry.direction !== undefined && entry.direction !== "asc" && entry.direction !== "desc"),
        );
        if (bad >= 0) return { below: item(key, bad), reason: 'must be { path, direction } with a non-empty path and direction "asc" or "desc"' };
      }
      break;
    case "orderByList":
      reason = fields(["path", "list"], ["path"]) ?? (Array.isArray((value as Obj).list) ? undefined : "list must be an array");
      break;
    case "distinct":
      reason = Array.isArray(value) && value.length > 0 && value.every(isText) ? undefined : "must be a non-empty array of dotted paths";
      break;
    case "leftJoin":
      if (!joins) reason = "reads another data source, which only an app page has";
      else reason = fields(["source", "localKey", "foreignKey", "as"], ["source", "localKey", "foreignKey", "as"]);
      break;
    case "guardedProject":
      reason = isObject(value) && Object.keys(value).length > 0 && Object.values(value).every(isText) ? undefined : "must map each field to a dotted path";
      break;
    default:
      reason = `is not a step (steps: ${PIPE_STEPS.join(", ")})`;
  }
  return reason === undefined ? undefined : { below: key, reason };
}

const NOT_A_PIPE = "must be a JSONata expression string or an array of steps";
const stepPath = (i: number, below: string) => (below ? `${item("$pipe", i)}.${below}` : item("$pipe", i));
const under = (path: string, below: string) => (path ? `${path}.${below}` : below);

/** Save time: `$pipe` as an expression, or steps whose expressions are declared and whose shape is checked. */
export function checkPipe(use: DirectiveCheck, joins: boolean): void {
  const pipe = use.value.$pipe;
  if (typeof pipe === "string") return use.expression("$pipe");
  if (!Array.isArray(pipe)) return use.refuse("$pipe", NOT_A_PIPE);
  pipe.forEach((step, i) => {
    const problem = stepProblem(step, joins);
    if (problem) throw new ExpressionSyntaxError(at(under(use.path, stepPath(i, problem.below)), problem.reason));
    const [key] = Object.keys(step as Obj);
    if (key === "map" || key === "filter") use.rowExpression(stepPath(i, key), (step as Obj)[key] as string);
  });
}

/** The steps of an array `$pipe`, checked as at save time (ExpressionSyntaxError: a malformed step). */
function stepsOf(use: DirectiveRun, pipe: unknown[], joins: boolean): PipeStep[] {
  pipe.forEach((step, i) => {
    const problem = stepProblem(step, joins);
    if (problem) throw new ExpressionSyntaxError(at(under(use.path, stepPath(i, problem.below)), problem.reason));
  });
  return pipe as PipeStep[];
}

/** The value at a dotted path (`a.b.0`); undefined where it is missing. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

const RANK: Record<string, number> = { boolean: 0, number: 1, string: 2, object: 3 };

/** Orders two present values: by type (booleans, numbers, strings, then the rest), then by value. */
function compareValues(a: unknown, b: unknown): number {
  const ta = RANK[typeof a] ?? 3;
  const tb = RANK[typeof b] ?? 3;
  if (ta !== tb) return ta - tb;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const x = typeof a === "string" || typeof a === "boolean" ? a : JSON.stringify(a);
  const y = typeof b === "string" || typeof b === "boolean" ? b : JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const absent = (value: unknown) => value === undefined || value === null;

/** A stable sort by the keys in order; a missing or null value sorts last whatever the direction. */
export function orderBy(rows: unknown[], keys: readonly OrderKey[]): unknown[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      for (const { path, direction } of keys) {
        const x = valueAt(a.row, path);
        const y = valueAt(b.row, path);
        if (absent(x) || absent(y)) {
          if (absent(x) !== absent(y)) return absent(x) ? 1 : -1;
          continue;
        }
        const c = compareValues(x, y);
        if (c !== 0) return direction === "desc" ? -c : c;
      }
      return a.index - b.index;
    })
    .map(({ row }) => row);
}

const keyOf = (value: unknown) => JSON.stringify(value ?? null);

/** Rows whose value at `path` is in `list` first, in the list's order; the others after, in their order. */
export function orderByList(rows: unknown[], path: string, list: readonly unknown[]): unknown[] {
  const position = new Map<string, number>();
  list.forEach((value, i) => position.has(keyOf(value)) || position.set(keyOf(value), i));
  const rank = (row: unknown) => position.get(keyOf(valueAt(row, path))) ?? list.length;
  return rows
    .map((row, index) => ({ row, index, rank: rank(row) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ row }) => row);
}

/** The first row of each combination of values at `paths`. */
export function distinct(rows: unknown[], paths: readonly string[]): unknown[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify(paths.map((path) => valueAt(row, path) ?? null));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Each row as an object of `fields`, each the value at its path or null. */
export function guardedProject(rows: unknown[], fields: Readonly<Record<string, string>>): unknown[] {
  return rows.map((row) => Object.fromEntries(Object.entries(fields).map(([field, path]) => [field, valueAt(row, path) ?? null])));
}

/** Each row with `as` set to the first foreign row whose `foreignKey` equals its `localKey` (null when none or when its key is missing). */
export function leftJoin(
  rows: unknown[],
  foreign: readonly unknown[],
  spec: { localKey: string; foreignKey: string; as: string },
  fail: (reason: string) => never,
): unknown[] {
  const first = new Map<string, unknown>();
  for (const row of foreign) {
    const key = valueAt(row, spec.foreignKey);
    if (!absent(key) && !first.has(keyOf(key))) first.set(keyOf(key), row);
  }
  return rows.map((row, i) => {
    if (!isObject(row)) fail(`row ${i} is not an object, so it cannot carry ${JSON.stringify(spec.as)}`);
    const key = valueAt(row, spec.localKey);
    return { ...row, [spec.as]: absent(key) ? null : (first.get(keyOf(key)) ?? null) };
  });
}

/** Run time: refuses a malformed `$pipe` (ExpressionSyntaxError) before any work on the rows. */
export function checkPipeShape(use: DirectiveRun, joins: boolean): void {
  const pipe = use.value.$pipe;
  if (typeof pipe === "string") use.text("$pipe");
  else if (Array.isArray(pipe)) stepsOf(use, pipe, joins);
  else throw new ExpressionSyntaxError(at(under(use.path, "$pipe"), NOT_A_PIPE));
}

/** The rows through `$pipe` (an expression reading `$rows`, or steps). */
export async function runPipe(use: DirectiveRun, rows: unknown[], join: PipeJoin | undefined): Promise<unknown> {
  const pipe = use.value.$pipe;
  if (typeof pipe === "string") return use.expression("$pipe", { rows });
  if (!Array.isArray(pipe)) throw new ExpressionSyntaxError(at(under(use.path, "$pipe"), NOT_A_PIPE));
  let out = rows;
  for (const [i, step] of stepsOf(use, pipe, join !== undefined).entries()) {
    const fail =
      (below: string) =>
      (reason: string): never => {
        throw new ExpressionError(at(under(use.path, stepPath(i, below)), reason));
      };
    if ("map" in step) {
      const mapped: unknown[] = [];
      // A map is row for row: a row the expression selects nothing for stays as null.
      for (const row of out) mapped.push((await use.rowExpression(stepPath(i, "map"), step.map, row)) ?? null);
      out = mapped;
    } else if ("filter" in step) {
      const kept: unknown[] = [];
      for (const row of out) if (isTruthy(await use.rowExpression(stepPath(i, "filter"), step.filter, row))) kept.push(row);
      out = kept;
    } else if ("orderBy" in step)
      out = orderBy(
        out,
        step.orderBy.map((key) => ({ path: key.path, direction: key.direction ?? "asc" })),
      );
    else if ("orderByList" in step) out = orderByList(out, step.orderByList.path, step.orderByList.list);
    else if ("distinct" in step) out = distinct(out, step.distinct);
    else if ("guardedProject" in step) out = guardedProject(out, step.guardedProject);
    else out = leftJoin(out, await join!(step.leftJoin.source), step.leftJoin, fail("leftJoin"));
  }
  return out;
}
