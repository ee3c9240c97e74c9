// API tokens (PATs): mint, list, revoke. The raw secret leaves the service once, at mint.
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { TenantDb } from "../db/client";
import { apiTokens, roleBindings, roles } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { validationFailed } from "../lib/validate";
import { coversAll, type Principal } from "../gateway/principal";
import { newPat } from "./token-format";

export interface MintInput {
  name: string;
  expires_at?: string;
  role_names?: string[];
}

const publicColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  client_id: apiTokens.clientId,
  expires_at: apiTokens.expiresAt,
  revoked_at: apiTokens.revokedAt,
  created_at: apiTokens.createdAt,
};

export async function mintToken(tenant: TenantDb, caller: Principal, input: MintInput) {
  if (input.expires_at && Date.parse(input.expires_at) <= Date.now()) {
    throw validationFailed(["expires_at: must be in the future"], "expires_at must be in the future");
  }
  const pat = await newPat();
  return tenant.tx(async ({ db }) => {
    const granted = input.role_names
      ? await db.select({ id: roles.id, name: roles.name, permissions: roles.permissions }).from(roles).where(inArray(roles.name, input.role_names))
      : await db
          .select({ id: roles.id, name: roles.name, permissions: roles.permissions })
          .from(roleBindings)
          .innerJoin(roles, eq(roles.id, roleBindings.roleId))
          .where(and(eq(roleBindings.principalType, "token"), eq(roleBindings.principalId, caller.tokenId)));
    if (input.role_names) {
      const missing = input.role_names.filter((n) => !granted.some((r) => r.name === n));
      if (missing.length) throw new ApiError("UNPROCESSABLE_ENTITY", `Unknown role(s): ${missing.join(", ")}`, { unknown_roles: missing });
    }
    const wanted = granted.flatMap((r) => r.permissions);
    if (!coversAll(caller.permissions, wanted)) {
      throw new ApiError("FORBIDDEN", "A token cannot be granted permissions its creator does not hold", { requested: wanted });
    }
    const [token] = await db
      .insert(apiTokens)
      .values({ tenantId: tenant.tenantId, userId: caller.userId, name: input.name, clientId: pat.clientId, secretHash: pat.secretHash, expiresAt: input.expires_at ?? null })
      .returning(publicColumns);
    if (granted.length) {
      await db.insert(roleBindings).values(granted.map((r) => ({ tenantId: tenant.tenantId, roleId: r.id, principalType: "token" as const, principalId: token.id })));
    }
    return {
      id: token.id,
      name: token.name,
      client_id: token.client_id,
      client_secret: pat.clientSecret,
      expires_at: token.expires_at,
      created_at: token.created_at,
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
