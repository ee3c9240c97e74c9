// A policy assigned to a role (by name) or to a user (by id).
import { and, count, desc, eq } from "drizzle-orm";
import type { Db, TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { grants, policies, policyAssignments, roles, users } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import type { Principal } from "../lib/principal";
import { grantPermissions, requireCovered } from "./escalation";

/** Exactly one of the two is set: the routes' schemas say so. */
export interface Assignee {
  role_name?: string;
  user_id?: string;
}

const columns = {
  id: policyAssignments.id,
  policy_id: policyAssignments.policyId,
  role_name: roles.name,
  user_id: policyAssignments.userId,
  created_at: policyAssignments.createdAt,
};

async function requirePolicy(db: Db, id: string) {
  const [row] = await db.select({ id: policies.id, name: policies.name }).from(policies).where(eq(policies.id, id));
  if (!row) throw notFound("Policy", id);
  return row;
}

/** The assignee's row id, or null when the tenant has no such role or user. */
async function principalOf(db: Db, who: Assignee): Promise<{ roleId: string | null; userId: string | null } | null> {
  if (who.role_name !== undefined) {
    const [role] = await db.select({ id: roles.id }).from(roles).where(eq(roles.name, who.role_name));
    return role ? { roleId: role.id, userId: null } : null;
  }
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, who.user_id!));
  return user ? { roleId: null, userId: user.id } : null;
}

function describe(who: Assignee): string {
  return who.role_name !== undefined ? `role ${who.role_name}` : `user ${who.user_id}`;
}

/** Assigning hands the policy's grants to the assignee, so the caller must hold every one of them. */
export async function assignPolicy(tenant: TenantDb, caller: Principal, policyId: string, who: Assignee) {
  try {
    return await tenant.tx(async ({ db }) => {
      const policy = await requirePolicy(db, policyId);
      const principal = await principalOf(db, who);
      if (!principal) throw new ApiError("UNPROCESSABLE_ENTITY", `Unknown ${describe(who)}`, { ...who });
      const held = await db.select({ resource: grants.resource, actions: grants.actions }).from(grants).where(eq(grants.policyId, policy.id));
      requireCovered(caller, grantPermissions(held), `Assigning policy ${policy.name}`);
      const [row] = await db
        .insert(policyAssignments)
        .values({ tenantId: tenant.tenantId, policyId: policy.id, ...principal })
        .returning({ id: policyAssignments.id });
      const [answer] = await db
        .select(columns)
        .from(policyAssignments)
        .leftJoin(roles, eq(roles.id, policyAssignments.roleId))
        .where(eq(policyAssignments.id, row.id));
      return answer;
    });
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", `Policy ${policyId} is already assigned to ${describe(who)}`, { policy_id: policyId, ...who });
    throw e;
  }
}

export async function listAssignments(tenant: TenantDb, policyId: string, page: Page) {
  return tenant.tx(async ({ db }) => {
    await requirePolicy(db, policyId);
    const where = eq(policyAssignments.policyId, policyId);
    const rows = await db
      .select(columns)
      .from(policyAssignments)
      .leftJoin(roles, eq(roles.id, policyAssignments.roleId))
      .where(where)
      .orderBy(desc(policyAssignments.createdAt), desc(policyAssignments.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(policyAssignments).where(where);
    return paginated(rows, page, total);
  });
}

export async function unassignPolicy(tenant: TenantDb, policyId: string, who: Assignee) {
  return tenant.tx(async ({ db }) => {
    await requirePolicy(db, policyId);
    const principal = await principalOf(db, who);
    const [row] = principal
      ? await db
          .delete(policyAssignments)
          .where(
            and(
              eq(policyAssignments.policyId, policyId),
              principal.roleId ? eq(policyAssignments.roleId, principal.roleId) : eq(policyAssignments.userId, principal.userId!),
            ),
          )
          .returning({ id: policyAssignments.id })
      : [];
    if (!row) throw new ApiError("NOT_FOUND", `Policy ${policyId} is not assigned to ${describe(who)}`, { policy_id: policyId, ...who });
    return { id: row.id, deleted: true as const };
  });
}
