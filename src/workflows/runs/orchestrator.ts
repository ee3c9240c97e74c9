// The Postgres side of the run orchestrator (durable-objects/workflow-run.ts):
// loading what a run executes, mirroring the object's records into the run
// tables the runs API reads (runs/run-client.ts kicks the objects). The object's own
// storage is the truth; these tables are its mirror. Every write is one
// autocommitted statement as the connecting role that names the run's tenant
// on each row, as the trigger paths' inserts do: the object writes after
// every record, so the round trips a tenant transaction adds would multiply.
import type { Database, Sql } from "../../db/client";
import type { JobDocument, StepDocument, WorkflowDocument } from "../../definition/language/workflow-schema";
import type { ErrorValue } from "../../lib/errors";
import { effectiveEnv } from "../../lib/env-merge";
import type { ActionRecord, RunDocument, StepRecord } from "../engine/types";
import type { RunStatus } from "./record";

export interface RunRef {
  tenantId: string;
  runId: string;
}

export interface LoadedRun {
  doc: RunDocument;
  /** The earliest the run may start, epoch ms. */
  notBefore: number;
  /** The load claimed the row too (it was `pending` and due): it is `running` now, with its started_at. */
  claimed: boolean;
}

interface RunRow extends Record<string, unknown> {
  status: RunStatus;
  workflow_id: string;
  workflow_version: number;
  context: Record<string, unknown>;
  not_before: string;
  definition_json: WorkflowDocument;
  job_refs: Record<string, string>;
  env: Record<string, unknown> | null;
  job_bindings: Record<string, string> | null;
  policy_id: string | null;
  test_env: Record<string, unknown> | null;
  caller_token_id: string | null;
  /** The bound jobs' documents by job definition id. */
  jobs: Record<string, JobDocument> | null;
}

/** A reference step with its bound job's actions and contract; the step's own fields win. One bound to no job stays as written: the walk fails it. */
function inlined(step: StepDocument, bindings: Record<string, string>, jobs: Record<string, JobDocument>): StepDocument {
  if (step.actions || step.name === undefined) return step;
  const job = jobs[bindings[step.id]];
  if (!job) return step;
  const { actions, input, output, inputSchema, outputSchema, inputSchemaName, outputSchemaName } = job;
  const contract = Object.fromEntries(
    Object.entries({ input, output, inputSchema, outputSchema, inputSchemaName, outputSchemaName }).filter(([, v]) => v !== undefined),
  );
  return { ...contract, ...step, actions };
}

/**
 * The run document of a `pending` or `running` run: the definition of the
 * version the run follows, reference steps inlined from the jobs bound at
 * save under the activation's bindings, the effective env and the policy (a
 * test run: the jobs bound at save, its own env over the definition's
 * defaults, and the caller's token instead of a policy).
 * Undefined for an unknown run or one already finished.
 * `claim`: a first start claims a due `pending` row in the same statement
 * (what claimRun does), one round trip fewer before the first action.
 */
