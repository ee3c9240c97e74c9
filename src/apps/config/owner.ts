// The config scopes one app user sees: the stored values of the activation,
// the integration and the user's principals (company, user, team) over the
// definition's. A render reads them into its context; an upload slot reads
// them for the provider's `props` of a user who is no longer rendering.
import type { Sql } from "../../db/client";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { AppInstance } from "../activation";
import { integrationRow } from "../integrations";
import { principalConfigs, type PrincipalRef } from "../principals";
import type { AppDeps } from "../spec";
import { effectiveConfig, type ConfigObject } from "./merge";
import type { Scope } from "./scope";

/** Each config scope's effective value, under its own key. */
export type ScopeValues = Record<Scope, ConfigObject>;

/** Whose config scopes are read: the integration (none for a preview), the company and user, the identity that may name a team. */
export interface ConfigOwner {
  integrationId?: string;
  companyExternalId: string;
  provider: string;
  userId: string;
  identity: Record<string, unknown>;
}

/** What the app and integration scopes are read from: the version in use and the stored rows. */
export interface StoredApp {
  /** The document of the version the activation uses. */
  inUse: SpecDocument;
  activation: { id: string; config: Record<string, unknown> };
  /** None for an author's preview. */
  integration?: { config: Record<string, unknown> };
}

/** The team a user speaks for: the app-defined identity key `team_id`, when it is a non-empty string. */
export function teamOf(identity: Record<string, unknown>): string | undefined {
  const team = identity.team_id;
  return typeof team === "string" && team !== "" ? team : undefined;
}

/** The stored config of the owner's company, user and team (when it has one), in one statement of a transaction already open. */
export function principalScopes(sql: Sql, activationId: string, owner: ConfigOwner): Promise<(ConfigObject | undefined)[]> {
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
 * principals' the given document's (a preview's own).
 */
export function scopeValues(app: StoredApp, spec: SpecDocument, owner: ConfigOwner, principals: (ConfigObject | undefined)[]): ScopeValues {
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
 * Every config scope of the activation for one app user: the stored values
 * over the spec version's definition values. Without an integration (a
 * preview) the `integration` scope is the definition's values only.
 */
export async function ownerConfig(deps: Pick<AppDeps, "tenant">, instance: AppInstance, spec: SpecDocument, owner: ConfigOwner): Promise<ScopeValues> {
  const activationId = instance.activation.id;
  const { integration, principals } = await deps.tenant.tx(async (sql) => ({
    integration: owner.integrationId === undefined ? undefined : await integrationRow(sql, activationId, owner.integrationId),
    principals: await principalScopes(sql, activationId, owner),
  }));
  const app: StoredApp = { inUse: await instance.spec.document(instance.version), activation: instance.activation, integration };
  return scopeValues(app, spec, owner, principals);
}
