// Workflow definitions: each save (create or update) checks the document,
// binds its reference steps to jobs, moves the definition to its next version
// and records that version with its bindings in `workflow_versions`.
import { and, count, desc, eq, sql as dsql } from "drizzle-orm";
import type { Sql, TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { workflowDefinitions, workflowVersions } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { checkWorkflowDefinition, workflowProblems } from "./language/validate";
import { bindJobRefs, type JobRefs } from "./bindings";
import type { FromSchema } from "json-schema-to-ts";
import type { workflowBody } from "./schemas";

export type WorkflowInput = FromSchema<typeof workflowBody, { keepDefaultedPropertiesOptional: true }>;

const columns = {
  id: workflowDefinitions.id,
  tenant_id: workflowDefinitions.tenantId,
  name: workflowDefinitions.name,
  description: workflowDefinitions.description,
  status: workflowDefinitions.status,
  version: workflowDefinitions.version,
  definition_json: workflowDefinitions.definitionJson,
  source_yaml: workflowDefinitions.sourceYaml,
  created_at: workflowDefinitions.createdAt,
  updated_at: workflowDefinitions.updatedAt,
};

type Stamped = { tenant_id: string; source_yaml: string | null; created_at: string; updated_at: string };

/**
 * The answered form: `source_yaml` only when the definition was saved from
 * YAML, the current version's bindings, and `source_type: "shared"` on a
 * definition another tenant shares with the caller's.
 */
function present<R extends Stamped>(row: R, jobRefs: unknown, tenantId: string) {
  const { tenant_id, source_yaml, created_at, updated_at, ...head } = row;
  return {
    ...head,
    ...(source_yaml === null ? {} : { source_yaml }),
    job_refs: jobRefs as JobRefs,
    ...(tenant_id === tenantId ? {} : { source_type: "shared" as const }),
    created_at,
    updated_at,
  };
}

/**
 * A write to a definition: 404 for none the caller can see, 403 for one
 * another tenant shares with it (row-level security lets it read the row,
 * never change it).
 */
async function ownDefinition(sql: Sql, tenantId: string, id: string, write: "changed" | "deleted"): Promise<void> {
  const [row] = await sql.db.select({ tenantId: workflowDefinitions.tenantId }).from(workflowDefinitions).where(eq(workflowDefinitions.id, id));
  if (!row) throw notFound("Workflow", id);
  if (row.tenantId !== tenantId)
    throw new ApiError("FORBIDDEN", `Workflow ${id} is shared with this tenant by another; it cannot be ${write} here`, { workflow_id: id });
}

function nameTaken(e: unknown, name: string): unknown {
  return pgCode(e) === "23505" ? new ApiError("CONFLICT", `Workflow ${name} already exists`, { name }) : e;
}

async function recordVersion(sql: Sql, tenantId: string, row: { id: string; version: number; definition_json: unknown }, jobRefs: JobRefs) {
  await sql.db.insert(workflowVersions).values({ tenantId, workflowId: row.id, version: row.version, definitionJson: row.definition_json, jobRefs });
}

export async function createWorkflow(tenant: TenantDb, input: WorkflowInput) {
  const { definition, sourceYaml } = checkWorkflowDefinition(input);
  try {
    return await tenant.tx(async (sql) => {
      const jobRefs = await bindJobRefs(sql, definition);
      const [row] = await sql.db
        .insert(workflowDefinitions)
        .values({
          tenantId: tenant.tenantId,
          name: input.name,
          description: input.description ?? null,
          definitionJson: definition,
          sourceYaml: sourceYaml ?? null,
        })
        .returning(columns);
      await recordVersion(sql, tenant.tenantId, row, jobRefs);
      return present(row, jobRefs, tenant.tenantId);
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/** A save replaces name, description and document; the status stays (activation moves it). */
export async function updateWorkflow(tenant: TenantDb, id: string, input: WorkflowInput) {
  const { definition, sourceYaml } = checkWorkflowDefinition(input);
  try {
    return await tenant.tx(async (sql) => {
      await ownDefinition(sql, tenant.tenantId, id, "changed");
      // The row lock orders concurrent saves, so each takes its own next version.
      const [current] = await sql.db.select({ id: workflowDefinitions.id }).from(workflowDefinitions).where(eq(workflowDefinitions.id, id)).for("update");
      if (!current) throw notFound("Workflow", id);
      const jobRefs = await bindJobRefs(sql, definition);
      const [row] = await sql.db
        .update(workflowDefinitions)
        .set({
          name: input.name,
          description: input.description ?? null,
          definitionJson: definition,
          sourceYaml: sourceYaml ?? null,
          version: dsql`${workflowDefinitions.version} + 1`,
          updatedAt: dsql`now()`,
        })
        .where(eq(workflowDefinitions.id, id))
        .returning(columns);
      await recordVersion(sql, tenant.tenantId, row, jobRefs);
      return present(row, jobRefs, tenant.tenantId);
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/** Every problem a save would refuse, without saving. */
export function validateWorkflow(input: Omit<WorkflowInput, "name">) {
  const { problems: errors, secretRef } = workflowProblems(input);
  return { valid: errors.length === 0, errors, ...(secretRef ? { code: "SECRET_REF_IN_DEFINITION" as const } : {}) };
}

const withRefs = { ...columns, job_refs: workflowVersions.jobRefs };
const currentVersion = and(eq(workflowVersions.workflowId, workflowDefinitions.id), eq(workflowVersions.version, workflowDefinitions.version));

export async function getWorkflow(tenant: TenantDb, id: string) {
  const [row] = await tenant.tx(({ db }) =>
    db.select(withRefs).from(workflowDefinitions).innerJoin(workflowVersions, currentVersion).where(eq(workflowDefinitions.id, id)),
  );
  if (!row) throw notFound("Workflow", id);
  const { job_refs, ...definition } = row;
  return present(definition, job_refs, tenant.tenantId);
}

export async function listWorkflows(tenant: TenantDb, filter: { name?: string }, page: Page) {
  return tenant.tx(async ({ db }) => {
    const where = filter.name === undefined ? undefined : eq(workflowDefinitions.name, filter.name);
    const rows = await db
      .select(withRefs)
      .from(workflowDefinitions)
      .innerJoin(workflowVersions, currentVersion)
      .where(where)
      .orderBy(desc(workflowDefinitions.createdAt), desc(workflowDefinitions.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(workflowDefinitions).where(where);
    return paginated(
      rows.map(({ job_refs, ...definition }) => present(definition, job_refs, tenant.tenantId)),
      page,
      total,
    );
  });
}

/**
 * Its versions, activation, triggers, cron schedules and runs go with it
 * (foreign keys cascade), the activations, triggers and runs other tenants
 * kept after their share was revoked too. A workflow that tenants it is
 * still shared with have activated is 409 CONFLICT with their count: revoke
 * those shares first.
 */
export async function deleteWorkflow(tenant: TenantDb, id: string): Promise<void> {
  await tenant.tx(async (sql) => {
    await ownDefinition(sql, tenant.tenantId, id, "deleted");
    const { rows } = await sql.query<{ activations: number }>(`SELECT platform_workflow_activations_elsewhere($1) AS activations`, [id]);
    const activations = rows[0].activations;
    if (activations > 0) {
      throw new ApiError(
        "CONFLICT",
        `Workflow ${id} is activated by ${activations} other tenant${activations === 1 ? "" : "s"} it is shared with; revoke those shares to delete it`,
        {
          workflow_id: id,
          activations,
        },
      );
    }
    await sql.db.delete(workflowDefinitions).where(eq(workflowDefinitions.id, id));
  });
}
