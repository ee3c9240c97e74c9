// Minting an integration's app token: at most one is live per integration.
// A mint finds the integration through the activation of the spec named in
// the path (row-level security keeps it to the caller's tenant) and locks
// its row, so two mints at once take turns: the second sees the first's
// token and answers 409 (or, rotating, revokes it).
import { and, eq, isNull, sql as sql_ } from "drizzle-orm";
import { appTokens } from "../../db/schema";
import type { Principal } from "../../gateway/principal";
import type { TenantDb } from "../../db/client";
import { requireApp } from "../../access/app-access";
import { ApiError, notFound } from "../../lib/errors";
import { newAppToken } from "./token-format";

export interface MintedToken {
  token: { id: string; integration_id: string; created_at: string };
  raw: string;
  rotated: boolean;
}

export async function mintAppToken(tenant: TenantDb, caller: Principal, specId: string, integrationId: string, rotate: boolean): Promise<MintedToken> {
  const { raw, hash } = await newAppToken();
  return tenant.tx(async (sql) => {
    const { rows: found } = await sql.query<{ activation_id: string }>(
      `SELECT i.activation_id FROM app_integrations i JOIN app_activations a ON a.id = i.activation_id
        WHERE i.id = $1 AND a.spec_id = $2 FOR UPDATE OF i`,
      [integrationId, specId],
    );
    if (!found.length) throw notFound("Integration", integrationId);
    requireApp(caller, "update", found[0].activation_id);
    const live = and(eq(appTokens.integrationId, integrationId), isNull(appTokens.revokedAt));
    const revoked = rotate ? await sql.db.update(appTokens).set({ revokedAt: sql_`now()` }).where(live).returning({ id: appTokens.id }) : [];
    const [held] = rotate ? [] : await sql.db.select({ id: appTokens.id }).from(appTokens).where(live);
    const rows = held
      ? []
      : await sql.db
          .insert(appTokens)
          .values({ tenantId: tenant.tenantId, integrationId, tokenHash: hash })
          .returning({ id: appTokens.id, integration_id: appTokens.integrationId, created_at: appTokens.createdAt });
    if (!rows.length) {
      throw new ApiError("CONFLICT", `Integration ${integrationId} has a live app token; mint with ?rotate=true to replace it (the old token stops working at once)`, {
        integration_id: integrationId,
      });
    }
    return { token: rows[0], raw, rotated: revoked.length > 0 };
  });
}
