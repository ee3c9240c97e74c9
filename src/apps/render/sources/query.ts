// `$query`: the POST /entity/query body in camelCase (`typeName`, `filter`,
// `sort`, `limit` default 100, `include`, `distinctOn`, `search`) run by the
// query engine with the app user's permissions; `single` (beside `$query` or
// inside it) answers the first record or null. Smart values resolve against
// the page scope first; then optional particles are left out, unresolved
// ones match nothing (with a warning), and `search` becomes a filter on the
// name and the type's searchable attributes.
//
// With `paged: true` (inside `$query`) the source answers one page of the
// grid bound to it (paging.ts reads the grid's state; its smart values see
// it as `paging`): `limit` is the grid's page size (at most 1000), the grid's
// `sorting[0]` replaces the source's `sort`, and its `filters` are added to
// the source's filter with AND. Grid paths are dotted row paths
// (`attributes.n`) checked here: one that names no query path fails the
// source (VALIDATION_FAILED), not the render. The total is the exact count;
// the engine reads a page past the middle from the end of the order
// (queryWindow), so the last page costs what the first does.
import { refusedUnless } from "../../../access/confined-services";
import { TypeReader } from "../../../entity/entity-types/cache";
import { queryBody } from "../../../entity/query/schemas";
import { likeLiteral } from "../../../entity/query/filter";
import { queryWindow, runQuery, type QueryInput } from "../../../entity/query/service";
import { ApiError } from "../../../lib/errors";
import { camelSchema, restBody } from "../../../lib/rest-body";
import { validate, validationFailed } from "../../../lib/validate";
import { bothFilters, prepareFilter, searchFilter } from "./filter";
import { pagingOf, type Paging } from "./paging";
import type { Obj, Prepared, SourceRun } from "./run";
import { isObject } from "../../../lib/is-object";

export const DEFAULT_QUERY_LIMIT = 100;

const CAMEL_QUERY = camelSchema(queryBody);

/** Whether the source asks for one record: `single` beside `$query` or inside it. */
export const isSingle = (source: Obj) => source.single === true || (isObject(source.$query) && source.$query.single === true);

/** The searchable attribute paths of the type (none when the caller cannot see its own type of that name). */
async function searchablePaths(run: SourceRun, typeName: string): Promise<string[][]> {
  const types = await run.env.services.tenant.read((reader) => new TypeReader(reader, false).read([typeName]));
  const type = types.get(typeName);
  return type ? type.config.indexed_attributes.filter((a) => a.searchable).map((a) => a.path) : [];
}

/** A paged source's page size at most: the engine's `limit`. */
export const MAX_PAGE_SIZE = 1000;
/** A grid path at most: characters, dotted segments (the engine's 12), and filtered columns. */
const MAX_GRID_PATH = 300;
const MAX_GRID_SEGMENTS = 12;
const MAX_GRID_FILTERS = 20;
/** A segment of a grid's row path: letters, digits, `_` and `-` (no wildcard, regex or control character). */
const SEGMENT = /^[\p{L}\p{N}\p{M}_-]{1,100}$/u;
const COLUMNS = new Set(["id", "name", "created_at", "updated_at"]);

const shown = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);

/**
 * The query path a grid's dotted row path names: `id`, `name`,
 * `created_at`, `updated_at`, `type.name`, or `attributes.<path>`. Anything
 * else (another row field, a deep, huge or odd path) fails the source.
 */
export function gridPath(sourceName: string, at: string, dotted: string): string[] {
  const fail = (why: string): never => {
    throw validationFailed([`${at}: ${why}`], `The grid reading data source ${sourceName} pages by ${at}, which ${why}`);
  };
  if (dotted.length > MAX_GRID_PATH) fail(`is longer than ${MAX_GRID_PATH} characters`);
  const segments = dotted.split(".");
  if (segments.length > MAX_GRID_SEGMENTS) fail(`has more than ${MAX_GRID_SEGMENTS} segments`);
  if (!segments.every((segment) => SEGMENT.test(segment))) fail(`${shown(dotted)} is not a dotted row path (segments of letters, digits, _ and -)`);
  const [head, ...rest] = segments;
  if (rest.length === 0 && COLUMNS.has(head)) return segments;
  if (head === "type" && rest.length === 1 && rest[0] === "name") return segments;
  if (head === "attributes" && rest.length > 0) return segments;
  return fail(`${shown(dotted)} names no field a query sorts or filters by (id, name, created_at, updated_at, type.name, attributes.<path>)`);
}

