// The run record the runs API answers, built by Postgres as JSON in one
// statement: the run, and for the detail its job runs, each with its action
// runs and action log. json_build_object (not jsonb) keeps the keys in the
// order written here; the stored documents (context, outputs, errors) keep
// their storage order.
import { RUN_STATUSES, STEP_STATUSES } from "../../db/schema";
import { isoTimestampSql as ts } from "../../lib/timestamps";
import { freeFormObject, uuidSchema } from "../../lib/schemas";

export type RunStatus = (typeof RUN_STATUSES)[number];

/** The states the orchestrator has not finished yet: a cancel ends them, a retry waits for them to end. */
export const OPEN_STATUSES = ["pending", "running"] as const satisfies readonly RunStatus[];
export const FINISHED_STATUSES = RUN_STATUSES.filter((s) => !(OPEN_STATUSES as readonly string[]).includes(s));

/**
 * The run record of the row `r` (a table alias or an UPDATE's target),
 * without its job runs: a list row. `more` adds key/value pairs at the end.
 */
export function runRecordSql(r: string, more = ""): string {
  return `json_build_object(
    'id', ${r}.id, 'workflow_id', ${r}.workflow_id, 'workflow_version', ${r}.workflow_version,
    'trigger', json_build_object('id', ${r}.trigger_key, 'type', ${r}.trigger_type), 'test', ${r}.test,
    'status', ${r}.status, 'attempt', ${r}.attempt, 'entity_id', ${r}.entity_id,
    'context', ${r}.context, 'outputs', ${r}.outputs, 'error', ${r}.error, 'errors_continued', ${r}.errors_continued,
    'created_at', ${ts(`${r}.created_at`)}, 'started_at', ${ts(`${r}.started_at`)}, 'finished_at', ${ts(`${r}.finished_at`)}${more})`;
}

const actionRunsSql = (j: string) => `coalesce((
    SELECT json_agg(json_build_object(
             'id', a.id, 'step_id', a.step_id, 'name', a.name, 'status', a.status, 'skipped_reason', a.skipped_reason, 'error', a.error,
             'attempts', a.attempts, 'config', a.config, 'result', a.result, 'result_truncated', a.result_truncated,
             'started_at', ${ts("a.started_at")}, 'finished_at', ${ts("a.finished_at")})
           ORDER BY a.position)
      FROM workflow_action_runs a WHERE a.job_run_id = ${j}.id), '[]'::json)`;

const actionLogSql = (j: string) => `coalesce((
    SELECT json_agg(json_build_object('step_id', l.step_id, 'name', l.name, 'status', l.status, 'error', l.error, 'at', ${ts("l.at")})
           ORDER BY l.id)
      FROM workflow_action_log l WHERE l.job_run_id = ${j}.id), '[]'::json)`;

/** The whole run record of the row `r`: the list row with `job_runs`, each with its `action_runs` and `action_log`. */
export function runDetailSql(r: string): string {
  const jobRuns = `coalesce((
    SELECT json_agg(json_build_object(
             'id', j.id, 'job_id', j.job_id, 'status', j.status, 'skipped_reason', j.skipped_reason, 'error', j.error,
             'input', j.input, 'output', j.output,
             'started_at', ${ts("j.started_at")}, 'finished_at', ${ts("j.finished_at")},
             'action_runs', ${actionRunsSql("j")}, 'action_log', ${actionLogSql("j")})
           ORDER BY j.created_at, j.job_id)
      FROM workflow_job_runs j WHERE j.run_id = ${r}.id), '[]'::json)`;
  return runRecordSql(r, `, 'job_runs', ${jobRuns}`);
}

const timestamp = { type: "string", description: "RFC 3339, UTC" } as const;
const nullableTimestamp = { type: ["string", "null"], description: "RFC 3339, UTC; null until it happens" } as const;
const storedError = { type: ["object", "null"], additionalProperties: true, description: "{ status, code, message, details }, or null" } as const;
const stepStatus = { enum: STEP_STATUSES } as const;

