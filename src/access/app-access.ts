// Which app activations the caller may read and change: an unnarrowed
// `app:<action>`, or an `app` grant narrowed to the activation
// (`resource_id`). The one check behind every operation on one activation;
// a route's `app:<action>` permission check admits narrowed grants too, so
// such a route confines itself with this.
import { ApiError } from "../lib/errors";
import { holdsUnscoped, type Principal } from "../lib/principal";

export type AppAction = "read" | "create" | "update" | "delete";

/** May do `action` on the activation `activationId`. */
export function allowsApp(principal: Pick<Principal, "permissions" | "scoped">, action: AppAction, activationId: string): boolean {
  return (
    holdsUnscoped(principal, "app", action) ||
    principal.scoped.some((g) => g.resource === "app" && g.resourceId === activationId && (g.actions.includes(action) || g.actions.includes("*")))
  );
}

/**
 * The 403 of an operation on a spec's activation: it names the spec the path
 * names, never the activation, so it reads the same whether that spec
 * exists, is activated, or neither (docs/apps.md, "Permission before existence").
 */
export function appForbidden(action: AppAction, specId: string): ApiError {
  return new ApiError("FORBIDDEN", `Permission app:${action} is required on the app activation of spec ${specId}`, {
    resource: "app",
    action,
    spec_id: specId,
  });
}

/** 403 unless the caller may do `action` on the activation `activationId`. */
export function requireApp(principal: Pick<Principal, "permissions" | "scoped">, action: AppAction, activationId: string): void {
  if (!allowsApp(principal, action, activationId)) {
    throw new ApiError("FORBIDDEN", `Permission app:${action} is required for app activation ${activationId}`, {
      resource: "app",
      action,
      resource_id: activationId,
    });
  }
}
