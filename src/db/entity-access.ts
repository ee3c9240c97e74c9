// Which entity rows the caller may read and change: the one row-level check
// behind the route's `entity:<action>` permission. A route passes its
// permission check with an unnarrowed permission or with a grant narrowed to
// a type or an entity; this decides which rows that reaches. Reads confine
// their statements (ReadScope, compiled into every entity row a statement
// touches: roots, filters through relationships, includes, graph branches);
// writes check the row or type they change.
import { ApiError, notFound } from "../lib/errors";
import { holdsUnscoped, type Principal } from "../lib/principal";
import type { Params } from "./params";

export type EntityAction = "read" | "create" | "update" | "delete";

/**
 * The rows one read may return, of one tenant's entities: the caller's own,
 * or (`shared`) the rows another tenant shares with it.
 */
export interface ReadScope {
  /** Whose rows: the caller's tenant, or the owner of a shared type. */
  readonly tenantId: string;
  /** Type names the caller reads whole; null: every type. */
  readonly typeNames: readonly string[] | null;
  /** Entities the caller reads one by one (grants narrowed to an entity). */
  readonly entityIds: readonly string[];
  /** When reading another tenant's rows: the types and entities it shares with the caller. */
  readonly shared: { typeIds: readonly string[]; entityIds: readonly string[] } | null;
}

export class EntityAccess {
  constructor(private readonly principal: Pick<Principal, "permissions" | "scoped" | "accessVersion"> | null) {}

  /** The caller's tenant access version; none for system work, whose reads are not cached by it. */
  get version(): number | undefined {
    return this.principal?.accessVersion;
  }

  /** System work (cron, queue consumers, tests' fixtures) acts on every row. */
  static readonly everything = new EntityAccess(null);

  private narrowed(action: EntityAction) {
    return (this.principal?.scoped ?? []).filter((g) => g.resource === "entity" && (g.actions.includes(action) || g.actions.includes("*")));
  }

  private unscoped(action: EntityAction): boolean {
    return !this.principal || holdsUnscoped(this.principal, "entity", action);
  }

  /** May read and do `action` on every row of every type: no row needs checking first. */
  allowsEveryRow(action: EntityAction): boolean {
    return this.unscoped("read") && this.unscoped(action);
  }

  /** May do `action` on every row of the type. */
  allowsType(action: EntityAction, typeName: string): boolean {
    return this.unscoped(action) || this.narrowed(action).some((g) => g.resourceName === typeName);
  }

  allowsRow(action: EntityAction, typeName: string, id: string): boolean {
    return this.allowsType(action, typeName) || this.narrowed(action).some((g) => g.resourceId === id);
  }

  /** 403 unless the caller may do `action` on every row of the type (creates, upserts, imports). */
  requireType(action: EntityAction, typeName: string): void {
    if (!this.allowsType(action, typeName)) throw forbidden(action, typeName);
  }

  /**
   * For a change to one row: 404 when the caller may not even read it (its
   * existence stays hidden), 403 when it may read but not `action` it.
   */
  requireRow(action: EntityAction, row: { id: string; type_name: string }): void {
    if (!this.allowsRow("read", row.type_name, row.id)) throw notFound("Entity", row.id);
    if (!this.allowsRow(action, row.type_name, row.id)) throw forbidden(action, row.type_name);
  }

  /**
   * The rows a read may return. With `rootName` (a query's, list's or
   * export's type): 403 when the caller holds no read grant on that type nor
   * on any entity of it.
   */
  readScope(tenantId: string, rootName?: string, shared: ReadScope["shared"] = null): ReadScope {
    if (rootName !== undefined && !this.unscoped("read") && !this.narrowed("read").some((g) => g.resourceName === rootName || g.entityType === rootName)) {
      throw forbidden("read", rootName);
    }
    return this.scope(tenantId, shared);
  }

  private scope(tenantId: string, shared: ReadScope["shared"]): ReadScope {
    if (this.unscoped("read")) return { tenantId, typeNames: null, entityIds: [], shared };
    const grants = this.narrowed("read");
    return {
      tenantId,
      typeNames: grants.flatMap((g) => (g.resourceName === null ? [] : [g.resourceName])),
      entityIds: grants.flatMap((g) => (g.resourceId === null ? [] : [g.resourceId])),
      shared,
    };
  }
}

function forbidden(action: EntityAction, typeName: string) {
  return new ApiError("FORBIDDEN", `Permission entity:${action} is required for entity type ${typeName}`, {
    resource: "entity",
    action,
    resource_name: typeName,
  });
}

/** No row of `type` is in the scope: a filter or include reaching it matches nothing. */
export function unreadable(scope: ReadScope, type: { id: string; name: string }): boolean {
  const byGrant = scope.typeNames !== null && !scope.typeNames.includes(type.name) && !scope.entityIds.length;
  const byShare = scope.shared !== null && !scope.shared.typeIds.includes(type.id) && !scope.shared.entityIds.length;
  return byGrant || byShare;
}

/**
 * The condition confining `alias` (a row of `entities`) to the scope, or null
 * when every row of its type is in it. `type` is the row's type when the
 * statement fixes it; without it the condition looks the type up.
 */
export function confineRow(scope: ReadScope, alias: string, params: Params, type?: { id: string; name: string }): string | null {
  const parts: string[] = [];
  if (scope.typeNames !== null && !(type && scope.typeNames.includes(type.name))) {
    const byId = scope.entityIds.length ? `${alias}.id = ANY(${params.add(scope.entityIds, "uuid[]")})` : null;
    const byType =
      !type && scope.typeNames.length
        ? `EXISTS (SELECT 1 FROM entity_types ct WHERE ct.id = ${alias}.type_id AND ct.name = ANY(${params.add(scope.typeNames, "text[]")}))`
        : null;
    parts.push(byId || byType ? `(${[byType, byId].filter(Boolean).join(" OR ")})` : "FALSE");
  }
  if (scope.shared && !(type && scope.shared.typeIds.includes(type.id))) {
    const byId = scope.shared.entityIds.length ? `${alias}.id = ANY(${params.add(scope.shared.entityIds, "uuid[]")})` : null;
    const byType = !type && scope.shared.typeIds.length ? `${alias}.type_id = ANY(${params.add(scope.shared.typeIds, "uuid[]")})` : null;
    parts.push(byId || byType ? `(${[byType, byId].filter(Boolean).join(" OR ")})` : "FALSE");
  }
  return parts.length ? parts.join(" AND ") : null;
}
