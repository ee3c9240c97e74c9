// Entity types: create, read, patch, activate; their indexes follow the config.
import { and, count, eq, sql as dsql } from "drizzle-orm";
import type { Sql, TenantDb } from "../../db/client";
import { pgCode } from "../../db/client";
import { entityTypes } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import type { JsonSchema } from "../../lib/validate";
import { assertUsableSchema, resolveSchemaName } from "../../schema/registry";
import { desiredIndexes, desiredStatistics, indexPrefix, STATISTICS_PREFIX } from "../indexed-attributes";
import { assertConfigFits, assertIdentifierUnchanged, normalizeIndexed, type TypeConfig } from "./config";
import { present, requireType, toEntityType, type EntityType } from "./store";
import type { FromSchema } from "json-schema-to-ts";
import type { createTypeBody, patchTypeBody } from "./schemas";

export type CreateTypeInput = FromSchema<typeof createTypeBody>;
export type PatchTypeInput = FromSchema<typeof patchTypeBody>;

/**
 * Brings the type's partial indexes in line with its config: creates what is
 * missing, drops what is no longer asked for (or was left invalid by a failed
 * concurrent build). DDL needs the owning role, hence TenantDb.ddl.
 */
async function reconcileIndexes(tenant: TenantDb, type: EntityType): Promise<void> {
  const wanted = await desiredIndexes(type.id, type.config);
  const wantedNames = new Set(wanted.map((w) => w.name));
  await tenant.ddl((sql) =>
    withEntitiesDdlLock(sql.query, async (query) => {
      const { rows } = await query<{ name: string; valid: boolean }>(
        `SELECT c.relname AS name, i.indisvalid AS valid
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'entities'::regclass AND c.relname LIKE $1`,
        [`${indexPrefix(type.id)}%`],
      );
      const present = new Map(rows.map((r) => [r.name, r.valid]));
      for (const [name, valid] of present) {
        if (!wantedNames.has(name) || !valid) await query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
      }
      for (const index of wanted) {
        if (present.get(index.name) !== true) await query(index.ddl);
      }
      await reconcileStatistics(query);
    }),
  );
}

/** A type write waits for another tenant's index build this many times DDL_LOCK_POLL_MS (30 s) before answering 503. */
const DDL_LOCK_TRIES = 600;
const DDL_LOCK_POLL_MS = 50;

/**
 * Runs `fn` as the only session changing the entities table's indexes and
 * statistics. Two concurrent CREATE INDEX CONCURRENTLY on one table deadlock
 * (each waits for the other's transaction to end), and so would a session
 * blocked in pg_advisory_lock (its statement holds a snapshot the build waits
 * for): the lock is tried, not waited on, and between tries this session
 * holds no snapshot.
 */
async function withEntitiesDdlLock(query: Sql["query"], fn: (query: Sql["query"]) => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    const { rows } = await query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext('entities-ddl')) AS locked");
    if (rows[0].locked) break;
    if (tries >= DDL_LOCK_TRIES)
      throw new ApiError("SERVICE_UNAVAILABLE", "Another entity type's indexes are being built; try again", { retry_after_seconds: 1 });
    await new Promise((r) => setTimeout(r, DDL_LOCK_POLL_MS));
  }
  try {
    await fn(query);
  } finally {
    await query("SELECT pg_advisory_unlock(hashtext('entities-ddl'))");
  }
}

/**
 * The statistics every type's config asks for, across tenants: created when
 * missing, dropped when no type needs them. Under the DDL lock, so no
 * reconciler drops what another's type just asked for.
 */
async function reconcileStatistics(query: Sql["query"]): Promise<void> {
  const { rows: configs } = await query<{ config: EntityType["config"] }>("SELECT config FROM entity_types");
  const wanted = new Map(
    (await Promise.all(configs.map((r: { config: EntityType["config"] }) => desiredStatistics(r.config)))).flat().map((d) => [d.name, d.ddl]),
  );
  const { rows: present } = await query<{ name: string }>(
    "SELECT stxname AS name FROM pg_statistic_ext WHERE stxrelid = 'entities'::regclass AND stxname LIKE $1",
    [`${STATISTICS_PREFIX}%`],
  );
  const have = new Set(present.map((r: { name: string }) => r.name));
  for (const name of have) if (!wanted.has(name)) await query(`DROP STATISTICS IF EXISTS "${name}"`);
  for (const [name, ddl] of wanted) if (!have.has(name)) await query(ddl);
}

