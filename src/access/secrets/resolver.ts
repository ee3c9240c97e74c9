// The one reader of secret values, for the features that use them (workflow
// env values, an app's config scopes, auth profiles): `secrets.<scope>.<NAME>` references resolved
// for a principal, with the names not found reported instead of failing.
import { and, eq, isNull, or } from "drizzle-orm";
import type { TenantDb } from "../../db/client";
import { secrets } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/logger";
import { openSecret, secretsKey, type SecretScope } from "./secret-box";

export interface WantedSecret {
  scope: SecretScope;
  name: string;
  /** The user, company or team the secret belongs to; ignored for tenant scope. */
  principalId?: string;
}

export interface ResolvedSecrets {
  /** Values by reference (`secrets.tenant.API_KEY`). */
  values: Map<string, string>;
  /** References with no stored value (or, outside tenant scope, no principal to look one up for), in the order asked. */
  missing: string[];
}

export const secretRef = (scope: SecretScope, name: string) => `secrets.${scope}.${name}`;

/**
 * Reads every wanted secret in one query. A reference names a scope and a
 * name, not a principal, so each scope is resolved for one principal per
 * call; asking for one reference under two principals is a programming error.
 */
export async function resolveSecrets(tenant: Pick<TenantDb, "tenantId" | "tx">, masterKey: string, wanted: WantedSecret[]): Promise<ResolvedSecrets> {
  const asked = new Map<string, { scope: SecretScope; name: string; principalId: string | null }>();
  for (const w of wanted) {
    const ref = secretRef(w.scope, w.name);
    const principalId = w.scope === "tenant" ? null : (w.principalId ?? null);
    const earlier = asked.get(ref);
    if (earlier && earlier.principalId !== principalId) throw new Error(`${ref} was asked for two principals`);
    asked.set(ref, { scope: w.scope, name: w.name, principalId });
  }
  const lookups = [...asked.values()].filter((a) => a.scope === "tenant" || a.principalId !== null);
  if (!lookups.length) return { values: new Map(), missing: [...asked.keys()] };
  const rows = await tenant.tx(({ db }) =>
    db
      .select({ scope: secrets.scope, principalId: secrets.principalId, name: secrets.name, ciphertext: secrets.ciphertext })
      .from(secrets)
      .where(
        or(
          ...lookups.map((a) =>
            and(
              eq(secrets.scope, a.scope),
              a.principalId === null ? isNull(secrets.principalId) : eq(secrets.principalId, a.principalId),
              eq(secrets.name, a.name),
            ),
          ),
        ),
      ),
  );
  const key = await secretsKey(masterKey, tenant.tenantId);
  const values = new Map<string, string>();
  for (const row of rows) {
    const ref = secretRef(row.scope, row.name);
    const value = await openSecret(
      key,
      { tenantId: tenant.tenantId, scope: row.scope, principalId: row.principalId, name: row.name },
      new Uint8Array(row.ciphertext),
    );
    if (value === null) {
      // Bytes this service did not seal for this row (tampered, or moved from another): a server fault.
      log.error("stored secret failed its integrity check", { tenant: tenant.tenantId, secret: ref });
      throw new ApiError("INTERNAL_ERROR", "A stored secret failed its integrity check", { secret: ref });
    }
    values.set(ref, value);
  }
  return { values, missing: [...asked.keys()].filter((ref) => !values.has(ref)) };
}
