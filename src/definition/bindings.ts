// Reference steps (a `name` and no `actions`) name a job, not a version. Each
// save of a workflow binds every reference step to the latest active version
// of its job in the tenant, and keeps that map on the saved version
// (`workflow_versions.job_refs`), so a later publish of the job reaches a
// workflow only when the workflow is saved again.
import type { Sql } from "../db/client";

/** Reference step id → job definition id. */
export type JobRefs = Record<string, string>;

/**
 * The part of a workflow document binding reads. The document may be one
 * that failed its checks (the validate route binds it to report every
 * problem), so nothing in it is trusted to have its declared shape.
 */
export interface StepList {
  jobs?: unknown;
}

interface ReferenceStep {
  stepId: string;
  name: string;
}

function referenceSteps(definition: StepList): ReferenceStep[] {
  if (!Array.isArray(definition.jobs)) return [];
  return definition.jobs.flatMap((step: unknown) => {
    if (step === null || typeof step !== "object") return [];
    const { id, name, actions } = step as Record<string, unknown>;
    return actions === undefined && typeof id === "string" && typeof name === "string" ? [{ stepId: id, name }] : [];
  });
}

/**
 * Binds each reference step whose name has a published job; a name with
 * none stays unbound and saves (a job may be published later): activation
 * names such a step in its warnings, and a run fails that step.
 */
export async function bindJobRefs(sql: Sql, definition: StepList): Promise<JobRefs> {
  const steps = referenceSteps(definition);
  if (!steps.length) return {};
  const names = [...new Set(steps.map((s) => s.name))];
  const { rows } = await sql.query<{ id: string; name: string }>(
    `SELECT DISTINCT ON (name) id, name FROM job_definitions
      WHERE name = ANY($1::text[]) AND status = 'active'
      ORDER BY name, version DESC`,
    [names],
  );
  const latest = new Map(rows.map((r) => [r.name, r.id]));
  return Object.fromEntries(steps.flatMap((step) => (latest.has(step.name) ? [[step.stepId, latest.get(step.name)!]] : [])));
}
