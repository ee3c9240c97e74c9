// Secret rows: create-or-replace, list, delete. No function here reads a
// value back; the resolver (resolver.ts) is the only reader.
import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { TenantDb } from "../../db/client";
import { secrets } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { sealSecret, secretsKey, type SecretScope } from "./secret-box";

/** What every answer shows of a secret: never its value or ciphertext. */
export type SecretInfo = {
  id: string;
  scope: SecretScope;
  principal_id: string | null;
  name: string;
  created_at: string;
  updated_at: string;
};

const columns = {
  id: secrets.id,
  scope: secrets.scope,
  principal_id: secrets.principalId,
  name: secrets.name,
  created_at: secrets.createdAt,
  updated_at: secrets.updatedAt,
};

export interface PutSecret {
  scope: SecretScope;
  principalId: string | null;
  name: string;
  value: string;
}

/**
 * One statement, so two writers of one name never race into a unique
 * violation: the row is created or its ciphertext replaced, and `xmax = 0`
 * (no earlier row version was locked or updated) tells which.
 */
export async function putSecret(tenant: TenantDb, masterKey: string, input: PutSecret): Promise<{ secret: SecretInfo; created: boolean }> {
  const address = { tenantId: tenant.tenantId, scope: input.scope, principalId: input.principalId, name: input.name };
  const ciphertext = await sealSecret(await secretsKey(masterKey, tenant.tenantId), address, input.value);
  return tenant.tx(async (sql) => {
    const { rows } = await sql.query<SecretInfo & { created: boolean }>(
      `INSERT INTO secrets (tenant_id, scope, principal_id, name, ciphertext) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ON CONSTRAINT secrets_key DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = now()
       RETURNING id, scope, principal_id, name, created_at, updated_at, (xmax = 0) AS created`,
      [tenant.tenantId, input.scope, input.principalId, input.name, ciphertext],
    );
    const { created, ...secret } = rows[0];
    return { secret, created };
  });
}

export async function listSecrets(tenant: TenantDb, filter: { scope?: SecretScope; principal_id?: string }, page: Page) {
  const where: SQL[] = [];
  if (filter.scope) where.push(eq(secrets.scope, filter.scope));
  if (filter.principal_id) where.push(eq(secrets.principalId, filter.principal_id));
  return tenant.tx(async ({ db }) => {
    const rows = await db
      .select(columns)
      .from(secrets)
      .where(and(...where))
      .orderBy(desc(secrets.createdAt), desc(secrets.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db
      .select({ total: count() })
      .from(secrets)
      .where(and(...where));
    return paginated(rows, page, total);
  });
}

export async function deleteSecret(tenant: TenantDb, id: string) {
  return tenant.tx(async ({ db }) => {
    const [row] = await db.delete(secrets).where(eq(secrets.id, id)).returning({ id: secrets.id });
    if (!row) throw notFound("Secret", id);
    return { id: row.id, deleted: true as const };
  });
}
