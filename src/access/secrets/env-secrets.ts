// Secret references held in stored config (`{{ secrets.tenant.NAME }}`: a
// run's env values, an app's activation, integration and principal config;
// set by an operator, never in a definition) are resolved where that config
// is read, through the one secret reader. A reference with no stored value
// becomes a marker string instead of failing the read: only what uses it
// fails (a step's input: the job; an auth profile or an app's `$http`
// request: the requests reading it).
import type { TenantDb } from "../../db/client";
import { resolveSecrets, secretRef, type WantedSecret } from "./resolver";
import type { SecretScope } from "./secret-box";
import { missingSecretMarker } from "../../lib/secret-markers";

const REFERENCE = /\{\{\s*secrets\.(tenant|user|company|team)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Whose user, company and team secrets the references name; a scope without one resolves as missing. */
export type SecretOwners = Partial<Record<Exclude<SecretScope, "tenant">, string>>;

export interface ResolvedReferences<T> {
  /** The value with every reference replaced by its secret, or by a marker when it has none. */
  value: T;
  /** The secrets put in: what must never appear in a record, an answer, an error or a log line. */
  values: string[];
  /** The markers put in for references without a value: as little to be shown as a secret. */
  markers: string[];
}

export interface ResolvedEnv {
  env: Record<string, unknown>;
  values: string[];
}

/** Every string of a JSON value, at any depth. */
function* stringsIn(value: unknown): Generator<string> {
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === "string") yield v;
    else if (Array.isArray(v)) pending.push(...v);
    else if (v !== null && typeof v === "object") pending.push(...Object.values(v));
  }
}

function replaced(value: unknown, by: (text: string) => string): unknown {
  if (typeof value === "string") return by(value);
  if (Array.isArray(value)) return value.map((v) => replaced(v, by));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v, by)]));
  return value;
}

/**
 * Resolves the references in every string of `value` (objects and arrays
 * walked), the user, company and team ones for `owners`; `null` owners: the
 * caller may read no secret, so every reference resolves as missing. Only
 * references to one of `scopes` may resolve; the others resolve as missing
 * too (a value its own writer controls reaches no wider secrets than the
 * writer's). Without a reference nothing is read. `tenant` may be a
 * transaction already open (`{ tenantId, tx: (fn) => fn(sql) }`), so the read
 * rides with the caller's.
 */
export async function resolveSecretReferences<T>(
  tenant: Pick<TenantDb, "tenantId" | "tx">,
  masterKey: string,
  value: T,
  owners: SecretOwners | null = {},
  scopes: readonly SecretScope[] = ["tenant", "user", "company", "team"],
): Promise<ResolvedReferences<T>> {
  const wanted: WantedSecret[] = [];
  const refused = new Set<string>();
  for (const text of stringsIn(value)) {
    for (const m of text.matchAll(REFERENCE)) {
      const scope = m[1] as SecretScope;
      if (owners === null || !scopes.includes(scope)) refused.add(secretRef(scope, m[2]));
      else wanted.push({ scope, name: m[2], ...(scope !== "tenant" && { principalId: owners[scope] }) });
    }
  }
  if (!wanted.length && !refused.size) return { value, values: [], markers: [] };
  const found = wanted.length ? await resolveSecrets(tenant, masterKey, wanted) : { values: new Map<string, string>(), missing: [] };
  const values = found.values;
  const missing = [...new Set([...found.missing, ...refused])];
  const resolved = replaced(value, (text) =>
    text.replace(REFERENCE, (_, scope: SecretScope, name: string) => values.get(secretRef(scope, name)) ?? missingSecretMarker(secretRef(scope, name))),
  );
  return { value: resolved as T, values: [...values.values()], markers: missing.map(missingSecretMarker) };
}

/**
 * Resolves the env's secret references for a run. A run acts for no user,
 * company or team, so only tenant-scope references can have a value; the
 * others resolve as missing.
 */
export async function resolveEnvSecrets(tenant: TenantDb, masterKey: string, env: Record<string, unknown>): Promise<ResolvedEnv> {
  const { value, values } = await resolveSecretReferences(tenant, masterKey, env);
  return { env: value, values };
}
