// A trigger of a workflow as the `/workflows/{id}/triggers/{triggerId}/...`
// routes name it: by the definition's trigger id or by the row's uuid.
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import type { TriggerRow } from "../activation/triggers";
import { workflowReachable } from "./fire";

/**
 * The trigger `ref` of workflow `workflowId`, or 404 NOT_FOUND. Both id forms
 * are accepted; should a definition id happen to spell another row's uuid,
 * the definition id wins, as the definition is what the caller wrote.
 */
export async function resolveTrigger(sql: Sql, workflowId: string, ref: string): Promise<TriggerRow> {
  if (isUuid(workflowId)) {
    // Row-level security confines a tenant transaction already; naming the tenant keeps system work to it too.
    // Pick makes the interface a plain object type, which the driver's row constraint accepts.
    const { rows } = await sql.query<Pick<TriggerRow, keyof TriggerRow>>(
      `SELECT id, key, type, enabled, definition, secret_ciphertext IS NOT NULL AS has_secret
         FROM workflow_triggers
        WHERE workflow_id = $1 AND ($2::uuid IS NULL OR tenant_id = $2) AND (key = $3 OR id = $4)
          -- A revoked share takes the target's triggers with it: they answer as unknown ones.
          AND ${workflowReachable("workflow_triggers.workflow_id", "workflow_triggers.tenant_id")}
        ORDER BY key = $3 DESC
        LIMIT 1`,
      [workflowId, sql.tenantId ?? null, ref, isUuid(ref) ? ref : null],
    );
    if (rows[0]) return rows[0];
  }
  throw new ApiError("NOT_FOUND", `Trigger ${ref} of workflow ${workflowId} not found`, { workflow_id: workflowId, trigger_id: ref });
}
