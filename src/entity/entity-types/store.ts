// Entity type rows and their lookup by name or id.
import { and, eq } from "drizzle-orm";
import type { Sql } from "../../db/client";
import { entityTypes } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import type { JsonSchema } from "../../lib/validate";
import type { TypeConfig } from "./config";

export type EntityTypeRow = typeof entityTypes.$inferSelect;

export interface EntityType {
  id: string;
  name: string;
  status: "draft" | "active";
  schema: JsonSchema;
  schemaName: string | null;
  config: TypeConfig;
  createdAt: string;
  updatedAt: string;
}

export function toEntityType(row: EntityTypeRow): EntityType {
  return { ...row, schema: row.schema as JsonSchema, config: row.config as TypeConfig };
}

export function present(t: EntityType) {
  return {
    id: t.id,
    name: t.name,
    status: t.status,
    schema: t.schema,
    schema_name: t.schemaName,
    config: t.config,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

export async function findType(sql: Sql, ref: { type_id?: string; type_name?: string }): Promise<EntityType | undefined> {
  const where = ref.type_id ? eq(entityTypes.id, ref.type_id) : eq(entityTypes.name, ref.type_name ?? "");
  const [row] = await sql.db
    .select()
    .from(entityTypes)
    .where(and(where, tenantOf(sql)));
  return row && toEntityType(row);
}

/** The tenant predicate of a lookup: row-level security applies it too; named, it also matches the (tenant_id, name) index. */
function tenantOf(sql: Sql) {
  return sql.tenantId === undefined ? undefined : eq(entityTypes.tenantId, sql.tenantId);
}

export async function requireType(sql: Sql, ref: { type_id?: string; type_name?: string }): Promise<EntityType> {
  const t = await findType(sql, ref);
  if (!t) throw notFound("Entity type", ref.type_id ?? ref.type_name);
  return t;
}

/** Only active types accept entities; a draft type is activated first. */
export async function requireActiveType(sql: Sql, ref: { type_id?: string; type_name?: string }): Promise<EntityType> {
  return requireActive(await requireType(sql, ref));
}

export function requireActive(t: EntityType): EntityType {
  if (t.status !== "active")
    throw new ApiError("UNPROCESSABLE_ENTITY", `Entity type ${t.name} is a draft; activate it before writing entities`, { type: t.name, status: t.status });
  return t;
}
