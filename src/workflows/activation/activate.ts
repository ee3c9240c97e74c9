// Activation (docs/workflows.md, Activation): pins the definition's current
// version, merges env, binds jobs and the access policy runs act with (the
// one named, or the workflow's own, provisioned with what its actions need),
// and reconciles triggers and cron schedules, all in one transaction, so a
// refused activation changes nothing. Repeating an activation changes
// nothing either.
import type { Sql, TenantDb } from "../../db/client";
import type { Principal } from "../../lib/principal";
import { ApiError, notFound } from "../../lib/errors";
import { check, type JsonSchema } from "../../lib/validate";
import { latestSchema } from "../../schema/registry";
import { requireProvisionable } from "../../access/escalation";
import { grantsOf, provisionedPolicy, provisionPolicy, requireBindablePolicy } from "../../access/policies";
import { policyPrincipal } from "../../access/policy-principal";
import { boundJobs, lacking, needsOf, warningsOf, type Needs } from "./needs";
import { effectiveEnv, mergeEnv, missingEnvVars, type Env } from "../../lib/env-merge";
import { configStatus, inDefinitionOrder, reconcileTriggers, type TriggerRow } from "./triggers";
import type { TriggerBlock } from "../triggers/fire";
import type { FromSchema } from "json-schema-to-ts";
import type { activateBody } from "./schemas";

export type ActivationInput = FromSchema<typeof activateBody, { keepDefaultedPropertiesOptional: true }>;

type DefinitionRow = {
  id: string;
  /** The owner: the caller's tenant, or the one sharing the definition with it. */
  tenant_id: string;
  name: string;
  version: number;
  definition_json: {
    jobs?: { id: string; name?: string; actions?: unknown[] }[];
    triggers?: TriggerBlock[];
    config?: { env?: Env };
    configSchemas?: { env?: string };
  };
};

type ActivationRow = {
  version: number;
  env: Env;
  job_bindings: Record<string, string>;
  policy_id: string | null;
};

/**
 * The definition, locked when it is the caller's own (a lock orders the
 * owner's saves and activations). A definition another tenant shares is
 * read without one: row-level security lets the target read the owner's
 * row, never lock it, and the target's activation row orders its own writes.
 */
async function lockedDefinition(sql: Sql, workflowId: string): Promise<DefinitionRow> {
  const select = `SELECT id, tenant_id, name, version, definition_json FROM workflow_definitions WHERE id = $1`;
  const { rows } = await sql.query<DefinitionRow>(`${select} AND tenant_id = $2 FOR UPDATE`, [workflowId, sql.tenantId]);
  if (rows[0]) return rows[0];
  const shared = await sql.query<DefinitionRow>(select, [workflowId]);
  if (!shared.rows[0]) throw notFound("Workflow", workflowId);
  return shared.rows[0];
}

/** The caller's tenant's activation: row-level security confines the read to it. */
async function activationOf(sql: Sql, workflowId: string): Promise<ActivationRow | undefined> {
  const { rows } = await sql.query<ActivationRow>(`SELECT version, env, job_bindings, policy_id FROM workflow_activations WHERE workflow_id = $1`, [
    workflowId,
  ]);
  return rows[0];
}

type OwnerJobs = { version: number; jobs: Awaited<ReturnType<typeof boundJobs>> };

/**
 * The owner's jobs the current version of a definition shared with the
 * caller's tenant is bound to (a shared read: only there are the owner's
 * job definitions visible); undefined for the tenant's own definition.
 */
async function sharedBoundJobs(tenant: TenantDb, workflowId: string): Promise<OwnerJobs | undefined> {
  return tenant.sharedRead(async (sql) => {
    const { rows } = await sql.query<{ tenant_id: string; version: number }>(`SELECT tenant_id, version FROM workflow_definitions WHERE id = $1`, [workflowId]);
    if (!rows[0] || rows[0].tenant_id === tenant.tenantId) return undefined;
    return { version: rows[0].version, jobs: await boundJobs(sql, workflowId, rows[0].version, {}) };
  });
}

/** The jobs a shared definition's steps run are the owner's, bound at the owner's saves: a target cannot rebind them. */
function refuseSharedBindings(definition: DefinitionRow, tenantId: string, patch: ActivationInput["job_bindings"]): void {
  if (definition.tenant_id === tenantId || !patch || !Object.keys(patch).length) return;
  const errors = ["job_bindings: the workflow is shared with this tenant; its reference steps run the owner's jobs, bound when the owner saves it"];
  throw new ApiError("VALIDATION_FAILED", "A shared workflow's job bindings are its owner's", { errors, validation_errors: errors });
}

