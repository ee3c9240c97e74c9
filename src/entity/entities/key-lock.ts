// Rekeys racing for one key. A rekey checks whether the key is
// held and then takes it; under READ COMMITTED two rekeys can both see it
// free, and the slower one then fails on entities_live_key. Rekeys therefore
// hold a transaction-level advisory lock per (type, key) from before the
// check to the commit: the second waits, and its check (a new statement, a
// new snapshot) sees the first's result and merges into it or refuses with
// 409. Creates and key-matched upserts take no lock (their INSERT ... ON
// CONFLICT settles the race itself), so a rekey can still lose to one of
// them; it then runs again once from fresh reads.
import { pgCode, pgConstraint, type Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";

/**
 * Locks `keys` of the type until the transaction ends, in one order so that
 * batches locking overlapping keys cannot deadlock. A hash collision only
 * makes two unrelated keys wait for each other.
 */
export async function lockKeys(sql: Sql, typeId: string, keys: string[]): Promise<void> {
  await sql.query(
    `SELECT count(pg_advisory_xact_lock(h)) FROM (
       SELECT DISTINCT hashtextextended($1 || ':' || k, 0) AS h FROM unnest($2::text[]) AS k ORDER BY 1) locks`,
    [typeId, keys],
  );
}

/** A lost race for a key against a writer that takes no lock, or a deadlock between two rekeys: worth one more try. */
function lostRace(e: unknown): boolean {
  const code = pgCode(e);
  return (code === "23505" && pgConstraint(e) === "entities_live_key") || code === "40P01";
}

/** Runs `write` (a whole transaction), once more if it lost a race for a key; a second loss is a 409. */
export async function retryKeyRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!lostRace(e)) throw e;
  }
  try {
    return await write();
  } catch (e) {
    if (!lostRace(e)) throw e;
    throw new ApiError({ code: "CONCURRENT_MODIFICATION" }, "Another write took this identifier_key at the same moment; retry the request");
  }
}
