// Integrations: a registered external company of the tenant tied to its
// activation of a spec. The company's provider must be a key of the spec's
// `providers`; `config` is the `integration` scope; `job_bindings` win over
// the activation's. Writes are optimistically locked like every scope.
import type { FromSchema } from "json-schema-to-ts";
import type { Sql } from "../db/client";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { validationFailed } from "../lib/validate";
import { converge, LOST } from "./config/converge";
import { effectiveConfig, type ConfigObject } from "./config/merge";
import { writeScope } from "./config/scope";
import { loadInstance, type ActivationRow, type AppInstance } from "./activation";
import type { AppDeps } from "./spec";
import type { integrationChange, integrationCreate } from "./schemas";

export type IntegrationCreate = FromSchema<typeof integrationCreate>;
export type IntegrationChange = FromSchema<typeof integrationChange>;

export type IntegrationRow = {
  id: string;
  activation_id: string;
  external_company_id: string;
  provider: string;
  company_external_id: string;
  company_is_active: boolean;
  name: string | null;
  allowed_origins: string[];
  config: ConfigObject;
  job_bindings: Record<string, string>;
  is_enabled: boolean;
  revision: number;
  created_at: string;
  updated_at: string;
};

const SELECT = `
  SELECT i.id, i.activation_id, i.external_company_id, c.provider, c.external_id AS company_external_id, c.is_active AS company_is_active,
         i.name, i.allowed_origins, i.config, i.job_bindings, i.is_enabled, i.revision, i.created_at, i.updated_at
    FROM app_integrations i JOIN external_companies c ON c.id = i.external_company_id`;

export async function integrationRow(sql: Sql, activationId: string, integrationId: string): Promise<IntegrationRow | undefined> {
  const { rows } = await sql.query<IntegrationRow>(`${SELECT} WHERE i.activation_id = $1 AND i.id = $2`, [activationId, integrationId]);
  return rows[0];
}

/** Each entry an exact origin: what `new URL(entry).origin` gives back unchanged. */
function checkOrigins(origins: string[] | undefined): void {
  const errors = (origins ?? []).flatMap((o, i) => {
    let origin: string | undefined;
    try {
      origin = new URL(o).origin;
    } catch {
      origin = undefined;
    }
    return origin === o
      ? []
      : [`allowed_origins[${i}]: must be an exact origin (scheme, host and port only, lowercase, no path or trailing slash), like https://host.example:8443`];
  });
  if (errors.length) throw validationFailed(errors);
}