const runFields = {
  id: uuidSchema,
  workflow_id: uuidSchema,
  workflow_version: { type: "integer", description: "The version of the definition the run follows" },
  trigger: {
    type: "object",
    required: ["id", "type"],
    properties: {
      id: { type: ["string", "null"], description: "The definition's trigger id; null for a test run started without one" },
      type: { enum: ["event", "cron", "webhook", "test"], description: "test: a test run started without a trigger" },
    },
  },
  test: { type: "boolean", description: "Started by POST /definition/workflows/{id}/test-runs" },
  status: { enum: RUN_STATUSES },
  attempt: { type: "integer", description: "Times the run was retried in place (0 for the first)" },
  entity_id: { type: ["string", "null"], description: "The entity whose event started the run" },
  context: { ...freeFormObject, description: "{ input, trigger, run, data? }" },
  outputs: { type: ["object", "null"], additionalProperties: true, description: "Job outputs by job id" },
  error: storedError,
  errors_continued: {
    type: "integer",
    description: "The failures `errorPolicy: continue` consumed (actions' and steps'), counted as the run ends; 0 when none",
  },
  created_at: timestamp,
  started_at: nullableTimestamp,
  finished_at: nullableTimestamp,
} as const;

const runRequired = Object.keys(runFields) as (keyof typeof runFields)[];

/** A run list row. */
export const runItem = { type: "object", required: runRequired, properties: runFields } as const;

const actionRun = {
  type: "object",
  required: ["id", "step_id", "name", "status", "skipped_reason", "error", "attempts", "config", "result", "result_truncated", "started_at", "finished_at"],
  properties: {
    id: uuidSchema,
    step_id: { type: ["string", "null"] },
    name: { type: "string" },
    status: stepStatus,
    skipped_reason: { enum: ["if_false", "run_ended", null], description: "Why a `skipped` action did not run: its `if` was false, or the run ended first" },
    error: storedError,
    attempts: { type: "integer" },
    config: { description: "The config as resolved and sent (secrets and values computed from them as `***`); null before it resolved" },
    result: { description: "The result, any JSON (secrets masked); with `result_truncated`, the first 64 KiB of its JSON text as a string; null without one" },
    result_truncated: { type: "boolean", description: "The result's JSON text was over 64 KiB and `result` holds its start" },
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
  },
} as const;

const actionLogEntry = {
  type: "object",
  required: ["step_id", "name", "status", "error", "at"],
  properties: { step_id: { type: ["string", "null"] }, name: { type: "string" }, status: { type: "string" }, error: storedError, at: timestamp },
} as const;

const jobRun = {
  type: "object",
  required: ["id", "job_id", "status", "skipped_reason", "error", "input", "output", "started_at", "finished_at", "action_runs", "action_log"],
  properties: {
    id: uuidSchema,
    job_id: { type: "string", description: "The step id in the definition" },
    status: stepStatus,
    skipped_reason: {
      enum: ["condition_false", "run_ended", null],
      description: "Why a `skipped` step did not run: its condition was false, or the run ended first",
    },
    error: storedError,
    input: { description: "The step's resolved input, any JSON (secrets masked); null until it resolved" },
    output: { description: "The job's output, any JSON; null until it has one" },
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
    action_runs: { type: "array", items: actionRun },
    action_log: { type: "array", items: actionLogEntry, description: "Every status each action reached, in order" },
  },
} as const;

/** The whole run record. */
export const runDetail = {
  type: "object",
  required: [...runRequired, "job_runs"],
  properties: { ...runFields, job_runs: { type: "array", items: jobRun } },
} as const;

/** A cron schedule row. */
export const scheduleItem = {
  type: "object",
  required: ["id", "workflow_id", "trigger_id", "cron", "next_run_at", "last_run_at", "enabled"],
  properties: {
    id: uuidSchema,
    workflow_id: uuidSchema,
    trigger_id: { ...uuidSchema, description: "The trigger's uuid (the `trigger_id` activation answers)" },
    cron: { type: "string" },
    next_run_at: { ...timestamp, description: "The next tick it fires at, before its 0-9 s offset" },
    last_run_at: nullableTimestamp,
    enabled: { type: "boolean", description: "The trigger's state" },
  },
} as const;
