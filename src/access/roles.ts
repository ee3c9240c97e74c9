// Roles: named sets of `<resource>:<action>` permissions.
import { count, desc } from "drizzle-orm";
import type { TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { roles } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";

const columns = { id: roles.id, name: roles.name, permissions: roles.permissions, created_at: roles.createdAt };

export async function createRole(tenant: TenantDb, input: { name: string; permissions: string[] }) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [row] = await db.insert(roles).values({ tenantId: tenant.tenantId, name: input.name, permissions: [...new Set(input.permissions)] }).returning(columns);
      return row;
    });
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", `Role ${input.name} already exists`, { name: input.name });
    throw e;
  }
}

export async function listRoles(tenant: TenantDb, page: Page) {
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(columns).from(roles).orderBy(desc(roles.createdAt), desc(roles.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(roles);
    return paginated(rows, page, total);
  });
}
