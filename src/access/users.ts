// Users of a tenant: the people its API tokens act for, with their roles.
import { and, count, desc, eq, inArray, notInArray, or, sql } from "drizzle-orm";
import type { Db, TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { apiTokens, roleBindings, users } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import type { Principal } from "../lib/principal";
import { requireCovered } from "./escalation";
import { powerOfRoles, rolesByName } from "./roles";

const columns = {
  id: users.id,
  email: users.email,
  name: users.name,
  is_active: users.isActive,
  role_names: sql<string[]>`coalesce((select array_agg(r.name order by r.name) from role_bindings b join roles r on r.id = b.role_id
    where b.principal_type = 'user' and b.principal_id = users.id), '{}')`,
  created_at: users.createdAt,
  updated_at: users.updatedAt,
};

const userBindings = (id: string) => and(eq(roleBindings.principalType, "user"), eq(roleBindings.principalId, id));

async function userRow(db: Db, id: string) {
  const [row] = await db.select(columns).from(users).where(eq(users.id, id));
  if (!row) throw notFound("User", id);
  return row;
}

/**
 * Binds the named roles to the user in place of the ones it has. Roles it
 * gains must be covered by the caller's permissions, with the grants of the
 * policies assigned to them; roles it keeps or loses need nothing.
 */
async function bindRoles(db: Db, tenantId: string, caller: Principal, userId: string, names: string[]) {
  const wanted = await rolesByName(db, [...new Set(names)]);
  const current = await db.select({ roleId: roleBindings.roleId }).from(roleBindings).where(userBindings(userId));
  const gained = wanted.filter((r) => !current.some((b) => b.roleId === r.id));
  requireCovered(caller, await powerOfRoles(db, gained), "Giving these roles");
  const keep = wanted.map((r) => r.id);
  await db.delete(roleBindings).where(and(userBindings(userId), keep.length ? notInArray(roleBindings.roleId, keep) : undefined));
  if (gained.length) {
    await db.insert(roleBindings).values(gained.map((r) => ({ tenantId, roleId: r.id, principalType: "user" as const, principalId: userId })));
  }
}

export async function createUser(tenant: TenantDb, caller: Principal, input: { email: string; name?: string | null; role_names?: string[] }) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [{ id }] = await db
        .insert(users)
        .values({ tenantId: tenant.tenantId, email: input.email, name: input.name ?? null })
        .returning({ id: users.id });
      await bindRoles(db, tenant.tenantId, caller, id, input.role_names ?? []);
      return userRow(db, id);
    });
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", `A user with email ${input.email} already exists`, { email: input.email });
    throw e;
  }
}

export async function listUsers(tenant: TenantDb, page: Page, email?: string) {
  const where = email === undefined ? undefined : sql`lower(${users.email}) = lower(${email})`;
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(columns).from(users).where(where).orderBy(desc(users.createdAt), desc(users.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(users).where(where);
    return paginated(rows, page, total);
  });
}

export async function getUser(tenant: TenantDb, id: string) {
  return tenant.tx(({ db }) => userRow(db, id));
}

function refuseSelf(caller: Principal, id: string, verb: string): void {
  if (caller.userId === id) throw new ApiError("CONFLICT", `A caller cannot ${verb} its own user; use another user's token`, { user_id: id });
}

export async function updateUser(tenant: TenantDb, caller: Principal, id: string, input: { name?: string | null; is_active?: boolean }) {
  if (input.is_active === false) refuseSelf(caller, id, "deactivate");
  return tenant.tx(async ({ db }) => {
    const [row] = await db
      .update(users)
      .set({
        ...(input.name !== undefined && { name: input.name }),
        ...(input.is_active !== undefined && { isActive: input.is_active }),
        updatedAt: sql`now()`,
      })
      .where(eq(users.id, id))
      .returning({ id: users.id });
    if (!row) throw notFound("User", id);
    return userRow(db, id);
  });
}

export async function setUserRoles(tenant: TenantDb, caller: Principal, id: string, roleNames: string[]) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.update(users).set({ updatedAt: sql`now()` }).where(eq(users.id, id)).returning({ id: users.id });
    if (!row) throw notFound("User", id);
    await bindRoles(db, tenant.tenantId, caller, id, roleNames);
    return userRow(db, id);
  });
}

/**
 * Role bindings name their principal without a foreign key, so the user's
 * and its tokens' bindings are removed here; the tokens, policy assignments
 * and external-user mappings go with the user by foreign key.
 */
export async function deleteUser(tenant: TenantDb, caller: Principal, id: string) {
  refuseSelf(caller, id, "delete");
  return tenant.tx(async ({ db }) => {
    const tokens = db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.userId, id));
    await db.delete(roleBindings).where(or(userBindings(id), and(eq(roleBindings.principalType, "token"), inArray(roleBindings.principalId, tokens))));
    const [row] = await db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
    if (!row) throw notFound("User", id);
    return { id: row.id, deleted: true as const };
  });
}
