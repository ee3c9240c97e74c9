// External users: a person as an identity provider names them, mapped to one
// tenant user. Posting a mapping creates that user, or links an existing one
// holding the same email only when the caller says so, so a provider cannot
// take over an account by claiming its email.
import { and, count, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import { pgCode, type Sql, type TenantDb } from "../../db/client";
import { externalUsers, users } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import type { FromSchema } from "json-schema-to-ts";
import type { externalUserBody } from "./schemas";

const columns = {
  id: externalUsers.id,
  provider: externalUsers.provider,
  external_id: externalUsers.externalId,
  email: externalUsers.email,
  user_id: externalUsers.userId,
  is_active: externalUsers.isActive,
  created_at: externalUsers.createdAt,
  updated_at: externalUsers.updatedAt,
};

export type ExternalUserInput = FromSchema<typeof externalUserBody, { keepDefaultedPropertiesOptional: true }>;

const sameEmail = (email: string) => sql`lower(${users.email}) = lower(${email})`;

function emailRefused(email: string, userId: string): ApiError {
  return new ApiError({ code: "EMAIL_LINK_REFUSED", email, user_id: userId }, `The email ${email} belongs to tenant user ${userId}; send link_existing_email: true to link it`);
}

async function existingMapping({ db }: Sql, provider: string, externalId: string) {
  const [row] = await db.select(columns).from(externalUsers).where(and(eq(externalUsers.provider, provider), eq(externalUsers.externalId, externalId)));
  if (row && !row.is_active) {
    throw new ApiError({ code: "EXTERNAL_USER_INACTIVE", external_user_id: row.id }, `External user ${externalId} of provider ${provider} is deactivated`);
  }
  return row;
}

/**
 * What a new mapping does with an email another tenant user already holds:
 * `link` maps to that user, `refuse` answers 409 EMAIL_LINK_REFUSED,
 * `separate` makes a new user without an email (the email stays on the
 * mapping, so user emails stay unique per tenant).
 */
export type EmailHeld = "link" | "refuse" | "separate";

export interface CreateOptions {
  /** Decides for the holder of the email, inside the transaction; default: `link` with `link_existing_email`, else `refuse`. */
  whenEmailHeld?: (tx: Sql, holderId: string) => Promise<EmailHeld>;
}

/** One try: the mapping if it exists, else the user found or made and a new mapping. */
async function attempt(tenant: TenantDb, input: ExternalUserInput, options: CreateOptions) {
  return tenant.tx(async (tx) => {
    const existing = await existingMapping(tx, input.provider, input.external_id);
    if (existing) return { row: existing, created: false };
    let userId: string | undefined;
    let userEmail = input.email ?? null;
    if (input.email !== undefined) {
      const [holder] = await tx.db.select({ id: users.id }).from(users).where(sameEmail(input.email));
      const decision: EmailHeld | undefined = !holder ? undefined : options.whenEmailHeld ? await options.whenEmailHeld(tx, holder.id) : input.link_existing_email ? "link" : "refuse";
      if (holder && decision === "refuse") {
        // Each statement reads its own snapshot: the holder may be the user of an
        // identical post that committed after the mapping lookup above, and its
        // mapping, committed with it, is visible to this statement.
        const raced = await existingMapping(tx, input.provider, input.external_id);
        if (raced) return { row: raced, created: false };
        throw emailRefused(input.email, holder.id);
      }
      if (decision === "link") userId = holder?.id;
      if (decision === "separate") userEmail = null;
    }
    if (!userId) {
      const name = [input.first_name, input.last_name].filter((part) => part).join(" ") || null;
      [{ id: userId }] = await tx.db.insert(users).values({ tenantId: tenant.tenantId, email: userEmail, name }).returning({ id: users.id });
    }
    const [row] = await tx.db
      .insert(externalUsers)
      .values({ tenantId: tenant.tenantId, provider: input.provider, externalId: input.external_id, email: input.email ?? null, userId })
      .returning(columns);
    return { row, created: true };
  });
}

/**
 * Two identical posts at once both find no mapping; the unique indexes on
 * the mapping and on the user's email let only one commit, and the other's
 * whole transaction (its user included) rolls back. Trying again then finds
 * what the winner committed.
 */
export async function createExternalUser(tenant: TenantDb, input: ExternalUserInput, options: CreateOptions = {}) {
  // A few tries: among several simultaneous posts, a retry can lose once more to another.
  for (let tries = 1; ; tries++) {
    try {
      return await attempt(tenant, input, options);
    } catch (e) {
      if (pgCode(e) !== "23505") throw e;
      if (tries === 3) throw new ApiError("CONFLICT", "A concurrent request changed this external user or its email; try again");
    }
  }
}

export async function listExternalUsers(tenant: TenantDb, filter: { provider?: string; external_id?: string; email?: string }, page: Page) {
  const where: SQL[] = [];
  if (filter.provider !== undefined) where.push(eq(externalUsers.provider, filter.provider));
  if (filter.external_id !== undefined) where.push(eq(externalUsers.externalId, filter.external_id));
  if (filter.email !== undefined) where.push(sql`lower(${externalUsers.email}) = lower(${filter.email})`);
  return tenant.tx(async ({ db }) => {
    const rows = await db
      .select(columns)
      .from(externalUsers)
      .where(and(...where))
      .orderBy(desc(externalUsers.createdAt), desc(externalUsers.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(externalUsers).where(and(...where));
    return paginated(rows, page, total);
  });
}

export async function getExternalUser(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.select(columns).from(externalUsers).where(eq(externalUsers.id, id));
    if (!row) throw notFound("External user", id);
    return row;
  });
}

/**
 * `is_active` is stored and answered. An email change is the linked tenant
 * user's email too, refused when another tenant user holds it.
 */
export async function updateExternalUser(tenant: TenantDb, id: string, change: { email?: string; is_active?: boolean }) {
  const write = () =>
    tenant.tx(async ({ db }) => {
      const [current] = await db.select({ userId: externalUsers.userId }).from(externalUsers).where(eq(externalUsers.id, id));
      if (!current) throw notFound("External user", id);
      if (change.email !== undefined) {
        const [holder] = await db.select({ id: users.id }).from(users).where(and(sameEmail(change.email), ne(users.id, current.userId)));
        if (holder) throw emailRefused(change.email, holder.id);
        await db.update(users).set({ email: change.email, updatedAt: sql`now()` }).where(eq(users.id, current.userId));
      }
      const [row] = await db
        .update(externalUsers)
        .set({ email: change.email, isActive: change.is_active, updatedAt: sql`now()` })
        .where(eq(externalUsers.id, id))
        .returning(columns);
      return row;
    });
  try {
    return await write();
  } catch (e) {
    // Another user took the email between the check and the write: the check now sees it.
    if (pgCode(e) !== "23505") throw e;
  }
  try {
    return await write();
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", "A concurrent request took this email; try again");
    throw e;
  }
}
