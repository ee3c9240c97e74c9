// API tokens (PATs): mint, list, revoke. The raw secret leaves the service once, at mint.
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { TenantDb } from "../db/client";
import { apiTokens, roleBindings, roles, users } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { validationFailed } from "../lib/validate";
import type { Principal } from "../lib/principal";
import { requireCovered } from "./escalation";
import { powerOfRoles, rolesByName } from "./roles";
import { newPat } from "./token-format";
import type { FromSchema } from "json-schema-to-ts";
import type { mintTokenBody } from "./schemas";

export type MintInput = FromSchema<typeof mintTokenBody>;

const publicColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  client_id: apiTokens.clientId,
  expires_at: apiTokens.expiresAt,
  revoked_at: apiTokens.revokedAt,
  created_at: apiTokens.createdAt,
};

const roleColumns = { id: roles.id, name: roles.name, permissions: roles.permissions };

/**
 * Mints a PAT for the caller's user or, with `user_id`, for another user of
 * the tenant. With `role_names` the token is bound to those roles only.
 * Without, a token for another user acts with that user's role bindings as
 * they are at each request; a token for the caller takes the caller's own
 * token's standing (its bindings, or its user's when it inherits them). A
 * caller can never mint more than it holds.
 */
export async function mintToken(tenant: TenantDb, caller: Principal, input: MintInput, now: number) {
  if (input.expires_at && Date.parse(input.expires_at) <= now) {
    throw validationFailed(["expires_at: must be in the future"], "expires_at must be in the future");
  }
  const pat = await newPat();
  return tenant.tx(async ({ db }) => {
    const userId = input.user_id ?? caller.userId;
    if (input.user_id) {
      const [user] = await db.select({ isActive: users.isActive }).from(users).where(eq(users.id, input.user_id));
      if (!user) throw new ApiError("UNPROCESSABLE_ENTITY", `User ${input.user_id} does not exist`, { user_id: input.user_id });
      if (!user.isActive) throw new ApiError("UNPROCESSABLE_ENTITY", `User ${input.user_id} is deactivated`, { user_id: input.user_id });
    }
    const [callerToken] = await db.select({ inherits: apiTokens.inheritsUserRoles }).from(apiTokens).where(eq(apiTokens.id, caller.tokenId));
    const bindingsOf = (type: "user" | "token", id: string) =>
      db
        .select(roleColumns)
        .from(roleBindings)
        .innerJoin(roles, eq(roles.id, roleBindings.roleId))
        .where(and(eq(roleBindings.principalType, type), eq(roleBindings.principalId, id)));
    let granted: { id: string; name: string; permissions: string[] }[];
    let inherits = false;
    if (input.role_names) {
      granted = await rolesByName(db, input.role_names);
    } else if (input.user_id || callerToken?.inherits) {
      inherits = true;
      granted = await bindingsOf("user", userId);
    } else {
      granted = await bindingsOf("token", caller.tokenId);
    }
    requireCovered(caller, await powerOfRoles(db, granted), "Minting this token");
    const [token] = await db
      .insert(apiTokens)
      .values({
        tenantId: tenant.tenantId,
        userId,
        name: input.name,
        clientId: pat.clientId,
        secretHash: pat.secretHash,
        expiresAt: input.expires_at ?? null,
        inheritsUserRoles: inherits,
      })
      .returning(publicColumns);
    if (granted.length && !inherits) {
      await db
        .insert(roleBindings)
        .values(granted.map((r) => ({ tenantId: tenant.tenantId, roleId: r.id, principalType: "token" as const, principalId: token.id })));
    }
    return {
      id: token.id,
      name: token.name,
      client_id: token.client_id,
      client_secret: pat.clientSecret,
      expires_at: token.expires_at,
      created_at: token.created_at,
      user_id: userId,
      role_names: granted.map((r) => r.name),
    };
  });
}

export async function listTokens(tenant: TenantDb, page: Page) {
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(publicColumns).from(apiTokens).orderBy(desc(apiTokens.createdAt), desc(apiTokens.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(apiTokens);
    return paginated(rows, page, total);
  });
}

export async function revokeToken(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db
      .update(apiTokens)
      .set({ revokedAt: sql`coalesce(${apiTokens.revokedAt}, now())` })
      .where(eq(apiTokens.id, id))
      .returning({ id: apiTokens.id, revoked_at: apiTokens.revokedAt });
    if (!row) throw notFound("API token", id);
    return { id: row.id, revoked: true, revoked_at: row.revoked_at };
  });
}
