// `$query`: the POST /entity/query body in camelCase (`typeName`, `filter`,
// `sort`, `limit` default 100, `include`, `distinctOn`, `search`) run by the
// query engine with the app user's permissions; `single` (beside `$query` or
// inside it) answers the first record or null. Smart values resolve against
// the page scope first; then optional particles are left out, unresolved
// ones match nothing (with a warning), and `search` becomes a filter on the
// name and the type's searchable attributes.
import { refusedUnless } from "../../../access/confined-services";
import { TypeReader } from "../../../entity/entity-types/cache";
import { queryBody } from "../../../entity/query/schemas";
import { runQuery, type QueryInput } from "../../../entity/query/service";
import { ApiError } from "../../../lib/errors";
import { camelSchema, restBody } from "../../../lib/rest-body";
import { validate } from "../../../lib/validate";
import { bothFilters, prepareFilter, searchFilter } from "./filter";
import { type Obj, type Prepared, type SourceRun } from "./run";
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

export async function prepareQuery(run: SourceRun, source: Obj, scope: Obj): Promise<Prepared> {
  const written = source.$query;
  if (!isObject(written)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $query of data source ${run.name} must be an object`);
  const body = Object.fromEntries(Object.entries(written).filter(([key]) => key !== "single"));
  const resolved = await run.resolve(body, scope);
  if (!isObject(resolved)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $query of data source ${run.name} must resolve to an object`);
  const { search, filter, ...rest } = resolved;
  const prepared = prepareFilter(body.filter, filter);
  if (prepared.unresolved) {
    run.env.notify({ id: `unresolved-filter-${run.name}`, level: "WARNING", message: `A filter value of data source ${run.name} did not resolve, so the filter matches nothing.` });
  }
  const single = isSingle(source);
  const typeName = rest.typeName;
  const searching = typeof typeName === "string" ? searchFilter(search, search === undefined || search === null || search === "" ? [] : await searchablePaths(run, typeName)) : undefined;
  const input: Obj = { ...rest, limit: single ? 1 : (rest.limit ?? DEFAULT_QUERY_LIMIT), includeCount: true };
  const combined = bothFilters(prepared.filter, searching);
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
