// What the app user may do. With spec `policies`, exactly the grants of the
// policy the activation binds (every user of the app alike); without them
// (standard mode), the user's own role bindings and the policies assigned
// to it or its roles, as its tokens would have. Its rate-limit identity is
// per (integration, user): each app user of each integration has its own
// budget.
import type { Sql } from "../../../db/client";
import { policyPrincipal, userPrincipal } from "../../../access/policy-principal";
import type { Principal } from "../../../lib/principal";
import type { RenderTarget } from "./target";

/** The rate-limit and idempotency identity of an app user of an integration. */
export const appUserIdentity = (integrationId: string, userId: string) => `app-user:${integrationId}:${userId}`;

export function declaresPolicies(target: RenderTarget): boolean {
  const policies = target.specDocument.policies;
  return typeof policies === "object" && policies !== null && Object.keys(policies).length > 0;
}

/**
 * Read with `sql`, a read-only handle of the target's tenant (row-level
 * security confines it), as `user` resolves: a policy's grants do not
 * depend on the user, so they are read while it resolves.
 */
export async function appUserPrincipal(sql: Sql, target: RenderTarget, user: Promise<string>): Promise<Principal> {
  if (declaresPolicies(target)) {
    const [policy, userId] = await Promise.all([policyPrincipal(sql, target.policyId), user]);
    return { ...policy, userId, identity: appUserIdentity(target.integrationId, userId) };
  }
  const userId = await user;
  return userPrincipal(sql, userId, appUserIdentity(target.integrationId, userId));
}
