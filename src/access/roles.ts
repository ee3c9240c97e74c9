// Roles: named sets of `<resource>:<action>` permissions.
import { count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { grants, policyAssignments, roles } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import type { Principal } from "../lib/principal";
import { grantPermissions, requireCovered } from "./escalation";

const columns = { id: roles.id, name: roles.name, permissions: roles.permissions, created_at: roles.createdAt, updated_at: roles.updatedAt };

function nameTaken(e: unknown, name: string | undefined): unknown {
  return pgCode(e) === "23505" ? new ApiError("CONFLICT", `Role ${name} already exists`, { name }) : e;
}

export async function createRole(tenant: TenantDb, input: { name: string; permissions: string[] }) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [row] = await db
        .insert(roles)
        .values({ tenantId: tenant.tenantId, name: input.name, permissions: [...new Set(input.permissions)] })
        .returning(columns);
      return row;
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

export async function listRoles(tenant: TenantDb, page: Page) {
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(columns).from(roles).orderBy(desc(roles.createdAt), desc(roles.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(roles);
    return paginated(rows, page, total);
  });
}

export async function getRole(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.select(columns).from(roles).where(eq(roles.id, id));
    if (!row) throw notFound("Role", id);
    return row;
  });
}

/** Permissions added to a role reach everyone bound to it, so the caller must hold each one it adds. */
export async function updateRole(tenant: TenantDb, caller: Principal, id: string, input: { name?: string; permissions?: string[] }) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [current] = await db.select(columns).from(roles).where(eq(roles.id, id)).for("update");
      if (!current) throw notFound("Role", id);
      const permissions = input.permissions ? [...new Set(input.permissions)] : current.permissions;
      requireCovered(
        caller,
        permissions.filter((p) => !current.permissions.includes(p)),
        `Changing role ${current.name}`,
      );
      const [row] = await db
        .update(roles)
        .set({ name: input.name ?? current.name, permissions, updatedAt: sql`now()` })
        .where(eq(roles.id, id))
        .returning(columns);
      return row;
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/** Its role bindings and policy assignments go with it (foreign keys cascade). */
export async function deleteRole(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.delete(roles).where(eq(roles.id, id)).returning({ id: roles.id });
    if (!row) throw notFound("Role", id);
    return { id: row.id, deleted: true as const };
  });
}

/** The named roles, in the order asked; unknown names are 422 with `details.unknown_roles`. */
export async function rolesByName(db: Db, names: string[]) {
  const found = names.length
    ? await db.select({ id: roles.id, name: roles.name, permissions: roles.permissions }).from(roles).where(inArray(roles.name, names))
    : [];
  const missing = names.filter((n) => !found.some((r) => r.name === n));
  if (missing.length) throw new ApiError("UNPROCESSABLE_ENTITY", `Unknown role(s): ${missing.join(", ")}`, { unknown_roles: missing });
  return names.map((n) => found.find((r) => r.name === n)!);
}

/** What holding these roles gives: their permissions and the grants of the policies assigned to them. */
export async function powerOfRoles(db: Db, held: { id: string; permissions: string[] }[]): Promise<string[]> {
  if (!held.length) return [];
  const assigned = await db
    .select({ resource: grants.resource, actions: grants.actions })
    .from(grants)
    .innerJoin(policyAssignments, eq(policyAssignments.policyId, grants.policyId))
    .where(
      inArray(
        policyAssignments.roleId,
        held.map((r) => r.id),
      ),
    );
  return [...new Set([...held.flatMap((r) => r.permissions), ...grantPermissions(assigned)])];
}