/** 422 naming every sentinel still unset, and every env value the env schema refuses. */
export async function checkEnv(sql: Sql, definition: DefinitionRow["definition_json"], stored: Env): Promise<void> {
  const missing = missingEnvVars(definition.config?.env, stored);
  if (missing.length) {
    const errors = missing.map((name) => `env.${name}: must be set (the definition leaves it to the activation)`);
    throw new ApiError("VALIDATION_FAILED", "Env values are missing", { missing_env_vars: missing, errors, validation_errors: errors });
  }
  const schemaName = definition.configSchemas?.env;
  if (!schemaName) return;
  const schema = await latestSchema(sql, schemaName);
  if (!schema) {
    const errors = [`definition_json.configSchemas.env: no schema named ${schemaName} is registered`];
    throw new ApiError("VALIDATION_FAILED", "The env schema is not registered", { errors, validation_errors: errors });
  }
  const errors = check(schema.schema as JsonSchema, effectiveEnv(definition.config?.env, stored), "env");
  if (errors.length) throw new ApiError("VALIDATION_FAILED", `Env does not satisfy schema ${schemaName}`, { errors, validation_errors: errors });
}

/** Bindings merge like env; each names a reference step of the definition and a published job. */
async function mergeBindings(sql: Sql, definition: DefinitionRow["definition_json"], stored: Record<string, string>, patch: ActivationInput["job_bindings"]) {
  if (!patch) return stored;
  const merged = mergeEnv(stored, patch) as Record<string, string>;
  const referenceSteps = new Set((definition.jobs ?? []).filter((j) => !j.actions).map((j) => j.id));
  const errors = Object.keys(patch)
    .filter((step) => patch[step] !== null && !referenceSteps.has(step))
    .map((step) => `job_bindings.${step}: not a reference step of the definition`);
  const wanted = Object.values(merged);
  if (wanted.length) {
    const { rows } = await sql.query<{ id: string }>(`SELECT id FROM job_definitions WHERE id = ANY($1::uuid[])`, [wanted]);
    const known = new Set(rows.map((r) => r.id));
    for (const [step, id] of Object.entries(merged)) if (!known.has(id)) errors.push(`job_bindings.${step}: no job definition ${id}`);
  }
  if (errors.length) throw new ApiError("VALIDATION_FAILED", "Job bindings failed validation", { errors, validation_errors: errors });
  return merged;
}

export function triggerView(row: TriggerRow, origin: string) {
  return {
    id: row.key,
    trigger_id: row.id,
    type: row.type,
    enabled: row.enabled,
    ...(row.type === "webhook" && { webhook_url: `${origin}/workflows/hooks/${row.id}` }),
    config_status: configStatus(row),
  };
}

function activationView(workflowId: string, definition: DefinitionRow["definition_json"], activation: ActivationRow, triggers: TriggerRow[], origin: string) {
  return {
    workflow_id: workflowId,
    status: "active" as const,
    version: activation.version,
    env: effectiveEnv(definition.config?.env, activation.env),
    job_bindings: activation.job_bindings,
    policy_id: activation.policy_id,
    triggers: triggers.map((t) => triggerView(t, origin)),
  };
}

async function saveActivation(sql: Sql, tenantId: string, workflowId: string, a: ActivationRow): Promise<void> {
  await sql.query(
    `INSERT INTO workflow_activations (workflow_id, tenant_id, version, env, job_bindings, policy_id)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (tenant_id, workflow_id) DO UPDATE
        SET version = excluded.version, env = excluded.env, job_bindings = excluded.job_bindings, policy_id = excluded.policy_id,
            activated_at = CASE WHEN workflow_activations.version = excluded.version THEN workflow_activations.activated_at ELSE now() END,
            updated_at = now()`,
    [workflowId, tenantId, a.version, JSON.stringify(a.env), JSON.stringify(a.job_bindings), a.policy_id],
  );
}

/**
 * Provisions (or reconciles) the workflow's own policy: exactly what its
 * actions need, each of which the caller must hold, but for what the policy
 * already grants (someone who held it gave it before).
 */
