// Per-principal config of an activation: the `company`, `team` and `user`
// scopes, written through the one scope rule. A company is named by its
// external_id (and provider), a team by an opaque id, a user by its id;
// `self` names the caller's own user. A user writes or reads its own user
// principal without further permission; any other principal needs
// `app:update` (write) or `app:read` (read) on the activation.
import type { Sql } from "../db/client";
import { ApiError, notFound } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { converge, LOST } from "./config/converge";
import { effectiveConfig, type ConfigObject } from "./config/merge";
import { writeScope } from "./config/scope";
import { loadInstance, type AppInstance } from "./activation";
import type { AppDeps } from "./spec";

export type PrincipalType = "company" | "team" | "user";

type PrincipalRow = {
  principal_type: PrincipalType;
  provider: string;
  principal_id: string;
  config: ConfigObject;
  revision: number;
  created_at: string;
  updated_at: string;
};

export interface PrincipalRef {
  type: PrincipalType;
  /** As resolved: `self` is the caller's user id. */
  id: string;
  /** A company's provider; '' for team and user. */
  provider: string;
}

/**
 * Resolves the path's principal: `self` to the caller's user; a company's
 * provider from `?provider=` or the spec's only provider, the company
 * registered in the tenant; a user id of the tenant. 422 otherwise.
 */
async function resolvePrincipal(
  deps: AppDeps,
  instance: AppInstance,
  type: PrincipalType,
  principalId: string,
  providerParam: string | undefined,
): Promise<PrincipalRef> {
  const self = principalId === "self";
  if (self && type !== "user") {
    throw new ApiError("UNPROCESSABLE_ENTITY", `self names a ${type} only inside an app render (the app user's ${type}); over the API name the ${type}`, {
      principal_type: type,
    });
  }
  if (type === "user") {
    const id = self ? deps.caller.userId : principalId;
    const known = isUuid(id) && (await deps.tenant.tx((sql) => sql.query(`SELECT 1 FROM users WHERE id = $1`, [id]))).rows.length > 0;
    if (!known) throw new ApiError("UNPROCESSABLE_ENTITY", `No user ${id} in this tenant`, { principal_id: id });
    return { type, id, provider: "" };
  }
  if (type === "team") return { type, id: principalId, provider: "" };
  const providers = Object.keys((await instance.spec.document(instance.version)).providers ?? {});
  if (providerParam !== undefined && !providers.includes(providerParam)) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `The spec declares no provider ${providerParam}`, { provider: providerParam, providers });
  }
  const provider = providerParam ?? (providers.length === 1 ? providers[0] : undefined);
  if (provider === undefined) {
    throw new ApiError(
      "UNPROCESSABLE_ENTITY",
      providers.length
        ? "The spec declares several providers: name the company's with ?provider="
        : "The spec declares no providers, so it has no company principals",
      { providers },
    );
  }
  const { rows } = await deps.tenant.tx((sql) =>
    sql.query(`SELECT 1 FROM external_companies WHERE provider = $1 AND external_id = $2`, [provider, principalId]),
  );
  if (!rows.length)
    throw new ApiError("UNPROCESSABLE_ENTITY", `No external company ${principalId} of provider ${provider} is registered in this tenant`, {
      provider,
      principal_id: principalId,
    });
  return { type, id: principalId, provider };
}

async function principalRow(sql: Sql, activationId: string, p: PrincipalRef): Promise<PrincipalRow | undefined> {
  const { rows } = await sql.query<PrincipalRow>(
    `SELECT principal_type, provider, principal_id, config, revision, created_at, updated_at FROM app_principal_configs
      WHERE activation_id = $1 AND principal_type = $2 AND provider = $3 AND principal_id = $4`,
    [activationId, p.type, p.provider, p.id],
  );
  return rows[0];
}

