// Secret references in a run's env values (`{{ secrets.tenant.NAME }}`, set
// at activation, never in the definition) are resolved when a walk begins,
// through the one secret reader. A reference with no stored value becomes a
// marker string instead of failing the walk: only what reads it fails (a
// step's input: the job; an auth profile: the requests naming it).
import type { TenantDb } from "../../db/client";
import { resolveSecrets, secretRef, type WantedSecret } from "./resolver";
import type { SecretScope } from "./secret-box";
import { missingSecretMarker } from "../../lib/secret-markers";

const REFERENCE = /\{\{\s*secrets\.(tenant|user|company|team)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export interface ResolvedEnv {
  /** The env with every reference replaced by its value, or by a marker when it has none. */
  env: Record<string, unknown>;
  /** The values resolved: what must never appear in a record, an error or a log line. */
  values: string[];
}

function referencesIn(env: Record<string, unknown>): WantedSecret[] {
  const wanted: WantedSecret[] = [];
  for (const value of Object.values(env)) {
    if (typeof value !== "string") continue;
    for (const m of value.matchAll(REFERENCE)) wanted.push({ scope: m[1] as SecretScope, name: m[2] });
  }
  return wanted;
}

/**
 * Resolves the env's secret references for a run. A run acts for no user,
 * company or team, so only tenant-scope references can have a value; the
 * others resolve as missing.
 */
export async function resolveEnvSecrets(tenant: TenantDb, masterKey: string, env: Record<string, unknown>): Promise<ResolvedEnv> {
  const wanted = referencesIn(env);
  if (!wanted.length) return { env, values: [] };
  const { values } = await resolveSecrets(tenant, masterKey, wanted);
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    resolved[key] =
      typeof value === "string" ? value.replace(REFERENCE, (_, scope: SecretScope, name: string) => values.get(secretRef(scope, name)) ?? missingSecretMarker(secretRef(scope, name))) : value;
  }
  return { env: resolved, values: [...values.values()] };
}
