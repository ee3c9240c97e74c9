// /access/grants: one grant of a policy at a time.
import { count, eq, sql } from "drizzle-orm";
import type { TenantDb } from "../db/client";
import { grants, policies } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import type { Principal } from "../lib/principal";
import { grantColumns, grantOrder, grantRow, requireCoveredIfAssigned, type GrantInput } from "./policies";

export async function createGrant(tenant: TenantDb, caller: Principal, input: GrantInput & { policy_id: string }) {
  return tenant.tx(async ({ db }) => {
    // The policy is named in the body, so an unknown one is a bad body (422), not a missing resource.
    const [policy] = await db.update(policies).set({ updatedAt: sql`now()` }).where(eq(policies.id, input.policy_id)).returning({ id: policies.id });
    if (!policy) throw new ApiError("UNPROCESSABLE_ENTITY", `Unknown policy ${input.policy_id}`, { policy_id: input.policy_id });
    await requireCoveredIfAssigned(db, caller, policy.id, [input]);
    const [row] = await db
      .insert(grants)
      .values(grantRow(tenant.tenantId, policy.id, input))
      .returning(grantColumns);
    return row;
  });
}

export async function listGrants(tenant: TenantDb, page: Page, policyId?: string) {
  const where = policyId === undefined ? undefined : eq(grants.policyId, policyId);
  return tenant.tx(async ({ db }) => {
    const rows = await db
      .select(grantColumns)
      .from(grants)
      .where(where)
      .orderBy(...grantOrder)
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(grants).where(where);
    return paginated(rows, page, total);
  });
}

export async function deleteGrant(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.delete(grants).where(eq(grants.id, id)).returning({ id: grants.id, policy_id: grants.policyId });
    if (!row) throw notFound("Grant", id);
    await db.update(policies).set({ updatedAt: sql`now()` }).where(eq(policies.id, row.policy_id));
    return { id: row.id, deleted: true as const };
  });
}
