// Who acts without a token of its own, read in a tenant transaction: with an
// access policy alone (a workflow run; an app's commands), exactly the grants
// of the bound policy, folded as a token's grants are (permissions.ts), with
// no user and no roles, and with no policy nothing; or as a user with its own
// role bindings and the policies assigned to it or them (an app user in
// standard mode), as its tokens would.
import type { Sql } from "../db/client";
import { foldGrants, userPermissions, type EffectivePermissions, type GrantRow } from "./permissions";
import type { Principal } from "../lib/principal";

const POLICY_GRANTS = `
  SELECT g.resource, g.actions, g.resource_name, g.resource_id, et.name AS entity_type
    FROM grants g
    LEFT JOIN entities e ON e.id = g.resource_id
    LEFT JOIN entity_types et ON et.id = e.type_id
   WHERE g.tenant_id = $1 AND g.policy_id = $2`;

/**
 * The one builder of a principal without a token (`tokenId` empty).
 * `accessVersion` is the tenant's current one, so caches of what it may see
 * are keyed as a caller's are.
 */
async function tokenlessPrincipal(
  sql: Sql,
  who: { userId: string; identity: string },
  effective: (tenantId: string) => Promise<EffectivePermissions>,
): Promise<Principal> {
  const tenantId = sql.tenantId;
  if (!tenantId) throw new Error("a principal without a token needs a tenant transaction");
  const { rows } = await sql.query<{ version: number }>(`SELECT coalesce((SELECT version FROM access_versions WHERE tenant_id = $1), 0) AS version`, [
    tenantId,
  ]);
  const { permissions, scoped } = await effective(tenantId);
  return { tenantId, userId: who.userId, tokenId: "", permissions, scoped, identity: who.identity, accessVersion: rows[0].version };
}

/** The policy's principal (`sql.tenantId` names the tenant). `userId` is empty too: nothing it does is done by a user. */
export function policyPrincipal(sql: Sql, policyId: string | null): Promise<Principal> {
  return tokenlessPrincipal(sql, { userId: "", identity: `policy:${policyId ?? "none"}` }, async (tenantId) =>
    foldGrants(policyId === null ? [] : (await sql.query<GrantRow>(POLICY_GRANTS, [tenantId, policyId])).rows),
  );
}

/** A user acting without a token, as `identity` (its rate-limit and idempotency identity). */
export function userPrincipal(sql: Sql, userId: string, identity: string): Promise<Principal> {
  return tokenlessPrincipal(sql, { userId, identity }, (tenantId) => userPermissions(sql, tenantId, userId));
}
