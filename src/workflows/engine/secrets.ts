// Secret references in a run's env values (`{{ secrets.tenant.NAME }}`, set
// at activation, never in the definition) are resolved when a walk begins,
// through the one secret reader. A reference with no stored value becomes a
// marker string instead of failing the walk: only what reads it fails (a
// step's input: the job; an auth profile: the requests naming it).
import type { TenantDb } from "../../db/client";
import { resolveSecrets, secretRef, type WantedSecret } from "../../access/secrets/resolver";
import type { SecretScope } from "../../access/secrets/secret-box";

const REFERENCE = /\{\{\s*secrets\.(tenant|user|company|team)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** NUL cannot reach an env value (the input guard refuses it), so the marker never collides with data. */
const MARKER = /\u0000missing-secret:([^\u0000]+)\u0000/g;

const marker = (ref: string) => `\u0000missing-secret:${ref}\u0000`;

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
      typeof value === "string" ? value.replace(REFERENCE, (_, scope: SecretScope, name: string) => values.get(secretRef(scope, name)) ?? marker(secretRef(scope, name))) : value;
  }
  return { env: resolved, values: [...values.values()] };
}

/** The references a resolved value still carries as markers (what it read but has no value), in order, once each. */
export function missingSecretsIn(value: unknown): string[] {
  const found = new Set<string>();
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000missing-secret:")) for (const m of v.matchAll(MARKER)) found.add(m[1]);
    } else if (Array.isArray(v)) pending.push(...v);
    else if (v !== null && typeof v === "object") pending.push(...Object.values(v));
  }
  return [...found].sort();
}
