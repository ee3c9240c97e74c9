// A tenant's one activation of a spec (its own or shared to it): the `app`
// config scope, the pinned spec version, the job bindings and the policy its
// users act with. The first config write creates it (two at once: one row,
// the other write applies to it); every write reconciles the provisioned
// policies with the version in use and records it as accepted (consent.ts).
import type { FromSchema } from "json-schema-to-ts";
import type { Sql } from "../db/client";
import { hasPermission, holdsUnscoped } from "../lib/principal";
import { notFound } from "../lib/errors";
import { mergeEnv } from "../lib/env-merge";
import { allowsApp, appForbidden, type AppAction } from "../access/app-access";
import { converge, LOST } from "./config/converge";
import { effectiveConfig, type ConfigObject } from "./config/merge";
import { writeScope } from "./config/scope";
import { bindAppPolicies } from "./policies";
import type { VersionInUse } from "./consent";
import { AppSpec, type AppDeps, type SpecDeps } from "./spec";
import type { configBody } from "./schemas";

export type ConfigInput = FromSchema<typeof configBody>;

export type ActivationRow = {
  id: string;
  spec_id: string;
  spec_version: number | null;
  accepted_version: number;
  config: ConfigObject;
  job_bindings: Record<string, string>;
  policy_id: string | null;
  policy_bound: boolean;
  revision: number;
  created_at: string;
  updated_at: string;
};

const COLUMNS = "id, spec_id, spec_version, accepted_version, config, job_bindings, policy_id, policy_bound, revision, created_at, updated_at";

export async function activationRow(sql: Sql, specId: string): Promise<ActivationRow | undefined> {
  const { rows } = await sql.query<ActivationRow>(`SELECT ${COLUMNS} FROM app_activations WHERE spec_id = $1`, [specId]);
  return rows[0];
}

/** An activated app as its operations and renders see it: the spec, the activation, the version in use. */
export interface AppInstance {
  spec: AppSpec;
  activation: ActivationRow;
  version: number;
  /** A newer version held back from a consumer until its operator accepts it. */
  pending?: VersionInUse["pending"];
}

/**
 * The tenant's activation of the spec, after the caller's `app:<action>` on
 * it (unless `action` is null: the caller's own checks follow). The
 * permission decides before existence does: a caller whose grants do not
 * reach every activation gets the one 403 for a spec that is missing or not
 * activated too; only an unnarrowed `app:<action>` learns 404.
 */
export async function loadInstance(deps: SpecDeps, specId: string, action: null): Promise<AppInstance>;
export async function loadInstance(deps: AppDeps, specId: string, action: AppAction | null): Promise<AppInstance>;
export async function loadInstance(deps: SpecDeps & Partial<Pick<AppDeps, "caller">>, specId: string, action: AppAction | null): Promise<AppInstance> {
  // Without any app:<action> grant nothing is looked up at all.
  if (action && !hasPermission(deps.caller!, "app", action)) throw appForbidden(action, specId);
  const spec = await AppSpec.find(deps, specId);
  const activation = spec && (await deps.tenant.tx((sql) => activationRow(sql, spec.id)));
  if (action && !(activation ? allowsApp(deps.caller!, action, activation.id) : holdsUnscoped(deps.caller!, "app", action))) throw appForbidden(action, specId);
  if (!spec) throw notFound("App spec", specId);
  if (!activation) throw notFound("App activation of spec", specId);
  const { version, pending } = await spec.versionInUse(activation);
  return { spec, activation, version, pending };
}

export async function activationView({ spec, activation, version, pending }: AppInstance) {
  const definition = (await spec.document(version)).config?.app;
  return {
    id: activation.id,
    spec_id: activation.spec_id,
    config: activation.config,
    effective_config: effectiveConfig(definition, activation.config),
    policy_id: activation.policy_id,
    spec_version: activation.spec_version,
    effective_spec_version: version,
    pending_version: pending?.version ?? null,
    pending_changes: pending?.changes ?? [],
    job_bindings: activation.job_bindings,
    created_at: activation.created_at,
    updated_at: activation.updated_at,
  };
}

