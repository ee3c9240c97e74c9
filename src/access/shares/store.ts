// Shares: a tenant lets another tenant read one of its resources. Row-level
// security lets the target see the shares made to it, so every query here
// names the side it reads (owner: tenant_id, target: target_tenant_id).
import { and, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import type { Sql, TenantDb } from "../../db/client";
import { pgCode, pgConstraint } from "../../db/client";
import { appSpecs, entities, entityTypes, schemas, shares, workflowDefinitions } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { validationFailed } from "../../lib/validate";
import type { FromSchema } from "json-schema-to-ts";
import type { createShareBody } from "./schemas";

export type ResourceType = (typeof shares.resourceType.enumValues)[number];

export type ShareInput = FromSchema<typeof createShareBody, { keepDefaultedPropertiesOptional: true }>;

export interface ShareFilter {
  resource_type?: ResourceType;
  resource_id?: string;
  target_tenant_id?: string;
  owner_tenant_id?: string;
}

const columns = {
  id: shares.id,
  resource_type: shares.resourceType,
  resource_id: shares.resourceId,
  target_tenant_id: shares.targetTenantId,
  actions: shares.actions,
  source: shares.source,
  created_at: shares.createdAt,
};

const receivedColumns = { ...columns, owner_tenant_id: shares.tenantId };

/** The resource types that can be shared today, with the name a 404 gives them. */
const SHAREABLE: Record<ResourceType, string> = { entity_type: "Entity type", entity: "Entity", schema: "Schema", workflow: "Workflow", spec: "Spec" };

/** The table each resource type lives in, and whether its rows are soft-deleted. */
const TABLES = {
  entity_type: { table: entityTypes },
  entity: { table: entities, live: isNull(entities.deletedAt) },
  schema: { table: schemas },
  workflow: { table: workflowDefinitions },
  spec: { table: appSpecs },
} as const;

/** True when the caller's tenant owns the resource. Named explicitly: resources shared with the caller are visible to it too. */
async function ownsResource({ db }: Sql, tenantId: string, type: ResourceType, id: string): Promise<boolean> {
  const found = TABLES[type];
  const live = "live" in found ? found.live : undefined;
  const [row] = await db
    .select({ id: found.table.id })
    .from(found.table)
    .where(and(eq(found.table.id, id), eq(found.table.tenantId, tenantId), live));
  return row !== undefined;
}

export async function createShare(tenant: TenantDb, input: ShareInput) {
  const resourceName = SHAREABLE[input.resource_type];
  if (input.target_tenant_id === tenant.tenantId) throw validationFailed(["target_tenant_id: is the caller's own tenant; a share goes to another tenant"]);
  const actions = input.actions ?? ["read"];
  try {
    return await tenant.tx(async (sql) => {
      if (!(await ownsResource(sql, tenant.tenantId, input.resource_type, input.resource_id))) throw notFound(resourceName, input.resource_id);
      const [created] = await sql.db
        .insert(shares)
        .values({
          tenantId: tenant.tenantId,
          resourceType: input.resource_type,
          resourceId: input.resource_id,
          targetTenantId: input.target_tenant_id,
          actions,
          source: "api",
        })
        .onConflictDoNothing({ target: [shares.tenantId, shares.resourceType, shares.resourceId, shares.targetTenantId, shares.source] })
        .returning(columns);
      if (created) return created;
      // The unique key (shares_key) held: this statement's fresh snapshot sees the row that holds it.
      const [existing] = await sql.db
        .select({ id: shares.id })
        .from(shares)
        .where(
          and(
            eq(shares.tenantId, tenant.tenantId),
            eq(shares.resourceType, input.resource_type),
            eq(shares.resourceId, input.resource_id),
            eq(shares.targetTenantId, input.target_tenant_id),
            eq(shares.source, "api"),
          ),
        );
      throw new ApiError("CONFLICT", `This ${input.resource_type} is already shared with tenant ${input.target_tenant_id}`, { share_id: existing.id });
    });
  } catch (e) {
    // The foreign key is checked past row-level security, which hides every other tenant from the caller.
    if (pgCode(e) === "23503" && pgConstraint(e) === "shares_target_tenant_id_tenants_id_fk") {
      throw validationFailed([`target_tenant_id: no tenant ${input.target_tenant_id} exists`]);
    }
    throw e;
  }
}

function filterBy(side: SQL, filter: ShareFilter): SQL | undefined {
  return and(
    side,
    filter.resource_type ? eq(shares.resourceType, filter.resource_type) : undefined,
    filter.resource_id ? eq(shares.resourceId, filter.resource_id) : undefined,
    filter.target_tenant_id ? eq(shares.targetTenantId, filter.target_tenant_id) : undefined,
    filter.owner_tenant_id ? eq(shares.tenantId, filter.owner_tenant_id) : undefined,
  );
}

async function listWhere(tenant: TenantDb, select: typeof columns | typeof receivedColumns, where: SQL | undefined, page: Page) {
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(select).from(shares).where(where).orderBy(desc(shares.createdAt), desc(shares.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(shares).where(where);
    return paginated(rows, page, total);
  });
}

/** The shares the caller's tenant made. */
export function listOutgoing(tenant: TenantDb, filter: Omit<ShareFilter, "owner_tenant_id">, page: Page) {
  return listWhere(tenant, columns, filterBy(eq(shares.tenantId, tenant.tenantId), filter), page);
}

/** The shares other tenants made to the caller's tenant: what it may read. */
export function listReceived(tenant: TenantDb, filter: Omit<ShareFilter, "target_tenant_id">, page: Page) {
  return listWhere(tenant, receivedColumns, filterBy(eq(shares.targetTenantId, tenant.tenantId), filter), page);
}

export async function getShare(tenant: TenantDb, id: string) {
  const [row] = await tenant.tx(({ db }) =>
    db
      .select(columns)
      .from(shares)
      .where(and(eq(shares.id, id), eq(shares.tenantId, tenant.tenantId))),
  );
  if (!row) throw notFound("Share", id);
  return row;
}

/** Revokes a share; the target loses access with this commit (its access version is bumped by trigger). */
export async function deleteShare(tenant: TenantDb, id: string) {
  const [row] = await tenant.tx(({ db }) =>
    db
      .delete(shares)
      .where(and(eq(shares.id, id), eq(shares.tenantId, tenant.tenantId)))
      .returning({ id: shares.id }),
  );
  if (!row) throw notFound("Share", id);
  return { id: row.id, deleted: true as const };
}
