// A caller cannot hand out more power than it holds: every write that gives a
// principal permissions (role bindings, role permissions, policy grants and
// assignments) checks them against the caller's unnarrowed permissions first.
import { ApiError } from "../lib/errors";
import { coversAll, type Principal } from "../gateway/principal";

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
