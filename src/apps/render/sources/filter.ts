// A `$query` filter once its smart values are resolved, made ready for the
// query engine. A particle marked `optional: true` is left out when its value
// resolved to nothing, an empty `in` list or "" (never for null: null is a
// value to compare with). A particle whose written value did not resolve and
// is not optional matches nothing, and the source warns its author. A
// composite whose every member was left out is left out in turn.
import { likeLiteral } from "../../../entity/query/filter";
import { isObject } from "../../../lib/is-object";

type Obj = Record<string, unknown>;

const COMPOSITES = new Set(["and", "or", "not"]);
/** A composite with no member: `or` of nothing is false, so it matches no row. */
export const MATCHES_NOTHING = Object.freeze({ operator: "or", filters: [] as unknown[] });

const LEFT_OUT = Symbol("left out");

export interface PreparedFilter {
  /** The filter for the engine; undefined when every particle was left out. */
  filter?: unknown;
  /** Whether a particle that is not optional did not resolve. */
  unresolved: boolean;
}

/** Whether an optional particle's value counts as not given. */
function notGiven(particle: Obj): boolean {
  const value = particle.value;
  return value === undefined || value === "" || (particle.operator === "in" && Array.isArray(value) && value.length === 0);
}

/**
 * The resolved filter `resolved` ready for the engine. `written` is the
 * filter as the spec wrote it, walked beside it: a particle written with a
 * `value` that is gone once resolved did not resolve. Where the written
 * filter is computed (a template or `$jsonata`), the resolved one is all
 * there is to go by.
 */
export function prepareFilter(written: unknown, resolved: unknown): PreparedFilter {
  let unresolved = false;
  const walk = (raw: unknown, node: unknown): unknown => {
    if (!isObject(node)) return node;
    const plain = isObject(raw) && !Object.keys(raw).some((key) => key.startsWith("$"));
    if (typeof node.operator === "string" && COMPOSITES.has(node.operator) && Array.isArray(node.filters)) {
      const rawFilters = plain && Array.isArray(raw.filters) ? raw.filters : [];
      const members = node.filters.map((member, i) => walk(rawFilters[i], member)).filter((member) => member !== LEFT_OUT);
      if (node.filters.length > 0 && members.length === 0) return LEFT_OUT;
      return { ...node, filters: members };
    }
    const { optional, ...particle } = node;
    if (optional === true && notGiven(node)) return LEFT_OUT;
    if (plain && Object.hasOwn(raw, "value") && node.value === undefined) {
      unresolved = true;
      return MATCHES_NOTHING;
    }
    // The engine would leave out an optional particle comparing with null; here null is a value.
    return particle;
  };
  const filter = walk(written, resolved);
  return { filter: filter === LEFT_OUT ? undefined : filter, unresolved };
}

/**
 * `search` as a filter: the entity's name or any of `searchable` (attribute
 * paths) contains the term, case- and accent-insensitive. An empty or absent
 * term searches nothing.
 */
export function searchFilter(term: unknown, searchable: readonly string[][]): Obj | undefined {
  if (term === undefined || term === null || term === "") return undefined;
  const value = `%${likeLiteral(typeof term === "string" ? term : String(term))}%`;
  return { operator: "or", filters: [["name"], ...searchable.map((path) => ["attributes", ...path])].map((path) => ({ operator: "ilike", path, value })) };
}

/** Both filters, either of which may be absent. */
export function bothFilters(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { operator: "and", filters: [a, b] };
}
