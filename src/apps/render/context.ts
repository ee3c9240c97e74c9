// What a render's smart values see (docs/apps.md, "What a render answers"):
// every config scope as the activation, integration and principals hold it
// (the spec version's values merged under the stored ones, secret references
// resolved), the names of the secrets each scope has, the app user's
// permissions, the host's context and the identity its provider gave.
import { and, eq, isNull, or, type SQL } from "drizzle-orm";
import { secrets } from "../../db/schema";
import { resolveSecretReferences, type SecretOwners } from "../../access/secrets/env-secrets";
import { permissionStrings } from "../../lib/principal";
import { mergePatch, type ConfigObject } from "../config/merge";
import { principalScopes, scopeValues, teamOf } from "../config/owner";
import type { ReadWave, Sql } from "../../db/client";
import type { AppDeps } from "../spec";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { RenderApp, RenderContext, RenderIdentity } from "./contracts";
import { gatheredTx } from "./waves";

export interface LoadedRender {
  spec: SpecDocument;
  context: RenderContext;
  /** The secrets the config scopes resolved to, and the markers of those without a value: nothing the render answers may show them. */
  concealed: string[];
}

/**
 * How a render reads the secrets its config references: the key they are
 * sealed under, and whether its caller may. An author's preview renders a
 * document and config patches of the caller's choosing, so only a caller
 * who may change the activation (and so write that config) has them
 * resolved; for anyone else every reference is missing.
 */
export interface SecretAccess {
  masterKey: string;
  readable: boolean;
}

const SECRET_SCOPES = ["tenant", "user", "company", "team"] as const;

/**
 * The names of the secrets each scope holds for this render's principals:
 * the user's by its user id, the company's by its external id, the team's
 * by its id.
 */
async function secretNames(sql: Sql, principals: { user: string; company: string; team?: string }): Promise<RenderContext["secretsSet"]> {
  const owners: SQL[] = [
    and(eq(secrets.scope, "tenant"), isNull(secrets.principalId))!,
    and(eq(secrets.scope, "user"), eq(secrets.principalId, principals.user))!,
    and(eq(secrets.scope, "company"), eq(secrets.principalId, principals.company))!,
  ];
  if (principals.team) owners.push(and(eq(secrets.scope, "team"), eq(secrets.principalId, principals.team))!);
  const rows = await sql.db
    .select({ scope: secrets.scope, name: secrets.name })
    .from(secrets)
    .where(or(...owners))
    .orderBy(secrets.name);
  const names = Object.fromEntries(SECRET_SCOPES.map((scope) => [scope, [] as string[]])) as RenderContext["secretsSet"];
  for (const row of rows) names[row.scope].push(row.name);
  return names;
}

/** Each scope with the preview's patch for it merged over (RFC 7396), for this render only. */
function withOverrides(config: RenderContext["config"], patches: RenderOverrides["config"] = {}): RenderContext["config"] {
  const merged = { ...config };
  for (const scope of Object.keys(merged) as (keyof RenderContext["config"])[]) {
    if (patches[scope] !== undefined) merged[scope] = mergePatch(merged[scope], patches[scope]) as ConfigObject;
  }
  return merged;
}

/** What an author's preview changes for one render: the document rendered, and patches over the stored scopes. */
export interface RenderOverrides {
  spec?: SpecDocument;
  config?: Partial<Record<keyof RenderContext["config"], ConfigObject>>;
}

/**
 * The spec document and the render context of one render, from what was
 * loaded before it (`app`), read in the render's waves (`wave`); called
 * again after a command wrote a config or a secret. A render without an integration (a preview) sees the
 * definition's `integration` values only.
 */
export async function loadRender(
  deps: Pick<AppDeps, "tenant">,
  wave: ReadWave,
  identity: RenderIdentity,
  app: RenderApp,
  hostContext: unknown,
  access: SecretAccess,
  overrides: RenderOverrides = {},
): Promise<LoadedRender> {
  const spec = overrides.spec ?? app.inUse;
  // The stored scopes and the secret names in one wave; the secrets the scopes
  // reference (none in most renders) in the next, once the effective scopes are known.
  const reads = gatheredTx(deps.tenant.tenantId, wave);
  const sql = wave.tenant(deps.tenant.tenantId);
  const [principals, secretsSet] = await Promise.all([
    principalScopes(sql, app.activation.id, identity),
    secretNames(sql, { user: identity.userId, company: identity.companyExternalId, team: teamOf(identity.identity) }),
  ]);
  // A reference resolves for the render's own principals (a job's env resolves the tenant's only, acting for nobody).
  const team = teamOf(identity.identity);
  const owners: SecretOwners = {
    user: identity.userId,
    ...(identity.companyExternalId !== "" && { company: identity.companyExternalId }),
    ...(team && { team }),
  };
  const merged = withOverrides(scopeValues(app, spec, identity, principals), overrides.config);
  const readable = access.readable ? owners : null;
  // The app user writes its own config (setPrincipalConfig, self-service): a reference there reaches the user's own secrets only.
  const { user, ...scopes } = merged;
  const [shared, own] = await Promise.all([
    resolveSecretReferences(reads, access.masterKey, scopes, readable),
    resolveSecretReferences(reads, access.masterKey, user, readable, ["user"]),
  ]);
  const config = { value: { ...shared.value, user: own.value }, values: [...shared.values, ...own.values], markers: [...shared.markers, ...own.markers] };
  return {
    spec,
    concealed: [...config.values, ...config.markers],
    context: {
      config: config.value,
      secretsSet,
      permissions: permissionStrings(identity.principal),
      context: hostContext ?? {},
      identity: identity.identity,
      provider: { provider: identity.provider, identity: identity.identity },
    },
  };
}
