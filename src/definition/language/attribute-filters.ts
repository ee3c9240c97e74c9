// The attribute filters of an event trigger (`source.attributeFilters`):
// each compares one attribute of the event's entity, written as the query
// language's filters with paths relative to `attributes`. Publish checks
// them alone (attributeFilterProblems); delivery compiles them against the
// event's entity type (workflows/triggers/events.ts) through the same
// translation.
import { EntityAccess } from "../../db/entity-access";
import type { IndexedAttribute } from "../../entity/indexed-attributes";
import { compileFilter, newCompilation } from "../../entity/query/filter";
import type { QueryType } from "../../entity/query/operands";
import { Params } from "../../db/params";
import { ApiError } from "../../lib/errors";

/** Operators that reach other rows: an event's snapshot has no links to follow. */
const REFUSED_OPERATORS = new Set(["exists", "rel_exists", "and", "or", "not"]);
/** Stands in for the type and tenant when filters are checked alone; neither is ever bound. */
const NO_TYPE = "00000000-0000-0000-0000-000000000000";
/** The query compiler's path limit, less the `attributes` segment put in front. */
const MAX_PATH = 11;

/** A filter's path as segments: a dotted string or an array of strings, relative to `attributes`. */
function pathSegments(path: unknown): string[] | null {
  const segments = typeof path === "string" ? path.split(".") : path;
  if (!Array.isArray(segments) || segments.length === 0 || segments.length > MAX_PATH) return null;
  return segments.every((s) => typeof s === "string" && s.length > 0) ? (segments as string[]) : null;
}

/** The trigger's attribute filters as one query filter over an entity row (an `and` of particles). */
export function queryFilter(filters: unknown[]): { operator: "and"; filters: unknown[] } {
  return {
    operator: "and",
    filters: filters.map((f) => {
      const { path, ...rest } = f as Record<string, unknown>;
      return { ...rest, path: ["attributes", ...(pathSegments(path) ?? [])] };
    }),
  };
}

export function queryType(id: string, config: { indexed_attributes?: IndexedAttribute[] } | null): QueryType {
  // The schema only feeds the compiler's warnings, which no one reads here.
  return { id, name: "", schema: {}, config: { indexed_attributes: config?.indexed_attributes ?? [], name_search: false } };
}

/**
 * What is wrong with a trigger's `attributeFilters` (at `at`, e.g.
 * `definition_json.triggers[0].source.attributeFilters`), as validation lines;
 * empty when nothing is. Checked against a type with no indexed attributes:
 * a value that does not suit an indexed attribute's declared type shows at
 * delivery instead, where that pair is skipped.
 */
export function attributeFilterProblems(filters: unknown, at: string): string[] {
  if (!Array.isArray(filters)) return [`${at}: must be an array`];
  const problems: string[] = [];
  filters.forEach((f, i) => {
    const here = `${at}[${i}]`;
    if (typeof f !== "object" || f === null || Array.isArray(f)) return problems.push(`${here}: must be an object { operator, path, value }`);
    const { operator, path } = f as Record<string, unknown>;
    if (typeof operator === "string" && REFUSED_OPERATORS.has(operator)) {
      return problems.push(`${here}.operator: ${operator} cannot be used in attributeFilters (each filter compares one attribute of the event's entity)`);
    }
    if (!pathSegments(path)) return problems.push(`${here}.path: must be a dotted string or an array of 1 to ${MAX_PATH} non-empty strings`);
    try {
      compileFilter(
        queryFilter([f]).filters[0],
        queryType(NO_TYPE, null),
        "e",
        newCompilation(new Params(), EntityAccess.everything.readScope(NO_TYPE), () => undefined),
        here,
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      problems.push(...((e.details.errors as string[] | undefined) ?? [`${here}: ${e.message}`]));
    }
  });
  return problems;
}
