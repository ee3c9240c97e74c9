// The minute tick's last resort for runs (cron/tick.ts). A run is kicked once
// its row commits, and its object holds an alarm while it works, so a crash
// resumes it within seconds; but a kick can be lost (the Worker stopped
// between commit and kick) and a row can stop moving (its mirror writes lost
// with the process that made them). So: a run still `pending` ten seconds
// past its start time is kicked again (a kick is idempotent, so a slow start
// kicked twice only waits behind itself; a lost one waits for the next tick,
// not a minute more); a run `running` whose row has not moved for
// ten minutes has its object re-sync the whole record from its journal,
// finished or not, and walk on (a walk only replays the journal, so nothing
// recorded is redone; a waiting run's walk touches its row, so waiting is not
// mistaken for being stuck). A run that made no progress for an hour ends
// `error`, unless its object, asked first, had finished it: then the re-sync
// writes its own end.
import type { Database } from "../../db/client";
import type { RunRef } from "./orchestrator";
import { kickRuns, resyncRuns } from "./run-client";
import { errorValue } from "../../lib/errors";

export const LOST_KICK_MS = 10_000;
export const STALLED_MS = 10 * 60_000;
export const DEADLINE_MS = 60 * 60_000;
/** Runs kicked or re-synced per tick; any others wait for the next minute. */
const KICK_LIMIT = 500;

const DEADLINE_ERROR = errorValue("INTERNAL_ERROR", `The run made no progress for ${DEADLINE_MS / 60_000} minutes and was stopped`);

export interface SweepOutcome {
  kicked: number;
  expired: number;
}

const refs = (rows: { tenant_id: string; id: string }[]): RunRef[] => rows.map((r) => ({ tenantId: r.tenant_id, runId: r.id }));

export async function sweepRuns(database: Database, env: Env, now: Date): Promise<SweepOutcome> {
  // A pending run's clock starts at its start time; a running one's at its last progress.
  const late = await database.system(async (sql) => {
    const { rows } = await sql.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM workflow_runs
        WHERE status IN ('pending', 'running') AND greatest(updated_at, not_before) < $1::timestamptz - make_interval(secs => $2)
        ORDER BY updated_at
        LIMIT $3`,
      [now.toISOString(), DEADLINE_MS / 1000, KICK_LIMIT],
    );
    return refs(rows);
  });
  // Asked before the deadline ends them: a run its object finished writes its end now, and is no longer open.
  await resyncRuns(env, late);
  const { expired, lost, stalled } = await database.system(async (sql) => {
    const expired = await sql.query(
      `UPDATE workflow_runs SET status = 'error', error = $2::jsonb, finished_at = now(), updated_at = now()
        WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'running')`,
      [late.map((r) => r.runId), JSON.stringify(DEADLINE_ERROR)],
    );
    const { rows } = await sql.query<{ tenant_id: string; id: string; status: string }>(
      `SELECT tenant_id, id, status FROM workflow_runs
        WHERE (status = 'pending' AND not_before < $1::timestamptz - make_interval(secs => $2))
           OR (status = 'running' AND updated_at < $1::timestamptz - make_interval(secs => $3))
        ORDER BY not_before
        LIMIT $4`,
      [now.toISOString(), LOST_KICK_MS / 1000, STALLED_MS / 1000, KICK_LIMIT],
    );
    return {
      expired: expired.rowCount ?? 0,
      lost: refs(rows.filter((r) => r.status === "pending")),
      stalled: refs(rows.filter((r) => r.status === "running")),
    };
  });
  await Promise.all([kickRuns(env, lost), resyncRuns(env, stalled)]);
  return { kicked: lost.length + stalled.length, expired };
}