async function provisioned(sql: Sql, caller: Principal, definition: DefinitionRow, needs: Needs): Promise<string> {
  const existing = await provisionedPolicy(sql.db, definition.id);
  await requireProvisionable(
    sql,
    caller,
    [{ existing: existing?.id, permissions: needs.permissions }],
    (permission) =>
      `Activating would give the workflow's runs ${permission}, which the caller does not hold; bind a policy with policy_id, or activate as someone who holds it`,
  );
  return provisionPolicy(sql.db, sql.tenantId!, definition.id, `workflow:${definition.name}`, grantsOf(needs.permissions));
}

export async function activateWorkflow(tenant: TenantDb, caller: Principal, workflowId: string, input: ActivationInput, origin: string, now: Date) {
  const ownerJobs = await sharedBoundJobs(tenant, workflowId);
  return tenant.tx(async (sql) => {
    const definition = await lockedDefinition(sql, workflowId);
    const shared = definition.tenant_id !== tenant.tenantId;
    if (shared && ownerJobs?.version !== definition.version) {
      throw new ApiError("CONFLICT", `Workflow ${workflowId} changed while it was being activated; activate it again`, { workflow_id: workflowId });
    }
    refuseSharedBindings(definition, tenant.tenantId, input.job_bindings);
    const prior = await activationOf(sql, workflowId);
    const doc = definition.definition_json;
    const env = mergeEnv(prior?.env ?? {}, input.env);
    await checkEnv(sql, doc, env);
    const jobBindings = await mergeBindings(sql, doc, prior?.job_bindings ?? {}, input.job_bindings);
    const needs = needsOf(doc.jobs ?? [], shared ? ownerJobs!.jobs : await boundJobs(sql, workflowId, definition.version, jobBindings));
    if (input.policy_id) await requireBindablePolicy(sql.db, caller, input.policy_id);
    // Left out on a workflow with no policy, or with the one it provisioned: its own policy, reconciled.
    const bound = input.policy_id === undefined ? (prior?.policy_id ?? null) : input.policy_id;
    const own = input.policy_id === undefined && (bound === null || bound === (await provisionedPolicy(sql.db, workflowId))?.id);
    const policyId = own ? await provisioned(sql, caller, definition, needs) : bound;
    const activation: ActivationRow = { version: definition.version, env, job_bindings: jobBindings, policy_id: policyId };
    await saveActivation(sql, tenant.tenantId, workflowId, activation);
    const triggers = await reconcileTriggers(sql, tenant.tenantId, workflowId, doc.triggers ?? [], now, shared);
    // The owner's status: a target's activation leaves the shared definition as it is.
    if (!shared) await sql.query(`UPDATE workflow_definitions SET status = 'active' WHERE id = $1 AND status <> 'active'`, [workflowId]);
    const missing = lacking(await policyPrincipal(sql, policyId), needs);
    return {
      ...activationView(workflowId, doc, activation, triggers, origin),
      required_permissions: needs.permissions,
      warnings: warningsOf(missing, needs, policyId === null ? "none" : "bound"),
    };
  });
}

/** Env and job bindings of an activated workflow; a write carrying only job_bindings leaves env untouched. */
export async function configureWorkflow(tenant: TenantDb, workflowId: string, input: Omit<ActivationInput, "policy_id">, origin: string) {
  return tenant.tx(async (sql) => {
    refuseSharedBindings(await lockedDefinition(sql, workflowId), tenant.tenantId, input.job_bindings);
    const prior = await activationOf(sql, workflowId);
    if (!prior) throw new ApiError("CONFLICT", `Workflow ${workflowId} is not activated; activate it first`, { workflow_id: workflowId });
    // Env and bindings follow the activated version, not a later unactivated save.
    const { rows } = await sql.query<{ definition_json: DefinitionRow["definition_json"] }>(
      `SELECT definition_json FROM workflow_versions WHERE workflow_id = $1 AND version = $2`,
      [workflowId, prior.version],
    );
    const doc = rows[0].definition_json;
    const env = mergeEnv(prior.env, input.env);
    await checkEnv(sql, doc, env);
    const activation: ActivationRow = { ...prior, env, job_bindings: await mergeBindings(sql, doc, prior.job_bindings, input.job_bindings) };
    await saveActivation(sql, tenant.tenantId, workflowId, activation);
    const triggers = await sql.query<TriggerRow>(
      `SELECT id, key, type, enabled, definition, secret_ciphertext IS NOT NULL AS has_secret FROM workflow_triggers WHERE workflow_id = $1`,
      [workflowId],
    );
    return activationView(workflowId, doc, activation, inDefinitionOrder(triggers.rows, doc.triggers ?? []), origin);
  });
}
