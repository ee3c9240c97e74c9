// Creating runs: every trigger path (events, cron, webhooks, direct dispatch)
// ends here, with `pending` rows the run orchestrator picks up. Duplicates are
// refused by the table's unique keys, never by a read before the write: one
// run per (trigger, event) and per (trigger, idempotency key).
import type { BatchStatement, Sql, TenantDb } from "../../db/client";
import type { TriggerType } from "../triggers/fire";

/** A test run's trigger type: one started by POST /definition/workflows/{id}/test-runs without a trigger. */
export type RunTriggerType = TriggerType | "test";

/** What a test run acts with instead of the activation's env, bindings and policy. */
export interface TestSetup {
  /** Env values merged over the definition's defaults (secret references as written). */
  env: Record<string, unknown>;
  /** The caller's API token: the run acts with its permissions, read when the run acts. */
  callerTokenId: string;
}

export interface NewRun {
  id: string;
  workflowId: string;
  workflowVersion: number;
  /** The trigger row's uuid; null for a test run (it fires no trigger). */
  triggerId: string | null;
  /** The definition's trigger id; null for a test run started without one. */
  triggerKey: string | null;
  triggerType: RunTriggerType;
  context: Record<string, unknown>;
  entityId?: string;
  eventId?: string;
  idempotencyKey?: string;
  /** The earliest the run may start (a cron run's offset); now when unset. */
  notBefore?: string;
  /** The run whose `invokeWorkflow` action started this one. */
  parentRunId?: string;
  /** How many invokeWorkflow calls separate the run from the first run of its chain; 0 when unset. */
  depth?: number;
  test?: TestSetup;
}

export interface StartedRun {
  id: string;
  status: string;
  /** False when an earlier run holds the same idempotency key: that run is answered instead. */
  created: boolean;
}

const COLUMNS = `id, tenant_id, workflow_id, workflow_version, trigger_id, trigger_key, trigger_type, context, entity_id, event_id, idempotency_key, not_before, parent_run_id, depth, test, test_env, caller_token_id`;

/** The statement that inserts `runs` (only while `onlyIf` holds), skipping rows whose unique key is taken; it answers the ids inserted. */
function insertStatement(tenantId: string, runs: NewRun[], onlyIf?: StartCondition): BatchStatement {
  return {
    text: `INSERT INTO workflow_runs (${COLUMNS})
     SELECT r.id, $1, r.workflow_id, r.workflow_version, r.trigger_id, r.trigger_key, r.trigger_type, r.context,
            r.entity_id, r.event_id, r.idempotency_key, coalesce(r.not_before, now()), r.parent_run_id,
            r.depth, r.test_env IS NOT NULL, r.test_env, r.caller_token_id
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, workflow_id uuid, workflow_version int, trigger_id uuid, trigger_key text,
            trigger_type text, context jsonb, entity_id uuid, event_id uuid, idempotency_key text, not_before timestamptz, parent_run_id uuid,
            depth int, test_env jsonb, caller_token_id uuid)${onlyIf ? `\n      WHERE ${onlyIf.sql(3)}` : ""}
     ON CONFLICT DO NOTHING
     RETURNING id`,
    values: [
      tenantId,
      JSON.stringify(
        runs.map((r) => ({
          id: r.id,
          workflow_id: r.workflowId,
          workflow_version: r.workflowVersion,
          trigger_id: r.triggerId,
          trigger_key: r.triggerKey,
          trigger_type: r.triggerType,
          context: r.context,
          entity_id: r.entityId ?? null,
          event_id: r.eventId ?? null,
          idempotency_key: r.idempotencyKey ?? null,
          not_before: r.notBefore ?? null,
          parent_run_id: r.parentRunId ?? null,
          depth: r.depth ?? 0,
          test_env: r.test?.env ?? null,
          caller_token_id: r.test?.callerTokenId ?? null,
        })),
      ),
      ...(onlyIf?.values ?? []),
    ],
  };
}

/** The statement that finds the run holding `run`'s idempotency key or event for its trigger. */
function holderStatement(tenantId: string, run: NewRun): BatchStatement {
  return {
    text: `SELECT id, status FROM workflow_runs
      WHERE tenant_id = $1 AND trigger_id = $2 AND (idempotency_key = $3 OR event_id = $4)`,
    values: [tenantId, run.triggerId, run.idempotencyKey ?? null, run.eventId ?? null],
  };
}

/** Inserts many runs in one statement; rows whose unique key is taken are skipped. Returns the ids inserted. */
export async function insertRuns(sql: Sql, tenantId: string, runs: NewRun[]): Promise<string[]> {
  if (!runs.length) return [];
  const { text, values } = insertStatement(tenantId, runs);
  const { rows } = await sql.query<{ id: string }>(text, values);
  return rows.map((r) => r.id);
}

function started(run: NewRun, insertedId: string | undefined, holder: { id: string; status: string } | undefined): StartedRun {
  if (insertedId) return { id: insertedId, status: "pending", created: true };
  if (!holder) throw new Error(`run ${run.id} was neither inserted nor found`);
  return { ...holder, created: false };
}

/**
 * Starts one run. A run already holding the same idempotency key for the
 * trigger is answered instead, so a repeated delivery starts nothing new.
 */
export async function startRun(sql: Sql, tenantId: string, run: NewRun): Promise<StartedRun> {
  const [id] = await insertRuns(sql, tenantId, [run]);
  if (id) return started(run, id, undefined);
  const { text, values } = holderStatement(tenantId, run);
  const { rows } = await sql.query<{ id: string; status: string }>(text, values);
  return started(run, undefined, rows[0]);
}

/**
 * A condition the database checks in a batched start: `sql(first)` is a
 * boolean SQL expression whose parameters are numbered from $`first`, over
 * `values`.
 */
export interface StartCondition {
  sql(first: number): string;
  values: unknown[];
}

/**
 * startRun as one tenant batch (TenantDb.batch), one round trip: the insert
 * and, in its own statement (whose snapshot sees a holder that committed
 * while the insert waited on it), the run holding the same key. With
 * `onlyIf`, the run is inserted only while the condition holds, and undefined
 * answers that it did not: nothing was written.
 */
export async function startRunBatched(tenant: TenantDb, run: NewRun, onlyIf?: StartCondition): Promise<StartedRun | undefined> {
  const [inserted, holder, held] = await tenant.batch([
    insertStatement(tenant.tenantId, [run], onlyIf),
    holderStatement(tenant.tenantId, run),
    ...(onlyIf ? [{ text: `SELECT ${onlyIf.sql(1)} AS held`, values: onlyIf.values }] : []),
  ]);
  const id = inserted.rows[0]?.id as string | undefined;
  if (!id && held && !held.rows[0]?.held) return undefined;
  return started(run, id, holder.rows[0] as { id: string; status: string } | undefined);
}
