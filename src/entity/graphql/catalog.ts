// Each tenant's schema, built once per change rather than per request. A
// request first reads a fingerprint of everything the schema is built from
// (every active type's id and updated_at, which each write to a type moves,
// and every rule); a cached schema is used only while its fingerprint is
// the current one, so a changed type is served by the very next request.
import { printSchema, type GraphQLSchema } from "graphql";
import { asc, eq } from "drizzle-orm";
import type { Sql, TenantDb } from "../../db/client";
import { entityTypes } from "../../db/schema";
import { toEntityType } from "../entity-types/store";
import { buildSchema, type Catalog, type CatalogRule } from "./schema";

/** Enough for the tenants one isolate serves at a time; the least recently used goes first. */
const MAX_CACHED = 64;

export interface TenantSchema {
  schema: GraphQLSchema;
  sdl(): string;
}

const cache = new Map<string, { fingerprint: string; value: TenantSchema }>();

const FINGERPRINT = `
  SELECT md5(
    coalesce((SELECT string_agg(id::text || '@' || updated_at::text, ',' ORDER BY id) FROM entity_types WHERE status = 'active'), '')
    || '|' ||
    coalesce((SELECT string_agg(id::text || ':' || name || ':' || from_type_id::text || ':' || to_type_id::text, ',' ORDER BY id) FROM relationship_rules), '')
  ) AS fingerprint`;

async function loadCatalog(sql: Sql): Promise<Catalog> {
  const rows = await sql.db.select().from(entityTypes).where(eq(entityTypes.status, "active")).orderBy(asc(entityTypes.name));
  const { rows: rules } = await sql.query<CatalogRule & Record<string, unknown>>(
    `SELECT r.id, r.name, f.name AS from_type, t.name AS to_type
       FROM relationship_rules r
       JOIN entity_types f ON f.id = r.from_type_id AND f.status = 'active'
       JOIN entity_types t ON t.id = r.to_type_id AND t.status = 'active'
      ORDER BY r.name`,
  );
  return { types: rows.map(toEntityType), rules };
}

function remember(tenantId: string, fingerprint: string, value: TenantSchema): TenantSchema {
  cache.delete(tenantId);
  cache.set(tenantId, { fingerprint, value });
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return value;
}

function prepare(schema: GraphQLSchema): TenantSchema {
  let sdl: string | undefined;
  return { schema, sdl: () => (sdl ??= printSchema(schema)) };
}

export async function tenantSchema(tenant: TenantDb): Promise<TenantSchema> {
  const found = await tenant.tx(async (sql) => {
    const { rows } = await sql.query<{ fingerprint: string }>(FINGERPRINT);
    const fingerprint = rows[0].fingerprint;
    const hit = cache.get(tenant.tenantId);
    if (hit?.fingerprint === fingerprint) return { fingerprint, cached: hit.value };
    // Read after the fingerprint: a type changed in between leaves the fingerprint older than the schema, which only costs a rebuild.
    return { fingerprint, catalog: await loadCatalog(sql) };
  });
  return remember(tenant.tenantId, found.fingerprint, found.cached ?? prepare(buildSchema(found.catalog)));
}
