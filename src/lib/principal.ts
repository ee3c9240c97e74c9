// Who is calling: resolved by auth/authenticate.ts, read by every route.

/** A grant narrowed to the entities of one type (by name) or to one entity; only `entity` grants narrow. */
/** A grant narrowed to part of its resource: entity grants to a type or an entity, app grants to an activation. */
export interface ScopedGrant {
  resource: "entity" | "app";
  actions: string[];
  resourceName: string | null;
  resourceId: string | null;
  /** For a grant narrowed to an entity: that entity's type name (null when no such entity exists). */
  entityType: string | null;
}

export interface Principal {
  tenantId: string;
  userId: string;
  /** The API token the call was made with (directly as a PAT or through a JWT minted from it). */
  tokenId: string;
  /**
   * Unnarrowed `<resource>:<action>` permissions: the roles' permissions and
   * the unnarrowed grants of the assigned policies; `*` matches anything in its part.
   */
  permissions: string[];
  /** Grants of the assigned policies narrowed to one entity type or one entity. */
  scoped: ScopedGrant[];
  /** The rate-limit and idempotency identity. */
  identity: string;
  /** The tenant's access version at authentication: caches of what the caller may see are valid while it holds. */
  accessVersion: number;
}

export function grants(permission: string, resource: string, action: string): boolean {
  const [r, a] = permission.split(":");
  return (r === "*" || r === resource) && (a === "*" || a === action);
}

/** Holds `resource:action` for every row of the resource, not only narrowed ones. */
export function holdsUnscoped(principal: Pick<Principal, "permissions">, resource: string, action: string): boolean {
  return principal.permissions.some((p) => grants(p, resource, action));
}

/**
 * Whether the route may run at all: an unnarrowed permission, or a narrowed
 * grant (the rows the route reaches are then confined, db/entity-access.ts).
 */
export function hasPermission(principal: Pick<Principal, "permissions" | "scoped">, resource: string, action: string): boolean {
  return (
    holdsUnscoped(principal, resource, action) || principal.scoped.some((g) => g.resource === resource && g.actions.some((a) => a === "*" || a === action))
  );
}

/** What a narrowed grant names in a permission string: the type name (entity), else the id (an entity, an app activation). */
const narrowedTo = (g: ScopedGrant): string | null => g.resourceName ?? g.resourceId;

/**
 * Holds `permission` as GET /access/me/permissions writes it: `resource:action`
 * unnarrowed, or `entity:<action>:<type name>` (`app:<action>:<activation id>`)
 * unnarrowed or through a grant narrowed to that type (that activation).
 */
export function holdsPermission(principal: Pick<Principal, "permissions" | "scoped">, permission: string): boolean {
  const [resource, action, ...rest] = permission.split(":");
  if (holdsUnscoped(principal, resource, action)) return true;
  const target = rest.join(":");
  return (
    rest.length > 0 &&
    principal.scoped.some(
      (g) => g.resource === resource && (g.resource === "app" ? g.resourceId : g.resourceName) === target && g.actions.some((a) => a === "*" || a === action),
    )
  );
}

/** True when every grant in `wanted` is covered by `held` (used so a caller cannot hand out more power than it has). */
export function coversAll(held: string[], wanted: string[]): boolean {
  return wanted.every((w) => {
    const [r, a] = w.split(":");
    return held.some((h) => grants(h, r, a));
  });
}

/**
 * The caller's permissions as GET /access/me/permissions lists them: the
 * unnarrowed ones, then each narrowed action as `entity:<action>:<type name>`,
 * `entity:<action>:<entity id>` or `app:<action>:<activation id>`.
 */
export function permissionStrings(principal: Pick<Principal, "permissions" | "scoped">): string[] {
  const scoped = principal.scoped.flatMap((g) => g.actions.map((a) => `${g.resource}:${a}:${narrowedTo(g)}`));
  return [...new Set(principal.permissions)].sort().concat([...new Set(scoped)].sort());
}
