// The minute tick's cron dispatch: every schedule of every tenant that is due
// starts a run of its trigger's workflow, at the version its activation pins.
// Schedules are locked (FOR UPDATE SKIP LOCKED) for the batch, so two ticks
// running at once never dispatch one schedule twice.
import type { Database, Sql } from "../../db/client";
import { isoTimestamp } from "../../lib/timestamps";
import { log } from "../../lib/logger";
import type { RunRef } from "../runs/orchestrator";
import { insertRuns, type NewRun } from "../runs/start";
import { nextTick } from "../../definition/language/cron-expression";
import { runFor, workflowReachable, type TriggerBlock } from "./fire";

/** Schedules read per transaction, and transactions per tick: the rest wait for the next minute. */
const BATCH = 200;
const ROUNDS = 5;
/** A schedule whose expression cannot be evaluated is looked at again this much later, not every minute. */
const BROKEN_RETRY_MS = 24 * 60 * 60_000;

interface DueSchedule extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  workflow_id: string;
  cron: string;
  catch_up: boolean;
  offset_seconds: number;
  next_run_at: string;
  trigger_id: string;
  trigger_key: string;
  definition: TriggerBlock;
  /** False when the trigger is disabled, the workflow has no activation, or the share that let the tenant activate it was revoked. */
  live: boolean;
  workflow_version: number | null;
}

interface Advance {
  id: string;
  next_run_at: string;
  /** Set when the schedule dispatched at this tick. */
  last_run_at: string | null;
}

export interface DispatchOutcome {
  schedules: number;
  runs: number;
  failed: number;
  /** The runs started, for the caller to kick once they are committed. */
  started: RunRef[];
}

/**
 * The occurrences a due schedule dispatches at minute `tick`. On time, the
 * tick itself. After a missed tick (the stored occurrence is older than this
 * minute) a catch-up schedule makes up the missed occurrence once, however
 * many were missed; any schedule also fires for this minute if it is an occurrence.
 */
function occurrencesToDispatch(schedule: { cron: string; catchUp: boolean; nextRunAt: Date }, tick: Date): Date[] {
  if (schedule.nextRunAt.getTime() >= tick.getTime()) return [tick];
  const missed = schedule.catchUp ? [schedule.nextRunAt] : [];
  const tickIsOccurrence = nextTick(schedule.cron, new Date(tick.getTime() - 60_000)).getTime() === tick.getTime();
  return tickIsOccurrence ? [...missed, tick] : missed;
}

async function runsOf(schedule: DueSchedule, occurrences: Date[]): Promise<NewRun[]> {
  const trigger = {
    id: schedule.trigger_id,
    key: schedule.trigger_key,
    type: "cron" as const,
    workflowId: schedule.workflow_id,
    workflowVersion: schedule.workflow_version!,
    definition: schedule.definition,
  };
  const runs: NewRun[] = [];
  for (const at of occurrences) {
    const notBefore = isoTimestamp(at.getTime() + schedule.offset_seconds * 1000);
    const run = await runFor(trigger, { input: { scheduled_at: isoTimestamp(at) }, notBefore });
    if (run) runs.push(run);
  }
  return runs;
}

function reportFailure(schedule: DueSchedule, e: unknown): void {
  log.error("cron schedule failed", { schedule_id: schedule.id, tenant_id: schedule.tenant_id, cron: schedule.cron, error: (e as Error).message });
}

/** What one due schedule does at `tick`: the runs it starts and where it moves on to. A failure is logged and stays with it. */
async function dispatchOne(schedule: DueSchedule, tick: Date): Promise<{ runs: NewRun[]; advance: Advance; failed: boolean }> {
  const advance = (next: Date, ran: boolean): Advance => ({ id: schedule.id, next_run_at: isoTimestamp(next), last_run_at: ran ? isoTimestamp(tick) : null });
  let next: Date;
  try {
    next = nextTick(schedule.cron, tick);
  } catch (e) {
    reportFailure(schedule, e);
    return { runs: [], advance: advance(new Date(tick.getTime() + BROKEN_RETRY_MS), false), failed: true };
  }
  if (!schedule.live) return { runs: [], advance: advance(next, false), failed: false };
  try {
    const runs = await runsOf(
      schedule,
      occurrencesToDispatch({ cron: schedule.cron, catchUp: schedule.catch_up, nextRunAt: new Date(schedule.next_run_at) }, tick),
    );
    return { runs, advance: advance(next, runs.length > 0), failed: false };
  } catch (e) {
    reportFailure(schedule, e);
    return { runs: [], advance: advance(next, false), failed: true };
  }
}

async function dispatchBatch(sql: Sql, tick: Date): Promise<DispatchOutcome> {
  const { rows } = await sql.query<DueSchedule>(
    `SELECT s.id, s.tenant_id, s.workflow_id, s.cron, s.catch_up, s.offset_seconds, s.next_run_at,
            t.id AS trigger_id, t.key AS trigger_key, t.definition,
            (t.enabled AND a.workflow_id IS NOT NULL AND ${workflowReachable("s.workflow_id", "s.tenant_id")}) AS live, a.version AS workflow_version
       FROM cron_schedules s
       JOIN workflow_triggers t ON t.id = s.trigger_id
       LEFT JOIN workflow_activations a ON a.workflow_id = s.workflow_id AND a.tenant_id = s.tenant_id
      WHERE s.next_run_at <= $1
      ORDER BY s.next_run_at
      LIMIT $2
        FOR UPDATE OF s SKIP LOCKED`,
    [tick.toISOString(), BATCH],
  );
  const byTenant = new Map<string, NewRun[]>();
  const advances: Advance[] = [];
  let failed = 0;
  for (const schedule of rows) {
    const outcome = await dispatchOne(schedule, tick);
    advances.push(outcome.advance);
    if (outcome.failed) failed++;
    if (!outcome.runs.length) continue;
    const tenantRuns = byTenant.get(schedule.tenant_id);
    if (tenantRuns) tenantRuns.push(...outcome.runs);
    else byTenant.set(schedule.tenant_id, outcome.runs);
  }
  const started: RunRef[] = [];
  for (const [tenantId, tenantRuns] of byTenant) for (const runId of await insertRuns(sql, tenantId, tenantRuns)) started.push({ tenantId, runId });
  if (advances.length) {
    await sql.query(
      `UPDATE cron_schedules s SET next_run_at = a.next_run_at, last_run_at = coalesce(a.last_run_at, s.last_run_at)
         FROM jsonb_to_recordset($1::jsonb) AS a(id uuid, next_run_at timestamptz, last_run_at timestamptz)
        WHERE s.id = a.id`,
      [JSON.stringify(advances)],
    );
  }
  return { schedules: rows.length, runs: started.length, failed, started };
}

/**
 * Dispatches the schedules due at the minute of `now`, across tenants, as
 * the connecting role. Each batch is one transaction: its runs and its
 * schedules' advance commit together.
 */
export async function dispatchDueSchedules(database: Database, now: Date): Promise<DispatchOutcome> {
  const tick = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const total: DispatchOutcome = { schedules: 0, runs: 0, failed: 0, started: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const outcome = await database.system(async (sql) => {
      await sql.query("BEGIN");
      try {
        const result = await dispatchBatch(sql, tick);
        await sql.query("COMMIT");
        return result;
      } catch (e) {
        await sql.query("ROLLBACK").catch(() => {});
        throw e;
      }
    });
    total.schedules += outcome.schedules;
    total.runs += outcome.runs;
    total.failed += outcome.failed;
    total.started.push(...outcome.started);
    if (outcome.schedules < BATCH) break;
  }
  return total;
}
