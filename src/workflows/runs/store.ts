// Reading and moving run records, and reading cron schedules. Each read is
// one statement; each state change is one conditional UPDATE, so two callers
// racing on a run cannot both move it.
import type { Sql } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { isoTimestampSql as ts } from "../../lib/timestamps";
import { FINISHED_STATUSES, OPEN_STATUSES, runDetailSql, runRecordSql, type RunStatus } from "./record";
import type { RunRow } from "./run-events";

export interface RunFilter {
  workflow_id?: string;
  status_in?: RunStatus[];
  entity_id?: string;
}

/** A run's place in the newest-first order: (created_at, id). */
export type RunPosition = [createdAt: string, id: string];

export interface RunPage {
  total: number;
  records: Record<string, unknown>[];
  /** The position of the page's last run; null for an empty page. */
  last: RunPosition | null;
}

const RUN_FILTER = `($1::uuid IS NULL OR r.workflow_id = $1)
   AND ($2::text[] IS NULL OR r.status = ANY($2))
   AND ($3::uuid IS NULL OR r.entity_id = $3)`;

/**
 * One page of runs matching `filter`, newest first, with the count of all
 * that match. The page starts after `after` when given, else `offset` rows in.
 * One statement: the count's row always comes back, with the page (if any)
 * joined to it. The page is picked by its keys alone and only its rows are
 * built into records, so the rows an offset skips cost no JSON.
 */
export async function selectRuns(sql: Sql, filter: RunFilter, after: RunPosition | null, limit: number, offset: number): Promise<RunPage> {
  const { rows } = await sql.query<{ total: number; record: Record<string, unknown>; created_at: string | null; id: string | null }>(
    `SELECT c.total, ${runRecordSql("r")} AS record, r.created_at, r.id
       FROM (SELECT count(*)::int AS total FROM workflow_runs r WHERE ${RUN_FILTER}) c
       LEFT JOIN LATERAL (
         SELECT r.id FROM workflow_runs r
          WHERE ${RUN_FILTER}
            AND ($4::timestamptz IS NULL OR (r.created_at, r.id) < ($4::timestamptz, $5::uuid))
          ORDER BY r.created_at DESC, r.id DESC
          LIMIT $6 OFFSET $7) k ON true
       LEFT JOIN workflow_runs r ON r.id = k.id
      ORDER BY r.created_at DESC, r.id DESC`,
    [filter.workflow_id ?? null, filter.status_in ?? null, filter.entity_id ?? null, after?.[0] ?? null, after?.[1] ?? null, limit, offset],
  );
  const page = rows.filter((row) => row.id !== null);
  const tail = page[page.length - 1];
  return { total: rows[0].total, records: page.map((row) => row.record), last: tail ? [tail.created_at!, tail.id!] : null };
}

/** The whole run record (job runs, action runs, action log), or 404. */
export async function selectRun(sql: Sql, id: string): Promise<Record<string, unknown>> {
  const { rows } = await sql.query<{ record: Record<string, unknown> }>(`SELECT ${runDetailSql("r")} AS record FROM workflow_runs r WHERE r.id = $1`, [id]);
  if (!rows[0]) throw notFound("Workflow run", id);
  return rows[0].record;
}

/** A run's status and end, or 404: what an event stream needs of its row. */
export async function selectRunRow(sql: Sql, id: string): Promise<RunRow> {
  const { rows } = await sql.query<RunRow & Record<string, unknown>>(
    `SELECT r.status, ${ts("r.finished_at")} AS finished_at FROM workflow_runs r WHERE r.id = $1`,
    [id],
  );
  if (!rows[0]) throw notFound("Workflow run", id);
  return rows[0];
}

/**
 * Moves a run whose status is one of `from` with the assignments `set` (its
 * parameters from $3 on are `values`), in one conditional UPDATE, answering
 * the whole record as it now is. A run in another status is 409 CONFLICT
 * naming it; an unknown run is 404.
 */
