// The producers of the spec language's data sources, one entry per key a
// source names (`$query`, `$http`, `$rows`, `$typeSchema`); a test holds
// the map to the publish schema's list. A producer makes its source ready
// against the page scope: a fetch to share among the sources that resolved
// to the same JSON (Prepared), or its rows at once.
import { prepareHttp } from "./http";
import { prepareQuery } from "./query";
import { produceRows } from "./rows";
import type { Fetched, Obj, Prepared, SourceRun } from "./run";
import { prepareTypeSchema } from "./type-schema";

/** `gridId`: the widget a paged source pages as. */
export type Producer = (run: SourceRun, source: Obj, scope: Obj, gridId: string | undefined) => Promise<Prepared | Fetched>;

export const PRODUCERS = {
  $query: prepareQuery,
  $http: prepareHttp,
  $rows: produceRows,
  $typeSchema: prepareTypeSchema,
} satisfies Record<string, Producer>;

/** The producers by key, as a source is searched for its one. */
export const PRODUCER_ENTRIES: readonly [string, Producer][] = Object.entries(PRODUCERS);
