// Direct dispatch (POST /workflows/wr): starts a run of an activated workflow
// through one of its webhook or cron triggers, named by its definition id. An
// event trigger fires only from its entity event, so dispatching it is refused.
// A run started by another run's invokeWorkflow is one level deeper than its
// parent; past MAX_INVOKE_DEPTH the dispatch is refused, so a workflow that
// invokes itself (directly or round a cycle) stops instead of looping.
import type { TenantDb } from "../db/client";
import { ApiError, notFound } from "../lib/errors";
import { runFor, type FiringTrigger } from "./triggers/fire";
import { startRunBatched, type StartCondition, type StartedRun } from "./runs/start";
import type { FromSchema } from "json-schema-to-ts";
import type { dispatchBody } from "./activation/schemas";

export type DispatchInput = FromSchema<typeof dispatchBody, { keepDefaultedPropertiesOptional: true }>;

/** What a run started by an `invokeWorkflow` action carries: in a run, or in an app command's request. */
export interface DispatchOrigin {
  /** The invoking run; absent when an app request invokes (the child is the first of its chain). */
  parentRunId?: string;
  /** The action attempt's key: a replayed attempt answers the child it started. */
  idempotencyKey: string;
}

/** The deepest a chain of runs started by invokeWorkflow goes below the run that started it. */
export const MAX_INVOKE_DEPTH = 8;

type TriggerFound = Omit<FiringTrigger, "workflowVersion"> & { enabled: boolean; workflow_version: number | null; known: boolean };

function refused(message: string, input: DispatchInput): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", message, { workflow_id: input.workflow_id, trigger_id: input.trigger_id });
}

/**
 * Dispatchable triggers this isolate read, by tenant, workflow and trigger
 * key, with the versions (xmin) of their trigger and activation rows. An
 * entry is only a guess: the run's insert holds while both rows are still
 * those versions and the trigger enabled, and otherwise writes nothing and
 * the dispatch reads the trigger again. Refusals are never cached.
 */
const dispatchable = new Map<string, { trigger: FiringTrigger; versions: string }>();
const MAX_DISPATCHABLE = 2000;

/**
 * The trigger row `$first` at the versions `$first+1`, enabled, of a still
 * activated workflow whose definition the tenant still sees: a definition
 * shared with it is visible through its share only (row-level security), so
 * a revoked share fails the condition though the trigger and activation rows
 * are unchanged.
 */
const stillDispatchable = (trigger: { id: string; versions: string }): StartCondition => ({
  sql: (first) => `EXISTS (SELECT 1 FROM workflow_triggers t JOIN workflow_activations a ON a.workflow_id = t.workflow_id
                     JOIN workflow_definitions d ON d.id = t.workflow_id
                     WHERE t.id = $${first}::uuid AND t.enabled AND t.xmin::text || '/' || a.xmin::text = $${first + 1}::text)`,
  values: [trigger.id, trigger.versions],
});

export async function dispatchRun(tenant: TenantDb, input: DispatchInput, origin?: DispatchOrigin): Promise<StartedRun> {
  const key = `${tenant.tenantId}/${input.workflow_id}/${input.trigger_id}`;
  const hit = origin?.parentRunId ? undefined : dispatchable.get(key);
  if (hit) {
    // One round trip: the run, inserted while the cached trigger still holds.
    // An expression of the cached definition that fails is decided again by the trigger as it is now.
    const run = await runFor(hit.trigger, { input: input.input ?? {} }).catch(() => null);
    const started = run && (await startRunBatched(tenant, { ...run, ...origin }, stillDispatchable({ id: hit.trigger.id, versions: hit.versions })));
    if (started) return started;
    dispatchable.delete(key);
  }
  // The trigger and the parent's depth in one round trip, the run in one more: each a tenant transaction sent whole (db/client.ts tenantBatch).
  const [triggers, parents] = await tenant.batch([
    {
      text: `SELECT d.id IS NOT NULL AS known, t.id, t.key, t.type, t.enabled, t.definition, t.workflow_id AS "workflowId", a.version AS workflow_version,
                    t.xmin::text || '/' || a.xmin::text AS versions
         FROM (SELECT $1::uuid AS workflow_id) w
         LEFT JOIN workflow_definitions d ON d.id = w.workflow_id
         LEFT JOIN workflow_activations a ON a.workflow_id = d.id
         LEFT JOIN workflow_triggers t ON t.workflow_id = a.workflow_id AND t.key = $2`,
      values: [input.workflow_id, input.trigger_id],
    },
    // The parent's depth; 0 when it is not found (another tenant's run is not visible here).
    ...(origin?.parentRunId ? [{ text: "SELECT depth FROM workflow_runs WHERE id = $1", values: [origin.parentRunId] }] : []),
  ]);
  const found = triggers.rows[0] as TriggerFound & { versions: string };
  if (!found.known) throw notFound("Workflow", input.workflow_id);
  if (found.workflow_version === null) throw refused(`Workflow ${input.workflow_id} is not activated`, input);
  if (!found.id) throw refused(`Workflow ${input.workflow_id} has no trigger ${input.trigger_id}`, input);
  if (found.type === "event") throw refused(`Trigger ${input.trigger_id} fires only from its entity event; it cannot be dispatched`, input);
  if (!found.enabled) throw refused(`Trigger ${input.trigger_id} is disabled`, input);
  const trigger: FiringTrigger = {
    id: found.id,
    key: found.key,
    type: found.type,
    workflowId: found.workflowId,
    workflowVersion: found.workflow_version,
    definition: found.definition,
  };
  // Only event triggers have a condition that can say no.
  const run = (await runFor(trigger, { input: input.input ?? {} }))!;
  dispatchable.delete(key);
  dispatchable.set(key, { trigger, versions: found.versions });
  if (dispatchable.size > MAX_DISPATCHABLE) dispatchable.delete(dispatchable.keys().next().value!);
  if (!origin?.parentRunId) return (await startRunBatched(tenant, { ...run, ...origin }))!;
  const depth = ((parents!.rows[0]?.depth as number | undefined) ?? 0) + 1;
  if (depth > MAX_INVOKE_DEPTH) {
    throw new ApiError(
      "UNPROCESSABLE_ENTITY",
      `Run ${origin.parentRunId} is ${depth - 1} invokeWorkflow calls below the run that started its chain; a chain stops at ${MAX_INVOKE_DEPTH} (does the workflow invoke itself?)`,
      { workflow_id: input.workflow_id, parent_run_id: origin.parentRunId, max_depth: MAX_INVOKE_DEPTH },
    );
  }
  return (await startRunBatched(tenant, { ...run, ...origin, depth }))!;
}