async function principalView(instance: AppInstance, row: PrincipalRow) {
  const definition = (await instance.spec.document(instance.version)).config?.[row.principal_type];
  return {
    spec_id: instance.spec.id,
    principal_type: row.principal_type,
    principal_id: row.principal_id,
    provider: row.principal_type === "company" ? row.provider : null,
    config: row.config,
    effective_config: effectiveConfig(definition, row.config),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Checks the caller may do `action` on the principal, then loads the
 * activation and resolves the principal: whether the path names the
 * caller's own user is known from the path alone, so a caller without the
 * permission is refused before any spec, company or user is looked up.
 */
async function reach(deps: AppDeps, specId: string, type: PrincipalType, principalId: string, provider: string | undefined, action: "read" | "update") {
  const own = type === "user" && (principalId === "self" || principalId === deps.caller.userId);
  const instance = await loadInstance(deps, specId, own ? null : action);
  const principal = await resolvePrincipal(deps, instance, type, principalId, provider);
  return { instance, principal };
}

/** The stored configs of principals of the activation, for renders, in one statement: each in the order asked, undefined when never written. */
export async function principalConfigs(sql: Sql, activationId: string, principals: PrincipalRef[]): Promise<(ConfigObject | undefined)[]> {
  const { rows } = await sql.query<{ principal_type: PrincipalType; provider: string; principal_id: string; config: ConfigObject }>(
    `SELECT p.principal_type, p.provider, p.principal_id, p.config FROM app_principal_configs p
       JOIN unnest($2::text[], $3::text[], $4::text[]) AS w(principal_type, provider, principal_id)
         ON p.principal_type = w.principal_type AND p.provider = w.provider AND p.principal_id = w.principal_id
      WHERE p.activation_id = $1`,
    [activationId, principals.map((p) => p.type), principals.map((p) => p.provider), principals.map((p) => p.id)],
  );
  return principals.map((p) => rows.find((r) => r.principal_type === p.type && r.provider === p.provider && r.principal_id === p.id)?.config);
}

export async function getPrincipal(deps: AppDeps, specId: string, type: PrincipalType, principalId: string, provider: string | undefined) {
  const { instance, principal } = await reach(deps, specId, type, principalId, provider, "read");
  const row = await deps.tenant.tx((sql) => principalRow(sql, instance.activation.id, principal));
  if (!row) throw notFound(`App config of ${type}`, principal.id);
  return principalView(instance, row);
}

/**
 * Writes a principal's config: `patch` merged into the stored value, or,
 * as a function, the patch it makes of the effective value (list ops),
 * asked again when a concurrent write made the write start over.
 */
export async function putPrincipal(
  deps: AppDeps,
  specId: string,
  type: PrincipalType,
  principalId: string,
  provider: string | undefined,
  patch: ConfigObject | ((effective: ConfigObject) => ConfigObject),
) {
  const { instance, principal } = await reach(deps, specId, type, principalId, provider, "update");
  const rules = await instance.spec.rules(instance.version, type);
  const definition = (await instance.spec.document(instance.version)).config?.[type] as ConfigObject | undefined;
  const activationId = instance.activation.id;
  return converge(async () => {
    const prior = await deps.tenant.tx((sql) => principalRow(sql, activationId, principal));
    const delta = typeof patch === "function" ? patch(effectiveConfig(definition, prior?.config ?? {})) : patch;
    const config = writeScope(rules, prior?.config ?? {}, delta);
    const row = await deps.tenant.tx(async (sql) => {
      const { rows } = prior
        ? await sql.query(
            `UPDATE app_principal_configs SET config = $1, revision = revision + 1, updated_at = now() WHERE activation_id = $2 AND principal_type = $3 AND provider = $4 AND principal_id = $5 AND revision = $6 RETURNING id`,
            [JSON.stringify(config), activationId, principal.type, principal.provider, principal.id, prior.revision],
          )
        : await sql.query(
            `INSERT INTO app_principal_configs (tenant_id, activation_id, principal_type, provider, principal_id, config) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (tenant_id, activation_id, principal_type, provider, principal_id) DO NOTHING RETURNING id`,
            [deps.tenant.tenantId, activationId, principal.type, principal.provider, principal.id, JSON.stringify(config)],
          );
      return rows.length ? (await principalRow(sql, activationId, principal))! : LOST;
    });
    return row === LOST ? LOST : principalView(instance, row);
  });
}
