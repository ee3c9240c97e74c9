// What a render's smart values see (docs/apps.md, "What a render answers"):
// every config scope as the activation, integration and principals hold it
// (the spec version's values merged under the stored ones, secret references
// resolved), the names of the secrets each scope has, the app user's
// permissions, the host's context and the identity its provider gave.
import { and, eq, isNull, or, type SQL } from "drizzle-orm";
import { secrets } from "../../db/schema";
import { resolveSecretReferences, type SecretOwners } from "../../access/secrets/env-secrets";
import { permissionStrings } from "../../gateway/principal";
import type { AppInstance } from "../activation";
import { effectiveConfig, mergePatch, type ConfigObject } from "../config/merge";
import { integrationRow } from "../integrations";
import { principalConfigs, type PrincipalRef } from "../principals";
import type { ReadWave, Sql } from "../../db/client";
import type { AppDeps } from "../spec";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { RenderApp, RenderConfig, RenderContext, RenderIdentity } from "./contracts";
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

/** The team a render speaks for: the app-defined identity key `team_id`, when it is a non-empty string. */
function teamOf(identity: Record<string, unknown>): string | undefined {
  const team = identity.team_id;
  return typeof team === "string" && team !== "" ? team : undefined;
}

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

/** Whose config scopes a render (or an upload it minted) sees. */
export type ConfigOwner = Pick<RenderIdentity, "integrationId" | "companyExternalId" | "provider" | "userId" | "identity">;

/**
 * Every config scope of the activation for one app user: the stored values
 * over the spec version's definition values. Without an integration (a
 * preview) the `integration` scope is the definition's values only.
 */
export async function renderConfig(deps: Pick<AppDeps, "tenant">, instance: AppInstance, spec: SpecDocument, owner: ConfigOwner): Promise<RenderConfig> {
  const activationId = instance.activation.id;
  const { integration, principals } = await deps.tenant.tx(async (sql) => ({
    integration: owner.integrationId === undefined ? undefined : await integrationRow(sql, activationId, owner.integrationId),
    principals: await principalScopes(sql, activationId, owner),
  }));
  const app: RenderApp = { inUse: await instance.spec.document(instance.version), activation: instance.activation, integration };
  return configOf(app, spec, owner, principals);
}

/** The stored config of the owner's company, user and team (when it has one), in one statement of a transaction already open. */
function principalScopes(sql: Sql, activationId: string, owner: ConfigOwner): Promise<(ConfigObject | undefined)[]> {
  const team = teamOf(owner.identity);
  const refs: PrincipalRef[] = [
    { type: "company", id: owner.companyExternalId, provider: owner.provider },
    { type: "user", id: owner.userId, provider: "" },
    ...(team ? [{ type: "team" as const, id: team, provider: "" }] : []),
  ];
  return principalConfigs(sql, activationId, refs);
}

/**
 * The scopes, each stored value over the definition's: the app and
 * integration scopes' definitions are the version in use's, the
 * principals' the rendered document's (a preview's own).
 */
function configOf(app: RenderApp, spec: SpecDocument, owner: ConfigOwner, principals: (ConfigObject | undefined)[]): RenderConfig {
  const definition = spec.config ?? {};
  const inUse = app.inUse.config ?? {};
  const scope = (name: "company" | "team" | "user", value: ConfigObject | undefined) =>
    effectiveConfig(definition[name] as ConfigObject | undefined, value ?? {});
  const [company, user, team] = principals;
  return {
    app: effectiveConfig(inUse.app, app.activation.config),
    integration: app.integration
      ? effectiveConfig(inUse.integration, app.integration.config)
      : effectiveConfig(definition.integration as ConfigObject | undefined, {}),
    company: scope("company", company),
    user: scope("user", user),
    team: teamOf(owner.identity) ? scope("team", team) : {},
  };
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
  const merged = withOverrides(configOf(app, spec, identity, principals), overrides.config);
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
