// Registered JSON schemas: each registration of a name is a new version; a
// name resolves to its latest version.
import { and, desc, eq, ne, sql as dsql } from "drizzle-orm";
import type { Sql, TenantDb } from "../db/client";
import { schemas } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { check, validationFailed, type JsonSchema } from "../lib/validate";
import { schemaProblems } from "./schema-check";
import { SHARED } from "../lib/shared-marker";

const columns = { id: schemas.id, name: schemas.name, version: schemas.version, schema: schemas.schema, created_at: schemas.createdAt };

/** Refuses, with 422 and one line per problem, a schema that validation could not use (see schema-check.ts). */
export function assertUsableSchema(schema: unknown, field = "schema"): asserts schema is JsonSchema | boolean {
  const problems = schemaProblems(schema, field);
  if (problems.length) throw validationFailed(problems);
}

export async function registerSchema(tenant: TenantDb, input: { name: string; schema: unknown }) {
  assertUsableSchema(input.schema);
  return tenant.tx(async ({ db, query }) => {
    // Serialise registrations of one name so versions never collide.
    await query("SELECT pg_advisory_xact_lock(hashtext($1))", [`schema:${input.name}`]);
    const [{ next }] = await db
      .select({ next: dsql<number>`coalesce(max(${schemas.version}), 0) + 1`.mapWith(Number) })
      .from(schemas)
      .where(eq(schemas.name, input.name));
    const [row] = await db.insert(schemas).values({ tenantId: tenant.tenantId, name: input.name, version: next, schema: input.schema }).returning(columns);
    return row;
  });
}

export async function latestSchema(sql: Sql, name: string) {
  const [row] = await sql.db.select(columns).from(schemas).where(eq(schemas.name, name)).orderBy(desc(schemas.version)).limit(1);
  return row;
}

/**
 * A schema of the tenant by id, or the latest version of a name; by id, also
 * a schema version another tenant shares with this one (marked so; names
 * stay the tenant's own).
 */
export async function getSchema(tenant: TenantDb, idOrName: string) {
  const row = await tenant.tx(async (sql) => {
    if (isUuid(idOrName)) {
      const [byId] = await sql.db.select(columns).from(schemas).where(eq(schemas.id, idOrName));
      if (byId) return byId;
    }
    return latestSchema(sql, idOrName);
  });
  if (row) return row;
  if (isUuid(idOrName)) {
    const [shared] = await tenant.sharedRead((sql) =>
      sql.db
        .select(columns)
        .from(schemas)
        .where(and(eq(schemas.id, idOrName), ne(schemas.tenantId, tenant.tenantId))),
    );
    if (shared) return { ...shared, ...SHARED };
  }
  throw notFound("Schema", idOrName);
}

export async function listSchemas(tenant: TenantDb, page: Page) {
  return tenant.tx(async ({ db }) => {
    const latest = db.selectDistinctOn([schemas.name], columns).from(schemas).orderBy(schemas.name, desc(schemas.version)).as("latest");
    const rows = await db.select().from(latest).orderBy(latest.name).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: dsql<number>`count(distinct ${schemas.name})`.mapWith(Number) }).from(schemas);
    return paginated(rows, page, total);
  });
}

export async function resolveSchemaName(sql: Sql, name: string): Promise<JsonSchema> {
  const row = await latestSchema(sql, name);
  if (!row) throw new ApiError("UNPROCESSABLE_ENTITY", `Schema ${name} is not registered`, { schema_name: name });
  return row.schema as JsonSchema;
}

export async function validateAgainst(tenant: TenantDb, input: { schema_name?: string; schema?: unknown; data: unknown }) {
  let schema: JsonSchema | boolean;
  if (input.schema_name !== undefined) {
    const row = await tenant.tx((sql) => latestSchema(sql, input.schema_name!));
    if (!row) throw notFound("Schema", input.schema_name);
    schema = row.schema as JsonSchema;
  } else {
    assertUsableSchema(input.schema);
    schema = input.schema;
  }
  const errors = check(schema, input.data);
  return { valid: errors.length === 0, errors };
}