export async function getAppConfig(deps: AppDeps, specId: string) {
  return activationView(await loadInstance(deps, specId, "read"));
}

async function writeRow(
  sql: Sql,
  tenantId: string,
  id: string,
  specId: string,
  prior: ActivationRow | undefined,
  next: Pick<ActivationRow, "spec_version" | "accepted_version" | "config" | "job_bindings">,
) {
  const values = [next.spec_version, JSON.stringify(next.config), JSON.stringify(next.job_bindings), next.accepted_version];
  const { rows } = prior
    ? await sql.query(
        `UPDATE app_activations SET spec_version = $1, config = $2, job_bindings = $3, accepted_version = $4, revision = revision + 1, updated_at = now() WHERE id = $5 AND revision = $6 RETURNING id`,
        [...values, id, prior.revision],
      )
    : await sql.query(
        `INSERT INTO app_activations (id, tenant_id, spec_id, spec_version, config, job_bindings, accepted_version) VALUES ($5, $6, $7, $1, $2, $3, $4) ON CONFLICT (tenant_id, spec_id) DO NOTHING RETURNING id`,
        [...values, id, tenantId, specId],
      );
  return rows.length > 0;
}

/**
 * Upserts the activation. The first write needs `app:create` unnarrowed (no
 * grant can name an activation not yet made); later ones `app:update` on it.
 * A write that names `spec_version` (a pin, or null for the latest) accepts
 * that version; one that does not keeps a consumer on what it accepted.
 */
export async function putAppConfig(deps: AppDeps, specId: string, input: ConfigInput) {
  // Which permission a refusal names depends on the caller alone, never on whether the spec exists or is activated:
  // a caller holding app:update everywhere lacks only app:create.
  const refusal = appForbidden(holdsUnscoped(deps.caller, "app", "update") ? "create" : "update", specId);
  const spec = await AppSpec.find(deps, specId);
  if (!spec) throw holdsUnscoped(deps.caller, "app", "create") ? notFound("App spec", specId) : refusal;
  return converge(async () => {
    const prior = await deps.tenant.tx((sql) => activationRow(sql, spec.id));
    if (!(prior ? allowsApp(deps.caller, "update", prior.id) : holdsUnscoped(deps.caller, "app", "create"))) throw refusal;
    if (typeof input.spec_version === "number") await spec.document(input.spec_version);
    const pinned = input.spec_version !== undefined ? input.spec_version : (prior?.spec_version ?? null);
    const { version, pending } = input.spec_version !== undefined || !prior ? { version: pinned ?? spec.latestVersion } : await spec.versionInUse(prior);
    const doc = await spec.document(version);
    const config = writeScope(await spec.rules(version, "app"), prior?.config ?? {}, input.config);
    await spec.checkBindings(version, input.job_bindings);
    const jobBindings = mergeEnv(prior?.job_bindings ?? {}, input.job_bindings) as Record<string, string>;
    const id = prior?.id ?? crypto.randomUUID();
    const written = await deps.tenant.tx(async (sql) => {
      if (
        !(await writeRow(sql, deps.tenant.tenantId, id, spec.id, prior, { spec_version: pinned, accepted_version: version, config, job_bindings: jobBindings }))
      )
        return LOST;
      const { policyId, bound } = await bindAppPolicies(sql, deps.caller, { activationId: id, specName: spec.name, doc, choice: input, prior });
      await sql.query(`UPDATE app_activations SET policy_id = $1, policy_bound = $2 WHERE id = $3`, [policyId, bound, id]);
      return (await activationRow(sql, spec.id))!;
    });
    return written === LOST ? LOST : activationView({ spec, activation: written, version, pending });
  });
}
