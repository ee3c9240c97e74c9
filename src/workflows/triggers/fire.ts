// What a trigger does when it fires, whatever fired it: gate on `condition`
// (event triggers), build the run's context (the input, the trigger, the run,
// `contextData`) and its idempotency key. Expressions see `context` only.
import { ApiError } from "../../lib/errors";
import { evaluateExpression, isTruthy, resolveSmartValue, ExpressionError } from "../../lib/smart-values";
import type { NewRun } from "../runs/start";

export type TriggerType = "event" | "cron" | "webhook";

/** A trigger block of a definition, as written. */
export interface TriggerBlock {
  id: string;
  source?: Record<string, unknown>;
  cron?: string;
  webhook?: Record<string, unknown>;
  condition?: string;
  contextData?: unknown;
  idempotencyKey?: unknown;
}

/**
 * SQL true while tenant `tenantId` may fire triggers of workflow
 * `workflowId` (both SQL expressions): the workflow is its own, or another
 * tenant shares it with it. For statements outside row-level security (a
 * webhook's lookup, the cron tick); in a tenant transaction the policy on
 * workflow_definitions says the same. Checked at every firing, so a revoked
 * share stops the target's triggers at once, with nothing to clean up.
 */
export const workflowReachable = (workflowId: string, tenantId: string) =>
  // Aliases of their own: the caller's statement may name its tables d or s.
  `EXISTS (SELECT 1 FROM workflow_definitions reach_d
            WHERE reach_d.id = ${workflowId}
              AND (reach_d.tenant_id = ${tenantId}
                   OR EXISTS (SELECT 1 FROM shares reach_s WHERE reach_s.tenant_id = reach_d.tenant_id AND reach_s.target_tenant_id = ${tenantId}
                                 AND reach_s.resource_type = 'workflow' AND reach_s.resource_id = reach_d.id AND 'read' = ANY (reach_s.actions))))`;

/** A trigger row of an activated workflow, as the firing paths read it. */
export interface FiringTrigger {
  /** The row's uuid. */
  id: string;
  /** The definition's trigger id. */
  key: string;
  type: TriggerType;
  workflowId: string;
  /** The activated version of the definition: the run follows it. */
  workflowVersion: number;
  definition: TriggerBlock;
}

export interface FiringFacts {
  /** `context.input`: the event payload, the webhook request, the dispatch input. */
  input: unknown;
  entityId?: string;
  eventId?: string;
  notBefore?: string;
}

function failure(trigger: Pick<FiringTrigger, "key">, field: string, e: unknown): ApiError {
  if (!(e instanceof ExpressionError)) throw e;
  return new ApiError("UNPROCESSABLE_ENTITY", `Trigger ${trigger.key}: ${field} failed: ${e.message}`, { trigger_id: trigger.key, field });
}

/** Sets `context.data` from the trigger's `contextData`, when it has one; it sees `context`. */
export async function addContextData(trigger: Pick<FiringTrigger, "key" | "definition">, context: Record<string, unknown>): Promise<void> {
  if (trigger.definition.contextData === undefined) return;
  try {
    context.data = await resolveSmartValue(trigger.definition.contextData, { context });
  } catch (e) {
    throw failure(trigger, "contextData", e);
  }
}

/**
 * The run a firing starts, or null when the trigger's `condition` says no.
 * An expression that fails is 422 UNPROCESSABLE_ENTITY naming the field.
 */
export async function runFor(trigger: FiringTrigger, facts: FiringFacts): Promise<NewRun | null> {
  const id = crypto.randomUUID();
  const context: Record<string, unknown> = { input: facts.input, trigger: { id: trigger.key, type: trigger.type }, run: { id } };
  const block = trigger.definition;
  if (trigger.type === "event" && block.condition !== undefined) {
    let pass: unknown;
    try {
      pass = await evaluateExpression(block.condition, { context });
    } catch (e) {
      throw failure(trigger, "condition", e);
    }
    if (!isTruthy(pass)) return null;
  }
  await addContextData(trigger, context);
  let idempotencyKey: string | undefined;
  if (block.idempotencyKey !== undefined) {
    let key: unknown;
    try {
      key = await resolveSmartValue(block.idempotencyKey, { context }, { expects: "string" });
    } catch (e) {
      throw failure(trigger, "idempotencyKey", e);
    }
    // An empty key means "no key": the firing is not deduplicated.
    if (typeof key === "string" && key !== "") idempotencyKey = key;
  }
  return {
    id,
    workflowId: trigger.workflowId,
    workflowVersion: trigger.workflowVersion,
    triggerId: trigger.id,
    triggerKey: trigger.key,
    triggerType: trigger.type,
    context,
    entityId: facts.entityId,
    eventId: facts.eventId,
    idempotencyKey,
    notBefore: facts.notBefore,
  };
}