export async function createType(tenant: TenantDb, input: CreateTypeInput) {
  const config: TypeConfig = {
    identifier_key: input.config.identifier_key,
    indexed_attributes: normalizeIndexed(input.config.indexed_attributes ?? []),
    sort_by_updated_at: input.config.sort_by_updated_at ?? false,
    name_search: input.config.name_search ?? false,
  };
  let created: EntityType;
  try {
    created = await tenant.tx(async (sql) => {
      let schema: JsonSchema;
      if (input.schema_name !== undefined) schema = await resolveSchemaName(sql, input.schema_name);
      else {
        assertUsableSchema(input.schema);
        schema = input.schema;
      }
      assertConfigFits(config, schema);
      const [row] = await sql.db
        .insert(entityTypes)
        .values({ tenantId: tenant.tenantId, name: input.name, status: input.status ?? "draft", schema, schemaName: input.schema_name ?? null, config })
        .returning();
      return toEntityType(row);
    });
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", `Entity type ${input.name} already exists`, { name: input.name });
    throw e;
  }
  await reconcileIndexes(tenant, created);
  return present(created);
}

export async function getType(tenant: TenantDb, id: string) {
  return present(await tenant.tx((sql) => requireType(sql, { type_id: id })));
}

export async function listTypes(tenant: TenantDb, filter: { name?: string; status?: "draft" | "active" }, page: Page) {
  return tenant.tx(async ({ db }) => {
    const where = and(filter.name ? eq(entityTypes.name, filter.name) : undefined, filter.status ? eq(entityTypes.status, filter.status) : undefined);
    const rows = await db.select().from(entityTypes).where(where).orderBy(entityTypes.name).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(entityTypes).where(where);
    return paginated(
      rows.map((r) => present(toEntityType(r))),
      page,
      total,
    );
  });
}

export async function patchType(tenant: TenantDb, id: string, input: PatchTypeInput) {
  const updated = await tenant.tx(async (sql) => {
    const current = await requireType(sql, { type_id: id });
    const patch = input.config ?? {};
    assertIdentifierUnchanged(current.config.identifier_key, patch.identifier_key);
    const config: TypeConfig = {
      identifier_key: current.config.identifier_key,
      indexed_attributes: patch.indexed_attributes ? normalizeIndexed(patch.indexed_attributes) : current.config.indexed_attributes,
      // Tri-states: true ensures, false drops, omitted leaves as is.
      sort_by_updated_at: patch.sort_by_updated_at ?? current.config.sort_by_updated_at,
      name_search: patch.name_search ?? current.config.name_search,
    };
    let schema = current.schema;
    let schemaName = current.schemaName;
    if (input.schema_name !== undefined) {
      schema = await resolveSchemaName(sql, input.schema_name);
      schemaName = input.schema_name;
    } else if (input.schema !== undefined) {
      assertUsableSchema(input.schema);
      schema = input.schema;
      schemaName = null;
    }
    // The type the patch would leave is checked whole: a new schema can strand the kept identifier key or indexes.
    assertConfigFits(config, schema);
    const [row] = await sql.db.update(entityTypes).set({ config, schema, schemaName, updatedAt: dsql`now()` }).where(eq(entityTypes.id, id)).returning();
    return toEntityType(row);
  });
  await reconcileIndexes(tenant, updated);
  return present(updated);
}

export async function activateType(tenant: TenantDb, id: string) {
  return tenant.tx(async (sql) => {
    const [row] = await sql.db
      .update(entityTypes)
      .set({ status: "active", updatedAt: dsql`CASE WHEN ${entityTypes.status} = 'active' THEN ${entityTypes.updatedAt} ELSE now() END` })
      .where(eq(entityTypes.id, id))
      .returning();
    if (!row) throw notFound("Entity type", id);
    return present(toEntityType(row));
  });
}
