// Manifests: the shares an app spec's `shares` block declares. The block is
// the whole truth: every publish (and every spec deletion) brings the owner's
// `source: "manifest"` shares in line with the blocks of all its specs, in the
// same transaction, so a share two specs declare stays while one still does.
// Shares made through /access/shares (`source: "api"`) are never touched here.
import { and, asc, count, desc, eq, inArray, sql as dsql } from "drizzle-orm";
import type { Sql, TenantDb } from "../../db/client";
import { appSpecs, entityTypes, schemas, shares } from "../../db/schema";
import { isUuid } from "../../lib/ids";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { isObject } from "../../lib/is-object";

export const MANIFEST_RESOURCE_TYPES = ["spec", "entity_type", "schema"] as const;
export type ManifestResourceType = (typeof MANIFEST_RESOURCE_TYPES)[number];

/** One share a block declares, in the answer's words. */
export interface ManifestShare {
  tenant_id: string;
  resource_type: ManifestResourceType;
  /** Null for `spec` without a name: the spec that declares it. */
  resource_name: string | null;
  actions: string[];
}

/**
 * The entries of a `shares` block with their positions in it. An entry the
 * spec's schema refuses (not an object, no string `tenantId`, an unknown
 * `resourceType`) declares nothing, so it is left out here.
 */
export function manifestShares(block: unknown): { index: number; share: ManifestShare }[] {
  if (!Array.isArray(block)) return [];
  const out: { index: number; share: ManifestShare }[] = [];
  block.forEach((entry, index) => {
    if (!isObject(entry) || typeof entry.tenantId !== "string") return;
    const type = entry.resourceType ?? "spec";
    if (!MANIFEST_RESOURCE_TYPES.includes(type as ManifestResourceType)) return;
    const name = typeof entry.resourceName === "string" ? entry.resourceName : null;
    const actions =
      Array.isArray(entry.actions) && entry.actions.every((a) => typeof a === "string") && entry.actions.length
        ? [...new Set(entry.actions as string[])]
        : ["read"];
    out.push({ index, share: { tenant_id: entry.tenantId, resource_type: type as ManifestResourceType, resource_name: name, actions } });
  });
  return out;
}

/** Which of the ids name an existing tenant (row-level security hides every other tenant, so a platform function answers). */
export async function existingTenants({ query }: Sql, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await query<{ ids: string[] }>("SELECT platform_existing_tenants($1::uuid[]) AS ids", [ids]);
  return new Set(rows[0].ids);
}

/** The id a name resolves to among the owner's own resources: an entity type, the latest version of a schema, a spec. */
export async function resolveOwnResource({ db }: Sql, tenantId: string, type: ManifestResourceType, name: string): Promise<string | undefined> {
  const [row] =
    type === "entity_type"
      ? await db
          .select({ id: entityTypes.id })
          .from(entityTypes)
          .where(and(eq(entityTypes.tenantId, tenantId), eq(entityTypes.name, name)))
      : type === "schema"
        ? await db
            .select({ id: schemas.id })
            .from(schemas)
            .where(and(eq(schemas.tenantId, tenantId), eq(schemas.name, name)))
            .orderBy(desc(schemas.version))
            .limit(1)
        : await db
            .select({ id: appSpecs.id })
            .from(appSpecs)
            .where(and(eq(appSpecs.tenantId, tenantId), eq(appSpecs.name, name)));
  return row?.id;
}

/** Each spec's `shares` block, read in the database so the rest of a document never leaves it. */
async function blocks({ db }: Sql, tenantId: string) {
  return db
    .select({ id: appSpecs.id, block: dsql<unknown>`${appSpecs.specDocument} -> 'shares'` })
    .from(appSpecs)
    .where(eq(appSpecs.tenantId, tenantId))
    .orderBy(asc(appSpecs.createdAt), asc(appSpecs.id));
}

/**
 * Brings the owner's manifest shares in line with the blocks of all its specs:
 * adds what a block declares, sets the actions a block changed, revokes what
 * no block declares any more. A name that no longer resolves, and a target
 * tenant that no longer exists, declare nothing. Runs inside the publish's
 * (or deletion's) transaction, after the spec row is written.
 */
export async function reconcileManifests(sql: Sql, tenantId: string): Promise<void> {
  // One reconciliation per owner at a time, so two publishes never race on the same rows.
  await sql.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`manifest:${tenantId}`]);
  const declared = (await blocks(sql, tenantId)).flatMap(({ id, block }) => manifestShares(block).map(({ share }) => ({ specId: id, share })));
  const live = await existingTenants(sql, [...new Set(declared.map((d) => d.share.tenant_id).filter(isUuid))]);
  const wanted = new Map<string, { resourceType: ManifestResourceType; resourceId: string; target: string; actions: Set<string> }>();
  for (const { specId, share } of declared) {
    if (!live.has(share.tenant_id) || share.tenant_id === tenantId) continue;
    const resourceId =
      share.resource_type === "spec" && share.resource_name === null
        ? specId
        : await resolveOwnResource(sql, tenantId, share.resource_type, share.resource_name ?? "");
    if (!resourceId) continue;
    const key = `${share.resource_type}/${resourceId}/${share.tenant_id}`;
    const at = wanted.get(key) ?? { resourceType: share.resource_type, resourceId, target: share.tenant_id, actions: new Set<string>() };
    share.actions.forEach((a) => at.actions.add(a));
    wanted.set(key, at);
  }
  const held = await sql.db
    .select({ id: shares.id, resourceType: shares.resourceType, resourceId: shares.resourceId, target: shares.targetTenantId, actions: shares.actions })
    .from(shares)
    .where(and(eq(shares.tenantId, tenantId), eq(shares.source, "manifest")));
  const dropped: string[] = [];
  for (const row of held) {
    const want = wanted.get(`${row.resourceType}/${row.resourceId}/${row.target}`);
    if (!want) {
      dropped.push(row.id);
      continue;
    }
    wanted.delete(`${row.resourceType}/${row.resourceId}/${row.target}`);
    const actions = [...want.actions].sort();
    if (actions.join() !== [...row.actions].sort().join()) await sql.db.update(shares).set({ actions }).where(eq(shares.id, row.id));
  }
  if (dropped.length) await sql.db.delete(shares).where(inArray(shares.id, dropped));
  const added = [...wanted.values()].map((w) => ({
    tenantId,
    resourceType: w.resourceType,
    resourceId: w.resourceId,
    targetTenantId: w.target,
    actions: [...w.actions].sort(),
    source: "manifest" as const,
  }));
  if (added.length) await sql.db.insert(shares).values(added);
}

/** The owner's manifests, one per spec, each derived from its spec's `shares` block alone. */
export async function listManifests(tenant: TenantDb, filter: { spec_id?: string }, page: Page) {
  return tenant.tx(async (sql) => {
    const where = and(eq(appSpecs.tenantId, tenant.tenantId), filter.spec_id ? eq(appSpecs.id, filter.spec_id) : undefined);
    const rows = await sql.db
      .select({ id: appSpecs.id, block: dsql<unknown>`${appSpecs.specDocument} -> 'shares'` })
      .from(appSpecs)
      .where(where)
      .orderBy(desc(appSpecs.createdAt), desc(appSpecs.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await sql.db.select({ total: count() }).from(appSpecs).where(where);
    return paginated(
      rows.map(({ id, block }) => ({ id, spec_id: id, shares: manifestShares(block).map(({ share }) => share) })),
      page,
      total,
    );
  });
}
