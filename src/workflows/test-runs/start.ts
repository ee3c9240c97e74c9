// Test runs (POST /definition/workflows/{id}/test-runs): the definition's
// current version, draft or active, run once as the caller. The run acts with
// the caller's API token (its permissions read when the run acts) and with the
// env given over the definition's defaults; the activation's env, bindings and
// policy play no part, and no trigger fires: a named trigger only lends the
// run its id, type and `contextData`, so a trigger of any type (an event, a
// cron, a disabled one) can be simulated by the input it would carry.
import type { FromSchema } from "json-schema-to-ts";
import type { TenantDb } from "../../db/client";
import type { Principal } from "../../lib/principal";
import { ApiError, notFound } from "../../lib/errors";
import { mergeEnv, type Env } from "../../lib/env-merge";
import { checkEnv } from "../activation/activate";
import { triggerType } from "../activation/triggers";
import { addContextData, type TriggerBlock } from "../triggers/fire";
import { startRun, type StartedRun } from "../runs/start";
import type { testRunBody } from "./schemas";

export type TestRunInput = FromSchema<typeof testRunBody>;

type DefinitionRow = { version: number; definition_json: { triggers?: TriggerBlock[]; config?: { env?: Env }; configSchemas?: { env?: string } } };

export async function startTestRun(tenant: TenantDb, caller: Principal, workflowId: string, input: TestRunInput): Promise<StartedRun> {
  return tenant.tx(async (sql) => {
    const { rows } = await sql.query<DefinitionRow>(`SELECT version, definition_json FROM workflow_definitions WHERE id = $1`, [workflowId]);
    if (!rows[0]) throw notFound("Workflow", workflowId);
    const { version, definition_json: doc } = rows[0];
    const env = mergeEnv({}, input.env);
    await checkEnv(sql, doc, env);
    const block = input.trigger_id === undefined ? undefined : doc.triggers?.find((t) => t.id === input.trigger_id);
    if (input.trigger_id !== undefined && !block) {
      throw new ApiError("UNPROCESSABLE_ENTITY", `Workflow ${workflowId} has no trigger ${input.trigger_id}`, {
        workflow_id: workflowId,
        trigger_id: input.trigger_id,
      });
    }
    const id = crypto.randomUUID();
    const trigger = block ? { id: block.id, type: triggerType(block) } : { id: null, type: "test" as const };
    const context: Record<string, unknown> = { input: input.input ?? {}, trigger, run: { id } };
    if (block) await addContextData({ key: block.id, definition: block }, context);
    return startRun(sql, tenant.tenantId, {
      id,
      workflowId,
      workflowVersion: version,
      triggerId: null,
      triggerKey: trigger.id,
      triggerType: trigger.type,
      context,
      test: { env, callerTokenId: caller.tokenId },
    });
  });
}
