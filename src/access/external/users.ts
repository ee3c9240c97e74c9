// External users: a person as an identity provider's company names them
// (provider, company, user id), mapped to one tenant user. Posting a mapping
// creates that user, or links an existing one holding the same email only
// when the caller says so, so a provider cannot take over an account by
// claiming its email. The same user id under another company is another
// person: a company's host cannot act as, or read the config of, another
// company's user.
import { and, count, desc, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { pgCode, type Sql, type TenantDb } from "../../db/client";
import { externalCompanies, externalUsers, users } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import type { FromSchema } from "json-schema-to-ts";
import type { externalUserBody } from "./schemas";

const columns = {
  id: externalUsers.id,
  provider: externalUsers.provider,
  external_id: externalUsers.externalId,
  company_external_id: externalUsers.companyExternalId,
  email: externalUsers.email,
  user_id: externalUsers.userId,
  is_active: externalUsers.isActive,
  created_at: externalUsers.createdAt,
  updated_at: externalUsers.updatedAt,
};

export type ExternalUserInput = FromSchema<typeof externalUserBody, { keepDefaultedPropertiesOptional: true }>;

const sameEmail = (email: string) => sql`lower(${users.email}) = lower(${email})`;

function emailRefused(email: string, userId: string): ApiError {
  return new ApiError(
    { code: "EMAIL_LINK_REFUSED", email, user_id: userId },
    `The email ${email} belongs to tenant user ${userId}; send link_existing_email: true to link it`,
  );
}

/** Who a mapping is: a company of null is the unbound mapping. */
export interface MappingKey {
  provider: string;
  companyExternalId: string | null;
  externalId: string;
}

const keyOf = (input: ExternalUserInput): MappingKey => ({
  provider: input.provider,
  companyExternalId: input.company_external_id ?? null,
  externalId: input.external_id,
});

const isKey = (key: MappingKey) =>
  and(
    eq(externalUsers.provider, key.provider),
    eq(externalUsers.externalId, key.externalId),
    key.companyExternalId === null ? isNull(externalUsers.companyExternalId) : eq(externalUsers.companyExternalId, key.companyExternalId),
  );

async function existingMapping({ db }: Sql, key: MappingKey) {
  const [row] = await db.select(columns).from(externalUsers).where(isKey(key));
  if (row && !row.is_active) {
    throw new ApiError(
      { code: "EXTERNAL_USER_INACTIVE", external_user_id: row.id },
      `External user ${key.externalId} of provider ${key.provider} is deactivated`,
    );
  }
  return row;
}

/** 422 unless the tenant registered the company under the provider: a mapping of a company no render can come from would never be used. */
async function requireCompany({ db }: Sql, provider: string, companyExternalId: string): Promise<void> {
  const [company] = await db
    .select({ id: externalCompanies.id })
    .from(externalCompanies)
    .where(and(eq(externalCompanies.provider, provider), eq(externalCompanies.externalId, companyExternalId)));
  if (!company) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `No company ${companyExternalId} of provider ${provider} is registered in this tenant`, {
      provider,
      company_external_id: companyExternalId,
    });
  }
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

/** What a post did: `emailHeld` is the decision taken for the holder of the email, when a new mapping met one. */
export interface Created {
  row: NonNullable<Awaited<ReturnType<typeof existingMapping>>>;
  created: boolean;
  emailHeld?: EmailHeld;
}