export async function loadRun(database: Database, { tenantId, runId }: RunRef, { claim }: { claim: boolean }): Promise<LoadedRun | undefined> {
  const row = await database.system(async (sql) => {
    const { rows } = await sql.query<RunRow & { claimed: boolean }>(
      `WITH moved AS (
         UPDATE workflow_runs SET status = 'running', updated_at = now(), started_at = now()
          WHERE id = $1 AND tenant_id = $2 AND $3 AND status = 'pending' AND not_before <= now()
          RETURNING id)
       SELECT r.status, EXISTS (SELECT 1 FROM moved) AS claimed, r.workflow_id, r.workflow_version, r.context, r.not_before,
              -- A run never reads its triggers: a definition's 100 of them would be parsed and stored for nothing.
              v.definition_json - 'triggers' AS definition_json, v.job_refs, a.env, a.job_bindings, a.policy_id, r.test_env, r.caller_token_id,
              -- A shared workflow's reference steps run the owner's jobs (the version's tenant), whoever runs it.
              (SELECT json_object_agg(j.id, j.definition_json) FROM job_definitions j
                WHERE j.tenant_id = v.tenant_id
                  AND j.id::text IN (SELECT value FROM jsonb_each_text(v.job_refs || coalesce(a.job_bindings, '{}'::jsonb)))) AS jobs
         FROM workflow_runs r
         JOIN workflow_versions v ON v.workflow_id = r.workflow_id AND v.version = r.workflow_version
         -- A test run acts with its own env and the caller's permissions: the activation is not its.
         LEFT JOIN workflow_activations a ON a.workflow_id = r.workflow_id AND a.tenant_id = r.tenant_id AND NOT r.test
        WHERE r.id = $1 AND r.tenant_id = $2`,
      [runId, tenantId, claim],
    );
    return rows[0];
  });
  if (!row || (row.status !== "pending" && row.status !== "running")) return undefined;
  const bindings = { ...row.job_refs, ...(row.job_bindings ?? {}) };
  const definition = { ...row.definition_json, jobs: row.definition_json.jobs.map((s) => inlined(s, bindings, row.jobs ?? {})) };
  return {
    doc: {
      runId,
      tenantId,
      workflowId: row.workflow_id,
      workflowVersion: row.workflow_version,
      definition,
      env: effectiveEnv(row.definition_json.config?.env, row.test_env ?? row.env ?? {}),
      policyId: row.policy_id,
      ...(row.caller_token_id !== null && { callerTokenId: row.caller_token_id }),
      context: row.context,
    },
    notBefore: Date.parse(row.not_before),
    claimed: row.claimed,
  };
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const at = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** Every mirror write also bumps the run's updated_at: the sweep reads it as "this run makes progress". */
const TOUCH_RUN = `UPDATE workflow_runs SET updated_at = now() WHERE id = $2 AND tenant_id = $1`;

/**
 * Moves the run to `running` (a `pending` one gets its started_at) and
 * answers the status it now has: `running`, or the finished status someone
 * else gave it (a cancel, the sweep's deadline), which the object adopts;
 * null when the run is gone (its workflow was deleted).
 */
export async function claimRun(database: Database, { tenantId, runId }: RunRef): Promise<RunStatus | null> {
  return database.system(async (sql) => {
    const { rows } = await sql.query<{ status: RunStatus | null }>(
      `WITH moved AS (
         UPDATE workflow_runs SET status = 'running', updated_at = now(),
                started_at = CASE WHEN status = 'pending' THEN now() ELSE started_at END
          WHERE id = $1 AND tenant_id = $2 AND status IN ('pending', 'running')
          RETURNING status)
       SELECT coalesce((SELECT status FROM moved), (SELECT status FROM workflow_runs WHERE id = $1 AND tenant_id = $2)) AS status`,
      [runId, tenantId],
    );
    return rows[0].status;
  });
}

/** What the latest retry of the run asked for: `{ config?, from_step? }`; null for a retry without a body (or a run never retried). */
export async function retryRequest(database: Database, { tenantId, runId }: RunRef): Promise<{ config?: "original" | "current"; from_step?: string } | null> {
  const { rows } = await database.system((sql) =>
    sql.query<{ retry_request: { config?: "original" | "current"; from_step?: string } | null }>(
      `SELECT retry_request FROM workflow_runs WHERE id = $1 AND tenant_id = $2`,
      [runId, tenantId],
    ),
  );
  return rows[0]?.retry_request ?? null;
}

/** The run row's status; undefined for a run that is gone. */
export async function runStatus(database: Database, { tenantId, runId }: RunRef): Promise<RunStatus | undefined> {
  const { rows } = await database.system((sql) =>
    sql.query<{ status: RunStatus }>(`SELECT status FROM workflow_runs WHERE id = $1 AND tenant_id = $2`, [runId, tenantId]),
  );
  return rows[0]?.status;
}

/** A result's JSON text longer than this many bytes is shown cut to them, as a string. */
export const RESULT_SHOWN_BYTES = 64 * 1024;

/**
 * An action's result as its record shows it: its JSON text, or, when that
 * text is over RESULT_SHOWN_BYTES, its first RESULT_SHOWN_BYTES (never half
 * a character) as a JSON string, `truncated`.
 */
export function shownResult(result: unknown): { json: string | null; truncated: boolean } {
  if (result === undefined) return { json: null, truncated: false };
  const text = JSON.stringify(result);
  // A UTF-16 unit is at most 3 UTF-8 bytes: most results need no encoding to be known short.
  if (text.length * 3 <= RESULT_SHOWN_BYTES) return { json: text, truncated: false };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= RESULT_SHOWN_BYTES) return { json: text, truncated: false };
  let end = RESULT_SHOWN_BYTES;
  while ((bytes[end] & 0xc0) === 0x80) end--;
  return { json: JSON.stringify(new TextDecoder().decode(bytes.subarray(0, end))), truncated: true };
}

/** The upsert of one job run by (run, job), its values from `$first` on (tenant $1, run $2, job $3). */
function jobUpsert(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `INSERT INTO workflow_job_runs (tenant_id, run_id, job_id, status, error, input, output, skipped_reason, started_at, finished_at)
       VALUES ($1, $2, $3, ${p(0)}, ${p(1)}::jsonb, ${p(2)}::jsonb, ${p(3)}::jsonb, ${p(4)}, ${p(5)}::timestamptz, ${p(6)}::timestamptz)
       ON CONFLICT (run_id, job_id) DO UPDATE
          SET status = excluded.status, error = excluded.error, input = excluded.input, output = excluded.output,
              skipped_reason = excluded.skipped_reason, started_at = excluded.started_at, finished_at = excluded.finished_at`;
}

function jobValues(rec: StepRecord): unknown[] {
  return [rec.status, json(rec.error), json(rec.input), json(rec.output), rec.skippedReason ?? null, at(rec.startedAt), at(rec.finishedAt)];
}

