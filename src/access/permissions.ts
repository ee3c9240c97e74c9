// A token's effective permissions: its roles' permissions, plus the grants of
// every policy assigned to its user or to one of those roles. Computed on the
// first request of a token in an isolate and kept, keyed by the tenant's
// access version (migrations/0006: every change to roles, bindings, users,
// policies, grants, assignments or received shares bumps it). Authentication
// reads the version in the statement it already runs, so a change is seen by
// the next request at no extra round trip.
import type { Sql } from "../db/client";
import type { ScopedGrant } from "../lib/principal";

export interface TokenAccess {
  tokenId: string;
  tenantId: string;
  userId: string;
  /** The token acts with its user's role bindings (minted without role_names) rather than its own. */
  inheritsUserRoles: boolean;
}

export interface EffectivePermissions {
  permissions: string[];
  scoped: ScopedGrant[];
}

export interface GrantRow extends Record<string, unknown> {
  resource: string;
  actions: string[];
  resource_name: string | null;
  resource_id: string | null;
  entity_type: string | null;
}

// The role bindings the token acts with, then one row per role permission
// (as `<resource>:<action>` in `resource`, no actions) and per policy grant.
const EFFECTIVE = `
  WITH bound AS (
    SELECT b.role_id FROM role_bindings b
     WHERE b.tenant_id = $1
       AND ((NOT $4 AND b.principal_type = 'token' AND b.principal_id = $2) OR ($4 AND b.principal_type = 'user' AND b.principal_id = $3))
  )
  SELECT p AS resource, NULL::text[] AS actions, NULL AS resource_name, NULL::uuid AS resource_id, NULL AS entity_type
    FROM roles r JOIN bound ON bound.role_id = r.id CROSS JOIN unnest(r.permissions) AS p
   WHERE r.tenant_id = $1
  UNION ALL
  SELECT g.resource, g.actions, g.resource_name, g.resource_id, et.name
    FROM policy_assignments a JOIN grants g ON g.policy_id = a.policy_id AND g.tenant_id = $1
    LEFT JOIN entities e ON e.id = g.resource_id
    LEFT JOIN entity_types et ON et.id = e.type_id
   WHERE a.tenant_id = $1 AND (a.user_id = $3 OR a.role_id IN (SELECT role_id FROM bound))`;

export async function computePermissions(sql: Sql, token: TokenAccess): Promise<EffectivePermissions> {
  const { rows } = await sql.query<GrantRow>(EFFECTIVE, [token.tenantId, token.tokenId, token.userId, token.inheritsUserRoles]);
  return foldGrants(rows);
}

/** No token: a user acting without one (an app user) acts with its user's bindings only. */
const NO_TOKEN = "00000000-0000-0000-0000-000000000000";

/** A user's own permissions: its role bindings and the policies assigned to it or to those roles (an app user in standard mode). */
export function userPermissions(sql: Sql, tenantId: string, userId: string): Promise<EffectivePermissions> {
  return computePermissions(sql, { tokenId: NO_TOKEN, tenantId, userId, inheritsUserRoles: true });
}

/**
 * Whether a user administers access: holds `*:*` or any permission on
 * `access` (`access:*`, `access:read`, `*:read`, ...) through its roles or
 * the policies assigned to it or them. An app's email link never reaches
 * such a user (DECISIONS, "Who acts, and for which company"). `access`
 * grants are never narrowed, so the unnarrowed permissions say it all.
 */
export async function administersAccess(sql: Sql, tenantId: string, userId: string): Promise<boolean> {
  const { permissions } = await userPermissions(sql, tenantId, userId);
  return permissions.some((p) => {
    const [resource] = p.split(":");
    return resource === "*" || resource === "access";
  });
}

/**
 * Role permissions (`actions` null, `<resource>:<action>` in `resource`) and
 * grants into effective permissions: unnarrowed grants become
 * `<resource>:<action>`; entity grants narrowed to a type or an entity, and
 * app grants narrowed to an activation, become `scoped`.
 */
export function foldGrants(rows: GrantRow[]): EffectivePermissions {
  const permissions = new Set<string>();
  const scoped = new Map<string, ScopedGrant>();
  for (const row of rows) {
    if (!row.actions) permissions.add(row.resource);
    else if (row.resource_name === null && row.resource_id === null) for (const a of row.actions) permissions.add(`${row.resource}:${a}`);
    else if (row.resource === "entity") {
      const grant: ScopedGrant = {
        resource: "entity",
        actions: [...row.actions].sort(),
        resourceName: row.resource_name,
        resourceId: row.resource_id,
        entityType: row.entity_type,
      };
      scoped.set(JSON.stringify(grant), grant);
    } else if (row.resource === "app" && row.resource_id !== null) {
      const grant: ScopedGrant = { resource: "app", actions: [...row.actions].sort(), resourceName: null, resourceId: row.resource_id, entityType: null };
      scoped.set(JSON.stringify(grant), grant);
    }
  }
  return { permissions: [...permissions].sort(), scoped: [...scoped.values()] };
}

// Bounded, oldest first out: an isolate serves many tokens.
const MAX_ENTRIES = 5000;
const cache = new Map<string, { version: number; value: EffectivePermissions }>();

/** The token's permissions at `version`, from the isolate's cache when it holds that version. */
export async function permissionsAt(sql: Sql, token: TokenAccess, version: number): Promise<EffectivePermissions> {
  const hit = cache.get(token.tokenId);
  if (hit && hit.version === version) return hit.value;
  const value = await computePermissions(sql, token);
  cache.delete(token.tokenId);
  cache.set(token.tokenId, { version, value });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return value;
}
