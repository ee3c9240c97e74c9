// An upsert's answer as an action's result (upsertEntity,
// importEntitiesFromCsv): the REST answer, except that the ids of a large
// write are left out. 100,000 ids are about 3.7 MB, which no run record can
// hold; a run that needs them reads the entities back (queryEntity).
import type { UpsertResult } from "../../entity/upsert/service";

/** Ids a result carries at most (about 370 KB). */
export const MAX_RESULT_IDS = 10_000;

export type UpsertActionResult = UpsertResult | (Omit<UpsertResult, "ids"> & { ids_omitted: number });

export function upsertActionResult(result: UpsertResult): UpsertActionResult {
  if (result.ids.length <= MAX_RESULT_IDS) return result;
  const { ids, ...counts } = result;
  return { ...counts, ids_omitted: ids.length };
}
