// What a workflow's runs need of their policy, read from the definition as
// activation pins it: each action's declared permissions (its module in the
// catalog), for inline jobs and for the published jobs reference steps are
// bound to, and the reference steps bound to no job.
import type { Sql } from "../../db/client";
import { holdsPermission, type Principal } from "../../lib/principal";
import { catalog } from "../actions/catalog";
import type { ActionName } from "../../definition/language/workflow-schema";
import { isObject } from "../../lib/is-object";

interface Step {
  id: string;
  name?: string;
  actions?: unknown[];
}

export interface Needs {
  /** Sorted; a narrowed `entity:<action>:<type>` is left out when `entity:<action>` is needed anyway. */
  permissions: string[];
  /** Permission → the actions needing it, as `<action name> in step <id>`. */
  neededBy: Map<string, string[]>;
  /** Reference steps bound to no published job. */
  unbound: { stepId: string; jobName: string }[];
}

/** The job documents the version's reference steps are bound to (its save's refs under the activation's bindings), by step id. */
export async function boundJobs(
  sql: Sql,
  workflowId: string,
  version: number,
  bindings: Record<string, string>,
): Promise<Record<string, { actions?: unknown[] }>> {
  const { rows } = await sql.query<{ step_id: string; definition_json: { actions?: unknown[] } }>(
    `SELECT b.key AS step_id, j.definition_json
       FROM workflow_versions v
       CROSS JOIN LATERAL jsonb_each_text(v.job_refs || $3::jsonb) b
       JOIN job_definitions j ON j.id::text = b.value
      WHERE v.workflow_id = $1 AND v.version = $2`,
    [workflowId, version, JSON.stringify(bindings)],
  );
  return Object.fromEntries(rows.map((r) => [r.step_id, r.definition_json]));
}

function collect(actions: unknown, stepId: string, into: Map<string, string[]>): void {
  if (!Array.isArray(actions)) return;
  for (const action of actions) {
    if (!isObject(action)) continue;
    const module = catalog[action.name as ActionName];
    // A whole-config template is read as an empty config: whatever it names is known only when it runs.
    if (module)
      for (const p of module.permissions(isObject(action.config) ? action.config : {}))
        into.set(p, [...(into.get(p) ?? []), `${module.name} in step ${stepId}`]);
    collect(action.onSuccess, stepId, into);
    collect(action.onError, stepId, into);
  }
}

export function needsOf(steps: Step[], jobs: Record<string, { actions?: unknown[] }>): Needs {
  const neededBy = new Map<string, string[]>();
  const unbound: Needs["unbound"] = [];
  for (const step of steps) {
    if (step.actions) collect(step.actions, step.id, neededBy);
    else if (jobs[step.id]) collect(jobs[step.id].actions, step.id, neededBy);
    else if (step.name !== undefined) unbound.push({ stepId: step.id, jobName: step.name });
  }
  for (const p of neededBy.keys()) {
    const [resource, action, ...rest] = p.split(":");
    if (rest.length && neededBy.has(`${resource}:${action}`)) neededBy.delete(p);
  }
  return { permissions: [...neededBy.keys()].sort(), neededBy, unbound };
}

/** The needed permissions `holder` lacks, in order. */
export function lacking(holder: Pick<Principal, "permissions" | "scoped">, needs: Needs): string[] {
  return needs.permissions.filter((p) => !holdsPermission(holder, p));
}

/** The activation's warnings: each needed permission the run's policy lacks, and each unbound reference step. */
export function warningsOf(missing: string[], needs: Needs, policy: "bound" | "none"): string[] {
  const which = policy === "none" ? "The workflow has no policy, so it lacks" : "The bound policy does not grant";
  return [
    ...missing.map((p) => `${which} ${p}, which ${needs.neededBy.get(p)!.join(", ")} needs; runs fail that action with 403 FORBIDDEN`),
    ...needs.unbound.map(
      (u) => `Step ${u.stepId} references job ${u.jobName}, which has no published version bound to it; runs fail that step with JOB_UNBOUND`,
    ),
  ];
}
