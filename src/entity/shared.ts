// What other tenants share with the caller's tenant, for the query engine's
// owner path (which runs without row-level security, so it states the share
// clauses itself; they match the policies of migrations/0006).
import type { TenantReader } from "../db/client";
import type { ReadScope } from "../db/entity-access";
import { compiled } from "../db/params";

/** The owner path or a tenant transaction: both run compiled statements. */
type Runner = Pick<TenantReader, "run" | "tenantId">;

// A type is shared with $1 when the type itself is, or one of its live entities is.
const SHARED_TYPE = `
  SELECT t.id, t.tenant_id FROM entity_types t
   WHERE t.name = $2 AND t.tenant_id <> $1
     AND EXISTS (SELECT 1 FROM shares s
                  WHERE s.target_tenant_id = $1 AND s.tenant_id = t.tenant_id AND 'read' = ANY (s.actions)
                    AND ((s.resource_type = 'entity_type' AND s.resource_id = t.id)
                      OR (s.resource_type = 'entity' AND EXISTS (SELECT 1 FROM entities e WHERE e.id = s.resource_id AND e.type_id = t.id AND e.deleted_at IS NULL))))
   ORDER BY t.created_at, t.id
   LIMIT 1`;

const SHARES_OF = (owner: string) => `
  SELECT coalesce(array_agg(resource_id) FILTER (WHERE resource_type = 'entity_type'), '{}') AS type_ids,
         coalesce(array_agg(resource_id) FILTER (WHERE resource_type = 'entity'), '{}') AS entity_ids
    FROM shares
   WHERE target_tenant_id = $1 AND tenant_id = ${owner} AND 'read' = ANY (actions) AND resource_type IN ('entity_type', 'entity')`;

const SHARES_FROM = SHARES_OF("$2");

// The owner of a shared type of this name and what it shares, in one statement.
const RESOLVE = `
  WITH t AS (${SHARED_TYPE})
  SELECT t.tenant_id AS owner, t.id AS type_id, s.type_ids, s.entity_ids FROM t CROSS JOIN LATERAL (${SHARES_OF("t.tenant_id")}) s`;

export interface SharedResolution {
  owner: string;
  /** The owner's type of that name. */
  typeId: string;
  shared: NonNullable<ReadScope["shared"]>;
}

// Resolutions by (tenant, access version, name): every share change and
// every type created or renamed in the tenant (which may shadow a shared
// one) moves the version (migrations/0006), so an entry is right while its
// version is the caller's. Bounded, oldest first out.
const MAX_RESOLUTIONS = 2000;
const resolutions = new Map<string, SharedResolution>();

/** A resolution this isolate holds for the caller's current access version, without asking the database. */
export function knownShared(tenantId: string, name: string, version: number | undefined): SharedResolution | undefined {
  return version === undefined ? undefined : resolutions.get(`${tenantId}/${version}/${name}`);
}

/**
 * The tenant sharing a type of this name with the caller's (the
 * earliest-created such type when several do), its type, and what it shares;
 * null when none does. Only asked when the caller's tenant has no type of that
 * name: its own types shadow shared ones.
 */
export async function resolveShared(reader: Runner, name: string, version: number | undefined): Promise<SharedResolution | null> {
  const { rows } = await reader.run<{ owner: string; type_id: string; type_ids: string[]; entity_ids: string[] }>(compiled(RESOLVE, [reader.tenantId, name]));
  if (!rows.length) return null;
  const resolution = { owner: rows[0].owner, typeId: rows[0].type_id, shared: { typeIds: rows[0].type_ids, entityIds: rows[0].entity_ids } };
  if (version !== undefined) {
    resolutions.set(`${reader.tenantId}/${version}/${name}`, resolution);
    if (resolutions.size > MAX_RESOLUTIONS) resolutions.delete(resolutions.keys().next().value!);
  }
  return resolution;
}

/** The types and entities `owner` shares with the caller's tenant. */
export async function sharesFrom(reader: Runner, owner: string): Promise<NonNullable<ReadScope["shared"]>> {
  const { rows } = await reader.run<{ type_ids: string[]; entity_ids: string[] }>(compiled(SHARES_FROM, [reader.tenantId, owner]));
  return { typeIds: rows[0].type_ids, entityIds: rows[0].entity_ids };
}

/** A reader over `owner`'s rows, for a query over a type it shares (the engine confines to the shares). */
export function readerFor(reader: TenantReader, owner: string): TenantReader {
  return { ...reader, tenantId: owner };
}