async function moveRun(
  sql: Sql,
  id: string,
  from: readonly RunStatus[],
  set: string,
  refusal: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>> {
  const { rows } = await sql.query<{ record: Record<string, unknown> }>(
    `UPDATE workflow_runs r SET ${set}, updated_at = now()
      WHERE r.id = $1 AND r.status = ANY($2::text[])
      RETURNING ${runDetailSql("r")} AS record`,
    [id, from, ...values],
  );
  if (rows[0]) return rows[0].record;
  // Read after the UPDATE found nothing to move, so the status named is one the run really has now.
  const { rows: found } = await sql.query<{ status: RunStatus }>(`SELECT status FROM workflow_runs WHERE id = $1`, [id]);
  if (!found[0]) throw notFound("Workflow run", id);
  const status = found[0].status;
  throw new ApiError("CONFLICT", `Workflow run ${id} is ${status}: ${refusal}`, { run_status: status });
}

/** pending or running → cancelled, with finished_at. */
export function cancelRun(sql: Sql, id: string) {
  return moveRun(sql, id, OPEN_STATUSES, `status = 'cancelled', finished_at = now()`, "only a pending or running run can be cancelled");
}

/** What a retry asks of the run's object: the env and bindings to run with, the step to redrive from. */
export interface RetryRequest {
  config?: "original" | "current";
  from_step?: string;
}

/**
 * A finished run → pending again, in place, one attempt more; its error and
 * finished_at cleared, and `request` kept for its object (null: a retry
 * without a body). A `from_step` that is no job of the version the run
 * follows is 422, before the run moves.
 */
export async function retryRun(sql: Sql, id: string, request: RetryRequest | null) {
  if (request?.from_step !== undefined) {
    const { rows } = await sql.query<{ known: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(v.definition_json->'jobs') j WHERE j->>'id' = $2) AS known
         FROM workflow_runs r JOIN workflow_versions v ON v.workflow_id = r.workflow_id AND v.version = r.workflow_version
        WHERE r.id = $1`,
      [id, request.from_step],
    );
    if (!rows[0]) throw notFound("Workflow run", id);
    if (!rows[0].known) {
      const errors = [`from_step: the run's workflow version has no job ${request.from_step}`];
      throw new ApiError("VALIDATION_FAILED", `Workflow run ${id} has no job ${request.from_step}`, { errors, validation_errors: errors });
    }
  }
  return moveRun(
    sql,
    id,
    FINISHED_STATUSES,
    `status = 'pending', attempt = r.attempt + 1, finished_at = NULL, error = NULL, errors_continued = 0, retry_request = $3::jsonb`,
    "only a finished run can be retried",
    [request && JSON.stringify(request)],
  );
}

export type ScheduleRow = {
  id: string;
  workflow_id: string;
  trigger_id: string;
  cron: string;
  next_run_at: string;
  last_run_at: string | null;
  enabled: boolean;
};

/** One page of cron schedules, oldest first, with the count of all that match. */
export async function selectSchedules(
  sql: Sql,
  workflowId: string | undefined,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: ScheduleRow[] }> {
  const { rows } = await sql.query<ScheduleRow & { total: number }>(
    `SELECT c.total, p.id, p.workflow_id, p.trigger_id, p.cron, p.next_run_at, p.last_run_at, p.enabled
       FROM (SELECT count(*)::int AS total FROM cron_schedules s WHERE $1::uuid IS NULL OR s.workflow_id = $1) c
       LEFT JOIN LATERAL (
         SELECT s.id, s.workflow_id, s.trigger_id, s.cron, s.next_run_at, s.last_run_at, t.enabled, s.created_at
           FROM cron_schedules s JOIN workflow_triggers t ON t.id = s.trigger_id
          WHERE $1::uuid IS NULL OR s.workflow_id = $1
          ORDER BY s.created_at, s.id
          LIMIT $2 OFFSET $3) p ON true
      ORDER BY p.created_at, p.id`,
    [workflowId ?? null, limit, offset],
  );
  return { total: rows[0].total, rows: rows.filter((r) => r.id !== null).map(({ total: _, ...row }) => row) };
}