/** The grid's filters as particles: a string contains (ignoring case), a number or boolean equals, an array is `in`; "", null and [] filter nothing. */
export function gridFilter(sourceName: string, filters: Record<string, unknown>): Obj | undefined {
  const columns = Object.entries(filters);
  if (columns.length > MAX_GRID_FILTERS)
    throw validationFailed(
      [`filters: at most ${MAX_GRID_FILTERS} columns`],
      `The grid reading data source ${sourceName} filters more than ${MAX_GRID_FILTERS} columns`,
    );
  const particles = columns.flatMap(([column, value]): Obj[] => {
    // A column that is no plain dotted path is named quoted, so no control character reaches a message.
    const at = `filters.${/^[\p{L}\p{N}\p{M}_.-]{0,60}$/u.test(column) ? column : shown(column)}`;
    if (value === null || value === "" || (Array.isArray(value) && value.length === 0)) return [];
    const path = gridPath(sourceName, at, column);
    if (typeof value === "string") return [{ operator: "ilike", path, value: `%${likeLiteral(value)}%` }];
    if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") return [{ operator: "eq", path, value }];
    if (Array.isArray(value)) return [{ operator: "in", path, value }];
    throw validationFailed(
      [`${at}: must be a string, number, boolean or array`],
      `The grid reading data source ${sourceName} filters ${at} by a value that is not a string, number, boolean or array`,
    );
  });
  return particles.length ? { operator: "and", filters: particles } : undefined;
}

/** The grid's sorting as the query's sort, or undefined when the grid does not sort. */
function gridSort(sourceName: string, paging: Paging): Obj[] | undefined {
  if (paging.sortBy === null) return undefined;
  return [{ path: gridPath(sourceName, "sorting[0].id", paging.sortBy), direction: paging.desc ? "desc" : "asc" }];
}

export async function prepareQuery(run: SourceRun, source: Obj, scope: Obj, gridId?: string): Promise<Prepared> {
  const written = source.$query;
  if (!isObject(written)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $query of data source ${run.name} must be an object`);
  const body = Object.fromEntries(Object.entries(written).filter(([key]) => key !== "single" && key !== "paged"));
  const paging = written.paged === true && !isSingle(source) ? pagingOf(scope, gridId, MAX_PAGE_SIZE) : undefined;
  const resolved = await run.resolve(body, paging ? { ...scope, paging } : scope);
  if (!isObject(resolved)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $query of data source ${run.name} must resolve to an object`);
  const { search, filter, ...rest } = resolved;
  const prepared = prepareFilter(body.filter, filter);
  if (prepared.unresolved) {
    run.env.notify({
      id: `unresolved-filter-${run.name}`,
      level: "WARNING",
      message: `A filter value of data source ${run.name} did not resolve, so the filter matches nothing.`,
    });
  }
  const single = isSingle(source);
  const typeName = rest.typeName;
  const searching =
    typeof typeName === "string"
      ? searchFilter(search, search === undefined || search === null || search === "" ? [] : await searchablePaths(run, typeName))
      : undefined;
  const combined = bothFilters(prepared.filter, searching);
  if (paging) return preparePaged(run, rest, combined, paging);
  const input: Obj = { ...rest, limit: single ? 1 : (rest.limit ?? DEFAULT_QUERY_LIMIT), includeCount: true };
  if (combined !== undefined) input.filter = combined;
  return {
    key: JSON.stringify({ $query: input }),
    async fetch() {
      const { services, bindings } = run.env;
      const refused = refusedUnless(services, ["entity:read"]);
      if (refused) throw ApiError.of(refused.error);
      const query = restBody<QueryInput>(queryBody, validate(CAMEL_QUERY, input, `The $query of data source ${run.name} is not a valid query`, "$query"));
      const answer = await runQuery(services.tenant, bindings.MASTER_KEY, query);
      return { rows: answer.data, total: answer.count ?? answer.data.length };
    },
  };
}

/** A paged source: the grid's window of the query, its sort and filters folded in, and the exact count as the total. */
function preparePaged(run: SourceRun, resolved: Obj, filter: unknown, paging: Paging): Prepared {
  // The grid's page size is the limit.
  const { limit: _limit, ...rest } = resolved;
  const input: Obj = { ...rest };
  const sort = gridSort(run.name, paging);
  if (sort) input.sort = sort;
  const combined = bothFilters(filter, gridFilter(run.name, paging.filters));
  if (combined !== undefined) input.filter = combined;
  const window = { offset: paging.offset, limit: paging.pageSize };
  return {
    // Another page of the grid is another fetch.
    key: JSON.stringify({ $query: input, window }),
    async fetch() {
      const { services } = run.env;
      const refused = refusedUnless(services, ["entity:read"]);
      if (refused) throw ApiError.of(refused.error);
      const query = restBody<QueryInput>(queryBody, validate(CAMEL_QUERY, input, `The $query of data source ${run.name} is not a valid query`, "$query"));
      const answer = await queryWindow(services.tenant, query, window);
      return { rows: answer.data, total: answer.count };
    },
  };
}
