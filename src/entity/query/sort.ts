// ORDER BY and keyset continuation for entity queries (docs/query.md, Sorting and paging).
// Every order ends with the row id, so positions are total and a cursor
// names exactly one place in the order.
import { validationFailed } from "../../lib/validate";
import { sortKeyOf, type QueryType } from "./operands";
import type { Compilation } from "./filter";
import type { Params } from "../../db/params";

export interface SortEntry {
  path: string[];
  direction?: "asc" | "desc";
}

export interface OrderKey {
  /** The expression over the entity alias. */
  sql: string;
  /** The Postgres type cursor values are cast back to. */
  cast: string;
  desc: boolean;
  /** Whether the expression can be NULL (attribute paths can; columns cannot). */
  nullable: boolean;
}

const COLUMNS = new Set(["name", "id", "created_at", "updated_at"]);

/** Where entry `i` of a sort list names its path in the request: `sort[0].path`, or `distinct_on.paths[0]` for a list of bare paths. */
export const sortPathAt =
  (list: string, bare = false) =>
  (i: number) =>
    bare ? `${list}[${i}]` : `${list}[${i}].path`;

/** The order of a query: the requested keys, then id in the last key's direction. */
export function orderKeys(sort: SortEntry[] | undefined, type: QueryType, alias: string, c: Compilation, at = sortPathAt("sort")): OrderKey[] {
  const keys: OrderKey[] = (sort ?? []).map((entry, i) => {
    if (entry.path[0] === "relationships") throw validationFailed([`${at(i)}: cannot sort by a relationship path`], "Sort is invalid");
    const key = sortKeyOf(entry.path, type, alias, c, at(i));
    const desc = entry.direction === "desc";
    // A path that names nothing sorts as a constant (with a warning): every row ties, id decides.
    if (!key) return { sql: "NULL::text", cast: "text", desc, nullable: true };
    return { sql: key.sql, cast: key.cast, desc, nullable: !(entry.path.length === 1 && COLUMNS.has(entry.path[0])) };
  });
  const lastDesc = keys.length ? keys[keys.length - 1].desc : false;
  keys.push({ sql: `${alias}.id`, cast: "uuid", desc: lastDesc, nullable: false });
  return keys;
}

/** `ORDER BY` terms over the output columns k0..kn (Postgres's default NULL placement: last ascending, first descending). */
export function orderBy(keys: OrderKey[], column: (i: number) => string): string {
  return keys.map((k, i) => `${column(i)} ${k.desc ? "DESC" : "ASC"}`).join(", ");
}

/**
 * Rows strictly after `position` in the order. Without NULLs and in one
 * direction this is a row comparison the planner turns into an index range;
 * otherwise the lexicographic expansion with NULLs placed as ORDER BY places them.
 */
export function after(keys: OrderKey[], position: unknown[], column: (i: number) => string, params: Params): string {
  const bound = keys.map((k, i) => (position[i] === null ? null : params.add(position[i], k.cast)));
  const sameDirection = keys.every((k) => k.desc === keys[0].desc);
  if (sameDirection && keys.every((k, i) => !k.nullable && bound[i] !== null)) {
    return `((${keys.map((_, i) => column(i)).join(", ")}) ${keys[0].desc ? "<" : ">"} (${bound.join(", ")}))`;
  }
  const equal = (i: number) => (bound[i] === null ? `${column(i)} IS NULL` : `${column(i)} = ${bound[i]}`);
  const beyond = (i: number) => {
    const k = keys[i];
    const v = bound[i];
    if (v === null) return k.desc ? `${column(i)} IS NOT NULL` : "FALSE";
    if (k.desc) return `${column(i)} < ${v}`;
    return k.nullable ? `(${column(i)} > ${v} OR ${column(i)} IS NULL)` : `${column(i)} > ${v}`;
  };
  const terms = keys.map((_, i) => [...keys.slice(0, i).map((__, j) => equal(j)), beyond(i)].join(" AND "));
  return `(${terms.map((t) => `(${t})`).join(" OR ")})`;
}