export async function integrationView(instance: AppInstance, row: IntegrationRow) {
  const definition = (await instance.spec.document(instance.version)).config?.integration;
  return {
    id: row.id,
    spec_id: instance.spec.id,
    activation_id: row.activation_id,
    external_company_id: row.external_company_id,
    provider: row.provider,
    company_external_id: row.company_external_id,
    name: row.name,
    allowed_origins: row.allowed_origins,
    config: row.config,
    effective_config: effectiveConfig(definition, row.config),
    job_bindings: row.job_bindings,
    is_enabled: row.is_enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The job a slot runs for renders through this integration (none in a preview): the integration's binding, else the activation's. */
export function boundJob(
  bindings: { activation: Pick<ActivationRow, "job_bindings">; integration?: Pick<IntegrationRow, "job_bindings"> },
  slot: string,
): string | undefined {
  return bindings.integration?.job_bindings[slot] ?? bindings.activation.job_bindings[slot];
}

/** The integration of the activated spec, after `app:<action>` on the activation; another tenant's or spec's is 404. */
export async function loadIntegration(deps: AppDeps, specId: string, integrationId: string, action: "read" | "update") {
  const instance = await loadInstance(deps, specId, action);
  const row = await deps.tenant.tx((sql) => integrationRow(sql, instance.activation.id, integrationId));
  if (!row) throw notFound("Integration", integrationId);
  return { instance, row };
}

export async function createIntegration(deps: AppDeps, specId: string, input: IntegrationCreate) {
  const instance = await loadInstance(deps, specId, "create");
  checkOrigins(input.allowed_origins);
  const { spec, version } = instance;
  const doc = await spec.document(version);
  const { rows } = await deps.tenant.tx((sql) =>
    sql.query<{ provider: string }>(`SELECT provider FROM external_companies WHERE id = $1`, [input.external_company_id]),
  );
  if (!rows[0])
    throw new ApiError("UNPROCESSABLE_ENTITY", `No external company ${input.external_company_id} is registered in this tenant`, {
      external_company_id: input.external_company_id,
    });
  const provider = rows[0].provider;
  if (!Object.hasOwn(doc.providers ?? {}, provider)) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `The spec declares no provider ${provider}, the external company's`, {
      provider,
      providers: Object.keys(doc.providers ?? {}),
    });
  }
  const config = writeScope(await spec.rules(version, "integration"), {}, input.config);
  await spec.checkBindings(version, input.job_bindings);
  const bindings = Object.fromEntries(Object.entries(input.job_bindings ?? {}).filter(([, id]) => id !== null));
  const row = await deps.tenant.tx(async (sql) => {
    const { rows: created } = await sql.query<{ id: string }>(
      `INSERT INTO app_integrations (tenant_id, activation_id, external_company_id, name, allowed_origins, config, job_bindings, is_enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [
        deps.tenant.tenantId,
        instance.activation.id,
        input.external_company_id,
        input.name ?? null,
        input.allowed_origins ?? [],
        JSON.stringify(config),
        JSON.stringify(bindings),
        input.is_enabled ?? true,
      ],
    );
    return (await integrationRow(sql, instance.activation.id, created[0].id))!;
  });
  return integrationView(instance, row);
}

export async function listIntegrations(deps: AppDeps, specId: string, page: Page) {
  const instance = await loadInstance(deps, specId, "read");
  const { rows, total } = await deps.tenant.tx(async (sql) => {
    const list = await sql.query<IntegrationRow>(`${SELECT} WHERE i.activation_id = $1 ORDER BY i.created_at DESC, i.id DESC LIMIT $2 OFFSET $3`, [
      instance.activation.id,
      page.limit,
      offsetOf(page),
    ]);
    const count = await sql.query<{ total: number }>(`SELECT count(*)::int AS total FROM app_integrations WHERE activation_id = $1`, [instance.activation.id]);
    return { rows: list.rows, total: count.rows[0].total };
  });
  return paginated(await Promise.all(rows.map((r) => integrationView(instance, r))), page, total);
}

export async function getIntegration(deps: AppDeps, specId: string, integrationId: string) {
  const { instance, row } = await loadIntegration(deps, specId, integrationId, "read");
  return integrationView(instance, row);
}

/** `config` merges; `name`, `allowed_origins`, `is_enabled` and `job_bindings` replace what they name. */
export async function updateIntegration(deps: AppDeps, specId: string, integrationId: string, input: IntegrationChange) {
  checkOrigins(input.allowed_origins);
  const { instance } = await loadIntegration(deps, specId, integrationId, "update");
  await instance.spec.checkBindings(instance.version, input.job_bindings);
  const rules = await instance.spec.rules(instance.version, "integration");
  return converge(async () => {
    const prior = await deps.tenant.tx((sql) => integrationRow(sql, instance.activation.id, integrationId));
    if (!prior) throw notFound("Integration", integrationId);
    const config = writeScope(rules, prior.config, input.config);
    const bindings =
      input.job_bindings === undefined ? prior.job_bindings : Object.fromEntries(Object.entries(input.job_bindings).filter(([, id]) => id !== null));
    const row = await deps.tenant.tx(async (sql) => {
      const { rows } = await sql.query(
        `UPDATE app_integrations SET name = $1, allowed_origins = $2, config = $3, job_bindings = $4, is_enabled = $5, revision = revision + 1, updated_at = now()
          WHERE id = $6 AND revision = $7 RETURNING id`,
        [
          input.name !== undefined ? input.name : prior.name,
          input.allowed_origins ?? prior.allowed_origins,
          JSON.stringify(config),
          JSON.stringify(bindings),
          input.is_enabled ?? prior.is_enabled,
          integrationId,
          prior.revision,
        ],
      );
      return rows.length ? (await integrationRow(sql, instance.activation.id, integrationId))! : LOST;
    });
    return row === LOST ? LOST : integrationView(instance, row);
  });
}
