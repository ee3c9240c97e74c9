// Minting an integration's app token: at most one is live per integration
// (a unique index holds it), shown once, stored as its SHA-256. Rotation
// revokes the live one in the transaction that stores the new one, so the
// old token stops working at once.
import { and, eq, isNull, sql as sql_ } from "drizzle-orm";
import { appTokens } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { loadIntegration } from "../integrations";
import type { AppDeps } from "../spec";
import { newAppToken } from "./token-format";

export interface MintedToken {
  token: { id: string; integration_id: string; created_at: string };
  raw: string;
  rotated: boolean;
}

export async function mintAppToken(deps: AppDeps, specId: string, integrationId: string, rotate: boolean): Promise<MintedToken> {
  await loadIntegration(deps, specId, integrationId, "update");
  const { raw, hash } = await newAppToken();
  return deps.tenant.tx(async (sql) => {
    // Two mints at once take turns on the integration's row: the second sees the first's token.
    await sql.query(`SELECT 1 FROM app_integrations WHERE id = $1 FOR UPDATE`, [integrationId]);
    const live = and(eq(appTokens.integrationId, integrationId), isNull(appTokens.revokedAt));
    const revoked = rotate ? await sql.db.update(appTokens).set({ revokedAt: sql_`now()` }).where(live).returning({ id: appTokens.id }) : [];
    const [held] = rotate ? [] : await sql.db.select({ id: appTokens.id }).from(appTokens).where(live);
    if (held) {
      throw new ApiError(
        "CONFLICT",
        `Integration ${integrationId} has a live app token; mint with ?rotate=true to replace it (the old token stops working at once)`,
        {
          integration_id: integrationId,
        },
      );
    }
    const [token] = await sql.db
      .insert(appTokens)
      .values({ tenantId: deps.tenant.tenantId, integrationId, tokenHash: hash })
      .returning({ id: appTokens.id, integration_id: appTokens.integrationId, created_at: appTokens.createdAt });
    return { token, raw, rotated: revoked.length > 0 };
  });
}
