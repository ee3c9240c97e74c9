// The minute tick's safety net for runs (cron/tick.ts). A run is kicked once
// its row commits, but a kick can be lost (the Worker stopped between commit
// and kick) and an object can stop mid-walk (evicted, a storage fault). So:
// a run still `pending` a minute past its start time is kicked again; a run
// `running` whose row has not moved for ten minutes is kicked to resume (a
// kick only walks from the journal, so nothing recorded is redone, and a
// waiting run's kick touches its row, so waiting is not mistaken for being
// stuck); a run that made no progress for an hour ends `error`.
import type { Database } from "../../db/client";
import type { RunRef } from "./orchestrator";
import { kickRuns } from "./run-client";
import { errorValue } from "../../lib/errors";

export const LOST_KICK_MS = 60_000;
export const STALLED_MS = 10 * 60_000;
export const DEADLINE_MS = 60 * 60_000;
/** Runs kicked per tick; any others wait for the next minute. */
const KICK_LIMIT = 500;

const DEADLINE_ERROR = errorValue("INTERNAL_ERROR", `The run made no progress for ${DEADLINE_MS / 60_000} minutes and was stopped`);

export interface SweepOutcome {
  kicked: number;
  expired: number;
}

export async function sweepRuns(database: Database, env: Env, now: Date): Promise<SweepOutcome> {
  const { expired, due } = await database.system(async (sql) => {
    // A pending run's clock starts at its start time; a running one's at its last progress.
    const expired = await sql.query(
      `UPDATE workflow_runs SET status = 'error', error = $2::jsonb, finished_at = now(), updated_at = now()
        WHERE status IN ('pending', 'running') AND greatest(updated_at, not_before) < $1::timestamptz - make_interval(secs => $3)`,
      [now.toISOString(), JSON.stringify(DEADLINE_ERROR), DEADLINE_MS / 1000],
    );
    const { rows } = await sql.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM workflow_runs
        WHERE (status = 'pending' AND not_before < $1::timestamptz - make_interval(secs => $2))
           OR (status = 'running' AND updated_at < $1::timestamptz - make_interval(secs => $3))
        ORDER BY not_before
        LIMIT $4`,
      [now.toISOString(), LOST_KICK_MS / 1000, STALLED_MS / 1000, KICK_LIMIT],
    );
    return { expired: expired.rowCount ?? 0, due: rows.map((r): RunRef => ({ tenantId: r.tenant_id, runId: r.id })) };
  });
  await kickRuns(env, due);
  return { kicked: due.length, expired };
}