/** One try: the mapping if it exists, else the user found or made and a new mapping. */
async function attempt(tenant: TenantDb, input: ExternalUserInput, options: CreateOptions): Promise<Created> {
  const key = keyOf(input);
  return tenant.tx(async (tx) => {
    const existing = await existingMapping(tx, key);
    if (existing) return { row: existing, created: false };
    if (key.companyExternalId !== null) await requireCompany(tx, key.provider, key.companyExternalId);
    let userId: string | undefined;
    let userEmail = input.email ?? null;
    let emailHeld: EmailHeld | undefined;
    if (input.email !== undefined) {
      const [holder] = await tx.db.select({ id: users.id }).from(users).where(sameEmail(input.email));
      const decision: EmailHeld | undefined = !holder
        ? undefined
        : options.whenEmailHeld
          ? await options.whenEmailHeld(tx, holder.id)
          : input.link_existing_email
            ? "link"
            : "refuse";
      emailHeld = decision;
      if (holder && decision === "refuse") {
        // Each statement reads its own snapshot: the holder may be the user of an
        // identical post that committed after the mapping lookup above, and its
        // mapping, committed with it, is visible to this statement.
        const raced = await existingMapping(tx, key);
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
      .values({
        tenantId: tenant.tenantId,
        provider: key.provider,
        externalId: key.externalId,
        companyExternalId: key.companyExternalId,
        email: input.email ?? null,
        userId,
      })
      .returning(columns);
    return { row, created: true, emailHeld };
  });
}

/**
 * Two identical posts at once both find no mapping; the unique indexes on
 * the mapping and on the user's email let only one commit, and the other's
 * whole transaction (its user included) rolls back. Trying again then finds
 * what the winner committed.
 */
export async function createExternalUser(tenant: TenantDb, input: ExternalUserInput, options: CreateOptions = {}): Promise<Created> {
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

/**
 * The company's own mapping of the person, with its tenant user's flag
 * (`user_is_active`), or undefined: what claimMapping finds first. A read
 * (a read-only handle will do), for a caller that tries it before claiming.
 */
export async function findMapping({ db }: Sql, key: MappingKey & { companyExternalId: string }) {
  const [row] = await db
    .select({ ...columns, user_is_active: users.isActive })
    .from(externalUsers)
    .innerJoin(users, eq(users.id, externalUsers.userId))
    .where(isKey(key));
  return row;
}

/**
 * The mapping a render of the person for `key.companyExternalId` acts as:
 * the company's own, else the person's unbound mapping, bound to that
 * company now (DECISIONS, "Who acts, and for which company": a mapping made
 * before the company was part of the key belongs to the company of its first
 * render). Undefined when neither exists. `user_is_active` is the tenant
 * user's flag. Answered active or not: the caller refuses inactive ones.
 */
export async function claimMapping(tenant: TenantDb, key: MappingKey & { companyExternalId: string }) {
  const claim = () =>
    tenant.tx(async (tx) => {
      const { db } = tx;
      const find = () => findMapping(tx, key);
      const own = await find();
      if (own) return own;
      // The row lock decides between concurrent renders of two companies: the
      // later UPDATE waits, re-reads the row, finds its company set and binds
      // nothing, so it makes a person of its own.
      const bound = await db
        .update(externalUsers)
        .set({ companyExternalId: key.companyExternalId, updatedAt: sql`now()` })
        .where(isKey({ ...key, companyExternalId: null }))
        .returning({ id: externalUsers.id });
      return bound.length ? find() : undefined;
    });
  try {
    return await claim();
  } catch (e) {
    // The company's own mapping was committed between the lookup and the binding: it is found now.
    if (pgCode(e) !== "23505") throw e;
    return claim();
  }
}

export async function listExternalUsers(
  tenant: TenantDb,
  filter: { provider?: string; external_id?: string; company_external_id?: string; email?: string },
  page: Page,
) {
  const where: SQL[] = [];
  if (filter.provider !== undefined) where.push(eq(externalUsers.provider, filter.provider));
  if (filter.external_id !== undefined) where.push(eq(externalUsers.externalId, filter.external_id));
  if (filter.company_external_id !== undefined) where.push(eq(externalUsers.companyExternalId, filter.company_external_id));
  if (filter.email !== undefined) where.push(sql`lower(${externalUsers.email}) = lower(${filter.email})`);
  return tenant.tx(async ({ db }) => {
    const rows = await db
      .select(columns)
      .from(externalUsers)
      .where(and(...where))
      .orderBy(desc(externalUsers.createdAt), desc(externalUsers.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db
      .select({ total: count() })
      .from(externalUsers)
      .where(and(...where));
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
        const [holder] = await db
          .select({ id: users.id })
          .from(users)
          .where(and(sameEmail(change.email), ne(users.id, current.userId)));
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