/** One job run, upserted by (run, job). */
export async function mirrorStep(sql: Sql, { tenantId, runId }: RunRef, jobId: string, rec: StepRecord): Promise<void> {
  await sql.query(`WITH job AS (${jobUpsert(4)}) ${TOUCH_RUN}`, [tenantId, runId, jobId, ...jobValues(rec)]);
}

/**
 * One action run, upserted by (job run, position), and a log row for each
 * status it passed through since the last mirror (`statuses`, in order: an
 * action that finished at once logs `running` and its end in this one
 * statement); the first is skipped when it equals the mirrored status and
 * attempt, read in the same statement (every part sees the snapshot before
 * it), so writing a record again (a re-sync) logs nothing twice while a
 * resend after a crash (`running` again, one attempt more) logs its own
 * `running`. The record's error goes with the last status. `job`: the
 * action's job record, upserted by the same statement (a job's `running`
 * record rides with its first action's).
 */
export async function mirrorAction(
  sql: Sql,
  { tenantId, runId }: RunRef,
  rec: ActionRecord,
  position: number,
  statuses: string[] = [rec.status],
  job?: StepRecord,
): Promise<void> {
  const result = shownResult(rec.result);
  await sql.query(
    `WITH job AS (${job ? `${jobUpsert(18)} RETURNING id` : "SELECT id FROM workflow_job_runs WHERE run_id = $2 AND job_id = $3"}),
     prev AS (SELECT a.status, a.attempts FROM workflow_action_runs a JOIN job ON a.job_run_id = job.id WHERE a.position = $4),
     action AS (
       INSERT INTO workflow_action_runs (tenant_id, job_run_id, position, step_id, name, status, error, attempts, detail, started_at, finished_at,
                                         config, result, result_truncated, skipped_reason)
       SELECT $1::uuid, job.id, $4::int, $5::text, $6::text, $7::text, $8::jsonb, $9::int, $10::jsonb, $11::timestamptz, $12::timestamptz,
              $14::jsonb, $15::jsonb, $16::boolean, $17::text FROM job
       ON CONFLICT (job_run_id, position) DO UPDATE
          SET step_id = excluded.step_id, name = excluded.name, status = excluded.status, error = excluded.error,
              attempts = excluded.attempts, detail = excluded.detail, started_at = excluded.started_at, finished_at = excluded.finished_at,
              config = excluded.config, result = excluded.result, result_truncated = excluded.result_truncated, skipped_reason = excluded.skipped_reason
       RETURNING job_run_id),
     logged AS (
       INSERT INTO workflow_action_log (tenant_id, job_run_id, step_id, name, status, error)
       SELECT $1::uuid, action.job_run_id, $5::text, $6::text, l.status, CASE WHEN l.ord = cardinality($13::text[]) THEN $8::jsonb END
         FROM action, unnest($13::text[]) WITH ORDINALITY AS l(status, ord)
        WHERE NOT (l.ord = 1 AND EXISTS (SELECT 1 FROM prev WHERE prev.status = l.status AND prev.attempts = $9::int))
        ORDER BY l.ord)
     ${TOUCH_RUN}`,
    [
      tenantId,
      runId,
      rec.jobId,
      position,
      rec.stepId ?? null,
      rec.name,
      rec.status,
      json(rec.error),
      rec.attempt,
      json(rec.detail),
      at(rec.startedAt),
      at(rec.finishedAt),
      statuses,
      json(rec.config),
      result.json,
      result.truncated,
      rec.skippedReason ?? null,
      ...(job ? jobValues(job) : []),
    ],
  );
}

export interface RunOutcome {
  status: Exclude<RunStatus, "pending" | "running">;
  outputs?: Record<string, unknown>;
  error?: ErrorValue;
  /** The failures `errorPolicy: continue` consumed. */
  errorsContinued?: number;
}

/** What a run's object keeps as its status: open, or its outcome once finished. */
export type RunState = { status: "pending" | "running" } | RunOutcome;

export const isFinished = (state: RunState | undefined): state is RunOutcome => state !== undefined && state.status !== "pending" && state.status !== "running";

/**
 * The run's end, unless it already has one: a cancel that won is never
 * overwritten, and of the outcome such a run gets only its count of errors
 * consumed (the object counts them as it closes the run).
 */
export async function mirrorOutcome(sql: Sql, { tenantId, runId }: RunRef, outcome: RunOutcome): Promise<void> {
  await sql.query(
    `UPDATE workflow_runs
        SET status = CASE WHEN status IN ('pending', 'running') THEN $3 ELSE status END,
            outputs = CASE WHEN status IN ('pending', 'running') THEN $4::jsonb ELSE outputs END,
            error = CASE WHEN status IN ('pending', 'running') THEN $5::jsonb ELSE error END,
            finished_at = CASE WHEN status IN ('pending', 'running') THEN now() ELSE finished_at END,
            errors_continued = $6, updated_at = now()
      WHERE id = $1 AND tenant_id = $2 AND (status IN ('pending', 'running') OR errors_continued <> $6)`,
    [runId, tenantId, outcome.status, json(outcome.outputs), json(outcome.error), outcome.errorsContinued ?? 0],
  );
}
