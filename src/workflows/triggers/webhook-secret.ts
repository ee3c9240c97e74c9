// Webhook signing secrets: minted on request, answered once, kept sealed in
// `workflow_triggers.secret_ciphertext` under the tenant's secrets key with
// the trigger's address bound in, so a ciphertext copied to another trigger
// or tenant does not open.
import type { TenantDb } from "../../db/client";
import { openSecret, sealSecret, secretsKey, type SecretAddress } from "../../access/secrets/secret-box";
import { base64url, randomBytes } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { resolveTrigger } from "./lookup";

/** 32 random bytes: as strong as the HMAC-SHA256 key they become. */
const SECRET_BYTES = 32;

function addressOf(tenantId: string, triggerId: string): SecretAddress {
  return { tenantId, scope: "webhook", principalId: triggerId, name: "signing" };
}

/**
 * Mints a new secret for the trigger `ref` of the workflow, replacing any
 * earlier one at once (calls signed with the old one fail from the commit on).
 * Only a webhook trigger that declares verification has one: 404 otherwise.
 */
export async function rotateWebhookSecret(tenant: TenantDb, masterKey: string, workflowId: string, ref: string): Promise<string> {
  const secret = `whsec_${base64url(randomBytes(SECRET_BYTES))}`;
  const key = await secretsKey(masterKey, tenant.tenantId);
  return tenant.tx(async (sql) => {
    const trigger = await resolveTrigger(sql, workflowId, ref);
    const ciphertext = await sealSecret(key, addressOf(tenant.tenantId, trigger.id), secret);
    // The condition is repeated in the write, so a re-activation that just dropped the verification cannot be overtaken.
    const { rowCount } = await sql.query(
      `UPDATE workflow_triggers SET secret_ciphertext = $2, updated_at = now()
        WHERE id = $1 AND type = 'webhook' AND definition->'webhook' ? 'verification'`,
      [trigger.id, ciphertext],
    );
    if (!rowCount) {
      throw new ApiError("NOT_FOUND", `Trigger ${ref} of workflow ${workflowId} declares no webhook verification, so it has no secret`, {
        workflow_id: workflowId,
        trigger_id: ref,
      });
    }
    return secret;
  });
}

/** The trigger's secret, or null when the stored bytes were not sealed for this trigger. */
export async function openWebhookSecret(masterKey: string, tenantId: string, triggerId: string, ciphertext: Uint8Array): Promise<string | null> {
  return openSecret(await secretsKey(masterKey, tenantId), addressOf(tenantId, triggerId), ciphertext);
}
