// `$rows`: an inline or computed array, resolved against the page scope;
// nothing to fetch, so nothing shared with other sources.
import { ApiError } from "../../../lib/errors";
import type { Fetched, Obj, SourceRun } from "./run";

export async function produceRows(run: SourceRun, source: Obj, scope: Obj): Promise<Fetched> {
  const rows = await run.resolve(source.$rows, scope);
  if (!Array.isArray(rows)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $rows of data source ${run.name} must give an array`);
  return { rows };
}
