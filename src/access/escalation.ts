// A caller cannot hand out more power than it holds: every write that gives a
// principal permissions (role bindings, role permissions, policy grants and
// assignments) checks them against the caller's unnarrowed permissions first;
// a policy the platform provisions for an activation, against what the caller
// holds, narrowed grants included.
import type { Sql } from "../db/client";
import { ApiError } from "../lib/errors";
import { coversAll, holdsPermission, type Principal } from "../lib/principal";
import { policyPrincipal } from "./policy-principal";

/** `<resource>:<action>` for each action of each grant; a narrowed grant counts as its whole resource, so only a holder of it may hand it out. */
export function grantPermissions(grants: { resource: string; actions: string[] }[]): string[] {
  return [...new Set(grants.flatMap((g) => g.actions.map((a) => `${g.resource}:${a}`)))];
}

export function requireCovered(caller: Pick<Principal, "permissions">, wanted: string[], what: string): void {
  if (!coversAll(caller.permissions, wanted)) {
    const missing = wanted.filter((w) => !coversAll(caller.permissions, [w]));
    throw new ApiError("FORBIDDEN", `${what} would give permissions the caller does not hold`, { missing_permissions: missing });
  }
}

/** A policy an activation provisions: the one it already has (none yet: undefined), and the permissions it would grant, narrowed as GET /access/me/permissions writes them. */
export interface Provision {
  existing: string | undefined;
  permissions: string[];
}

/**
 * The escalation rule for provisioned policies (a workflow's own, an app
 * activation's): the caller must hold every permission one would grant, but
 * for what that policy already grants (someone who held it gave it before).
 * 403 whose message `refusal` words for the first permission missing, with
 * `permission` and every one missing.
 */
export async function requireProvisionable(sql: Sql, caller: Principal, provisions: Provision[], refusal: (permission: string) => string): Promise<void> {
  const missing: string[] = [];
  for (const { existing, permissions } of provisions) {
    const granted = existing === undefined ? undefined : await policyPrincipal(sql, existing);
    for (const permission of permissions) {
      if (!holdsPermission(caller, permission) && !(granted && holdsPermission(granted, permission)) && !missing.includes(permission)) missing.push(permission);
    }
  }
  if (missing.length) throw new ApiError("FORBIDDEN", refusal(missing[0]), { permission: missing[0], missing_permissions: missing });
}
