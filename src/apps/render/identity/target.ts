// What a render is aimed at, from the integration id in its path alone: the
// integration, its activation, the spec version that activation uses (the
// pinned one; else the latest on the owner's own, and on a consumer's the
// newest its consent reaches, ../../consent.ts) and the provider its company
// is registered under. Read as the connecting role: the tenant is not known before the
// credential is checked, and the credential is checked against these rows.
// The same read gives what the render then needs of them (../contracts.ts
// RenderApp), so the render loads none of them again.
import type { Sql } from "../../../db/client";
import { isUuid } from "../../../lib/ids";
import { versionInUse } from "../../consent";
import { keptSince, type SpecDocument } from "../../spec";
import type { RenderApp } from "../contracts";
import type { Provider } from "./provider";

type TargetDocument = SpecDocument & { providers?: Record<string, Provider>; policies?: Record<string, unknown> };

export interface RenderTarget {
  tenantId: string;
  integrationId: string;
  activationId: string;
  specId: string;
  specVersion: number;
  /** The document of that version. */
  specDocument: TargetDocument;
  /** The policy the activation binds (its users' permissions when the spec declares `policies`). */
  policyId: string | null;
  allowedOrigins: string[];
  isEnabled: boolean;
  externalCompanyId: string;
  companyExternalId: string;
  companyActive: boolean;
  /** The company's `provider`: the key of the spec's `providers` the render reads. */
  providerName: string;
  /** Undefined when the spec version has no provider of that name (the integration was made under another version). */
  provider: Provider | undefined;
  /** Whether the tenant's own reads see the spec (its own, or shared to it): a render of one it no longer sees is 404. */
  specVisible: boolean;
  /** What the render reads of the activation and integration. */
  app: RenderApp;
  /** The versions of the rows it was read from (targetCurrent). */
  versions: string;
}

/** The rows a target is read from: the integration, its activation and company, the spec and the version in use. */
const TARGET_ROWS = `
    FROM app_integrations i
    JOIN app_activations a ON a.id = i.activation_id AND a.tenant_id = i.tenant_id
    JOIN external_companies c ON c.id = i.external_company_id AND c.tenant_id = i.tenant_id
    JOIN app_specs s ON s.id = a.spec_id
    JOIN app_spec_versions v ON v.spec_id = a.spec_id
     AND v.version = coalesce(a.spec_version, CASE WHEN s.tenant_id = a.tenant_id THEN s.version ELSE a.accepted_version END)
   WHERE i.id = $1`;

/**
 * The versions of those rows (xmin: any change to a row gives it another)
 * and whether the spec is visible (a share withdrawn or given), read in the
 * same statement as the target, so a cached target is proved current by
 * reading them again (identity/cache.ts). A newer spec version changes the
 * spec's row, a consent its activation's.
 */
/** Whether the tenant's own reads see the spec: its own, or shared to it for read. */
const SPEC_VISIBLE = `s.tenant_id = a.tenant_id OR EXISTS (
           SELECT 1 FROM shares sh
            WHERE sh.target_tenant_id = a.tenant_id AND sh.tenant_id = s.tenant_id AND sh.resource_type = 'spec' AND sh.resource_id = s.id AND 'read' = ANY (sh.actions)
         )`;

const TARGET_VERSIONS = `concat_ws(':', i.xmin, a.xmin, c.xmin, s.xmin, v.xmin, ${SPEC_VISIBLE})`;

/** SQL: whether the target `$1` is still at versions `$<versions>`. */
export const targetCurrent = (versions: string) => `(SELECT ${TARGET_VERSIONS} ${TARGET_ROWS}) IS NOT DISTINCT FROM ${versions}`;

const TARGET = `
  SELECT i.id, i.tenant_id, i.activation_id, i.allowed_origins, i.is_enabled, i.external_company_id,
         c.provider, c.external_id AS company_external_id, c.is_active AS company_active,
         a.spec_id, a.policy_id, v.version AS spec_version, v.spec_document,
         a.spec_version IS NULL AND s.tenant_id <> a.tenant_id AND s.version > a.accepted_version AS consent_pending,
         a.config AS activation_config, a.job_bindings AS activation_job_bindings, i.config AS integration_config, i.job_bindings AS integration_job_bindings,
         ${SPEC_VISIBLE} AS spec_visible,
         ${TARGET_VERSIONS} AS versions
  ${TARGET_ROWS}`;

interface TargetRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  activation_id: string;
  allowed_origins: string[];
  is_enabled: boolean;
  external_company_id: string;
  provider: string;
  company_external_id: string;
  company_active: boolean;
  spec_id: string;
  policy_id: string | null;
  spec_version: number;
  spec_document: TargetDocument;
  /** Versions newer than the accepted one exist for a consumer's unpinned activation: which it uses needs their documents. */
  consent_pending: boolean;
  activation_config: Record<string, unknown>;
  activation_job_bindings: Record<string, string>;
  integration_config: Record<string, unknown>;
  integration_job_bindings: Record<string, string>;
  /** The spec as the tenant's own reads see it (app_specs_visible): its own, or shared to it for read. */
  spec_visible: boolean;
  versions: string;
}

/** The render's target, or undefined when no integration has this id; `lookups` reads as the connecting role (Database.lookup). */
export async function loadTarget(lookups: Sql, integrationId: string): Promise<RenderTarget | undefined> {
  if (!isUuid(integrationId)) return undefined;
  const [row] = (await lookups.query<TargetRow>(TARGET, [integrationId])).rows;
  if (!row) return undefined;
  let version = row.spec_version;
  let document = row.spec_document;
  if (row.consent_pending) {
    const [accepted, ...newer] = await keptSince<TargetDocument>(lookups, row.spec_id, row.spec_version);
    ({ version } = versionInUse(accepted, newer));
    document = [accepted, ...newer].find((k) => k.version === version)!.document;
  }
  const providers = document.providers ?? {};
  return {
    tenantId: row.tenant_id,
    integrationId: row.id,
    activationId: row.activation_id,
    specId: row.spec_id,
    specVersion: version,
    specDocument: document,
    policyId: row.policy_id,
    allowedOrigins: row.allowed_origins,
    isEnabled: row.is_enabled,
    externalCompanyId: row.external_company_id,
    companyExternalId: row.company_external_id,
    companyActive: row.company_active,
    providerName: row.provider,
    provider: Object.hasOwn(providers, row.provider) ? providers[row.provider] : undefined,
    specVisible: row.spec_visible,
    app: {
      inUse: document,
      activation: { id: row.activation_id, config: row.activation_config, job_bindings: row.activation_job_bindings },
      integration: { config: row.integration_config, job_bindings: row.integration_job_bindings },
    },
    versions: row.versions,
  };
}
