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
  index: number;
  stepId: string;
  name: string;
}

function referenceSteps(definition: StepList): ReferenceStep[] {
  if (!Array.isArray(definition.jobs)) return [];
  return definition.jobs.flatMap((step: unknown, index) => {
    if (step === null || typeof step !== "object") return [];
    const { id, name, actions } = step as Record<string, unknown>;
    return actions === undefined && typeof id === "string" && typeof name === "string" ? [{ index, stepId: id, name }] : [];
  });
}

/**
 * Binds the reference steps; a name with no published job is a problem line
 * naming the step (`definition_json.jobs[2].name: ...`), since a binding
 * needs a job to point at.
 */
export async function bindJobRefs(sql: Sql, definition: StepList): Promise<{ refs: JobRefs; problems: string[] }> {
  const steps = referenceSteps(definition);
  if (!steps.length) return { refs: {}, problems: [] };
  const names = [...new Set(steps.map((s) => s.name))];
  const { rows } = await sql.query<{ id: string; name: string }>(
    `SELECT DISTINCT ON (name) id, name FROM job_definitions
      WHERE name = ANY($1::text[]) AND status = 'active'
      ORDER BY name, version DESC`,
    [names],
  );
  const latest = new Map(rows.map((r) => [r.name, r.id]));
  const refs: JobRefs = {};
  const problems: string[] = [];
  for (const step of steps) {
    const id = latest.get(step.name);
    if (id) refs[step.stepId] = id;
    else problems.push(`definition_json.jobs[${step.index}].name: no published job named ${JSON.stringify(step.name)}`);
  }
  return { refs, problems };
}
