// External companies: a tenant's customers' organisations as an identity
// provider names them, one row per (provider, external_id).
import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { pgCode, type TenantDb } from "../../db/client";
import { externalCompanies } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import type { FromSchema } from "json-schema-to-ts";
import type { companyBody } from "./schemas";

const columns = {
  id: externalCompanies.id,
  provider: externalCompanies.provider,
  external_id: externalCompanies.externalId,
  name: externalCompanies.name,
  metadata: externalCompanies.metadata,
  is_active: externalCompanies.isActive,
  created_at: externalCompanies.createdAt,
  updated_at: externalCompanies.updatedAt,
};

export type CompanyInput = FromSchema<typeof companyBody, { keepDefaultedPropertiesOptional: true }>;

export interface CompanyChange {
  name?: string | null;
  metadata?: Record<string, unknown> | null;
  is_active?: boolean;
}

export async function createCompany(tenant: TenantDb, input: CompanyInput) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [row] = await db
        .insert(externalCompanies)
        .values({
          tenantId: tenant.tenantId,
          provider: input.provider,
          externalId: input.external_id,
          name: input.name ?? null,
          metadata: input.metadata ?? null,
        })
        .returning(columns);
      return row;
    });
  } catch (e) {
    if (pgCode(e) === "23505") {
      throw new ApiError("CONFLICT", `External company ${input.external_id} of provider ${input.provider} already exists`, {
        provider: input.provider,
        external_id: input.external_id,
      });
    }
    throw e;
  }
}

export async function listCompanies(tenant: TenantDb, filter: { provider?: string; external_id?: string }, page: Page) {
  const where: SQL[] = [];
  if (filter.provider !== undefined) where.push(eq(externalCompanies.provider, filter.provider));
  if (filter.external_id !== undefined) where.push(eq(externalCompanies.externalId, filter.external_id));
  return tenant.tx(async ({ db }) => {
    const rows = await db
      .select(columns)
      .from(externalCompanies)
      .where(and(...where))
      .orderBy(desc(externalCompanies.createdAt), desc(externalCompanies.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db
      .select({ total: count() })
      .from(externalCompanies)
      .where(and(...where));
    return paginated(rows, page, total);
  });
}

export async function getCompany(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.select(columns).from(externalCompanies).where(eq(externalCompanies.id, id));
    if (!row) throw notFound("External company", id);
    return row;
  });
}

export async function updateCompany(tenant: TenantDb, id: string, change: CompanyChange) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db
      .update(externalCompanies)
      .set({ name: change.name, metadata: change.metadata, isActive: change.is_active, updatedAt: sql`now()` })
      .where(eq(externalCompanies.id, id))
      .returning(columns);
    if (!row) throw notFound("External company", id);
    return row;
  });
}
