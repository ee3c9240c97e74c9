// Who acts with an access policy alone (a workflow run; an app's commands):
// exactly the grants of the bound policy, folded as a token's grants are
// (permissions.ts). Such a principal has no user, no token and no roles; with
// no policy it may do nothing.
import type { Sql } from "../db/client";
import { foldGrants, type GrantRow } from "./permissions";
import type { Principal } from "../gateway/principal";

const POLICY_GRANTS = `
  SELECT g.resource, g.actions, g.resource_name, g.resource_id, et.name AS entity_type
    FROM grants g
    LEFT JOIN entities e ON e.id = g.resource_id
    LEFT JOIN entity_types et ON et.id = e.type_id
   WHERE g.tenant_id = $1 AND g.policy_id = $2`;

/**
 * The policy's principal, read in a tenant transaction (`sql.tenantId` names
 * the tenant). `userId` and `tokenId` are empty: nothing it does is done by a
 * user or a token. `accessVersion` is the tenant's current one, so caches of
 * what it may see are keyed as a caller's are.
 */
export async function policyPrincipal(sql: Sql, policyId: string | null): Promise<Principal> {
  const tenantId = sql.tenantId;
  if (!tenantId) throw new Error("policyPrincipal needs a tenant transaction");
  const { rows } = await sql.query<{ version: number }>(`SELECT coalesce((SELECT version FROM access_versions WHERE tenant_id = $1), 0) AS version`, [tenantId]);
  const grants = policyId === null ? [] : (await sql.query<GrantRow>(POLICY_GRANTS, [tenantId, policyId])).rows;
  const { permissions, scoped } = foldGrants(grants);
  return { tenantId, userId: "", tokenId: "", permissions, scoped, identity: `policy:${policyId ?? "none"}`, accessVersion: rows[0].version };
}
