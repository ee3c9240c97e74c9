// Workflow actions inside an app's request: what the `actions` and `job`
// commands run, synchronously, while the render waits. The one entry the apps
// area uses. A command's list is one job walked by the run walker
// (engine/walk.ts) with in-memory effects, so `if`, `errorWhen`, `onSuccess`,
// `onError`, `errorPolicy`, the job's `input` and `output` and the config
// resolution are the run's own; each action goes through the catalog
// (actions/catalog.ts) as a run's does: its config schema, the permission
// check of its declaration against the app user's principal, its result cap.
// What differs is decided here, before an action runs: the command's
// permission set, no action that waits, and no action started past the
// request's deadline; the context carries the deadline, so an `http` action
// retries as a `$http` source does (lib/outbound/within-deadline.ts).
import type { Database, TenantDb } from "../db/client";
import { visibleJobs } from "../definition/jobs";
import { WAITING_ACTIONS, type ActionName, type JobDocument } from "../definition/language/workflow-schema";
import type { Principal } from "../lib/principal";
import type { Clock } from "../lib/clock";
import { errorValue, type ErrorValue } from "../lib/errors";
import type { AuthProfile } from "../lib/outbound/profile-schema";
import type { Redactor } from "../lib/redact";
import type { EvaluationBudget, Scope } from "../lib/smart-values";
import { resolveSchemaName } from "../schema/registry";
import { executeAction } from "./actions/catalog";
import { requestActionContext, requestDeadlinePassed } from "./actions/context";
import { Walker } from "./engine/walk";
import type { ActionDocument, ActionInvocation, ActionOutcome, Effects, Journal, RunDocument } from "./engine/types";
import { handOverRuns } from "./runs/run-client";

export type { ActionDocument };

/** The catalog actions that write data: what the `readonly` set refuses, and what makes the render read its sources again. */
export const WRITING_ACTIONS: ReadonlySet<ActionName> = new Set<ActionName>([
  "upsertEntity",
  "removeEntities",
  "upsertRelationship",
  "removeRelationships",
  "syncRelationships",
  "uploadArtifact",
  "uploadTempFile",
  "importEntitiesFromCsv",
]);

/** What `readonly` refuses besides the writing actions: a run started from a request writes once the request is gone. */
const NEEDS_DATA_MUTATION: ReadonlySet<ActionName> = new Set<ActionName>([...WRITING_ACTIONS, "invokeWorkflow"]);

export type PermissionSet = "readonly" | "dataMutation";

/** Everything a list of actions inside a request runs with. */
export interface InlineEnvironment {
  /** Names the run of the list in what actions derive from a run id (an `http` action's Idempotency-Key, a child run's idempotency key). */
  requestId: string;
  /** What the job's `input` resolves against: the command's scope (render context, `page`, `outputs`, `payload`). */
  scope: Scope;
  /** The app user: every action acts with its permissions, narrowed by the permission set. */
  principal: Principal;
  /** The request's tenant, unconfined; the actions' services confine it to `principal`. */
  tenant: TenantDb;
  bindings: Env;
  database: Database;
  /** Where work that outlives the request goes (its waitUntil): the start of a child run, which the request hands over without waiting for it. */
  background: Pick<ExecutionContext, "waitUntil">;
  clock: Clock;
  /** The request's expression budget: every expression of the list draws from it. */
  budget: EvaluationBudget;
  /** Epoch ms: no action starts, and no outbound attempt or retry goes, past it. */
  deadline: number;
  /** The request's secrets: what the list computes from one is added, and the result is masked with it. */
  secrets: Redactor;
  /** The spec's root `auth` profiles. */
  authProfiles: Record<string, AuthProfile>;
  /** The spec's `functions`, callable as `$<name>(...)`. */
  functions?: Readonly<Record<string, string>>;
}

export interface InlinePermissions {
  permissionSet: PermissionSet;
  /** Action names allowed besides the set's. */
  additionalAllowed?: readonly string[];
  /** Action names refused whatever the set says. */
  denied?: readonly string[];
}

/** A job's body: its actions and contract, as `jobs.<key>` or a published job holds them. */
export type InlineJobBody = Pick<JobDocument, "actions" | "input" | "output" | "inputSchema" | "outputSchema" | "inputSchemaName" | "outputSchemaName">;

/** `wrote`: a writing action ran, so what the render read before may have changed. */
export type InlineResult = { status: "success"; output: unknown; wrote: boolean } | { status: "error"; error: ErrorValue; wrote: boolean };

/** A refusal of the permission set, before the action runs. */
function refusal(name: string, p: InlinePermissions): ErrorValue | undefined {
  if (p.denied?.includes(name)) {
    return errorValue("FORBIDDEN", `Action ${name} is denied by the command (permission set ${p.permissionSet})`, {
      action: name,
      permission_set: p.permissionSet,
    });
  }
  if (p.permissionSet === "dataMutation" || p.additionalAllowed?.includes(name) || !NEEDS_DATA_MUTATION.has(name as ActionName)) return undefined;
  return errorValue("FORBIDDEN", `Action ${name} is not allowed by the permission set ${p.permissionSet}; it needs dataMutation or additionalAllowed`, {
    action: name,
    permission_set: p.permissionSet,
  });
}

/** Whether the permission set lets the action run: what an app's consent compares between spec versions. */
export function permits(p: InlinePermissions, name: string): boolean {
  return refusal(name, p) === undefined;
}

/** A failure that is a refusal before anything was written: the entity services refuse whole (a 403, a body that fails its checks). */
const refusedWhole = (outcome: ActionOutcome) => outcome.kind === "error" && (outcome.error.code === "FORBIDDEN" || outcome.error.code === "VALIDATION_FAILED");

/** The walker's effects for one list: records kept in memory only, each action checked against the set and executed to its end. */
function inlineEffects(env: InlineEnvironment, permissions: InlinePermissions, wrote: { value: boolean }): Effects {
  const ctx = requestActionContext({
    requestId: env.requestId,
    tenant: env.tenant,
    principal: env.principal,
    bindings: env.bindings,
    database: env.database,
    now: () => env.clock.now(),
    redactor: env.secrets,
    handOver: (runs) => handOverRuns(env.bindings, env.background, runs),
    authProfiles: env.authProfiles,
    profileScope: env.scope,
    deadline: env.deadline,
  });
  const execute = async (invocation: ActionInvocation): Promise<ActionOutcome> => {
    const name = invocation.action.name;
    if (WAITING_ACTIONS.has(name)) {
      return {
        kind: "error",
        error: errorValue(
          "UNPROCESSABLE_ENTITY",
          `Action ${name} waits for a later event, but actions inside a request run synchronously; run it from a workflow`,
          { action: name },
        ),
      };
    }
    const refused = refusal(name, permissions);
    if (refused) return { kind: "error", error: refused };
    if (env.clock.now() >= env.deadline) return { kind: "error", error: requestDeadlinePassed(name) };
    const outcome = await executeAction(invocation, ctx);
    if (WRITING_ACTIONS.has(name) && !refusedWhole(outcome)) wrote.value = true;
    return outcome;
  };
  return {
    now: () => env.clock.now(),
    secrets: env.secrets,
    recordStep: async () => undefined,
    recordAction: async () => undefined,
    execute,
    schema: (name) => env.tenant.tx((sql) => resolveSchemaName(sql, name)),
  };
}

/** One job walked in memory: its output, or the error that ended it; anything a secret reached masked. */
async function walkJob(id: string, job: InlineJobBody, env: InlineEnvironment, permissions: InlinePermissions): Promise<InlineResult> {
  const doc: RunDocument = {
    runId: env.requestId,
    tenantId: env.tenant.tenantId,
    workflowId: env.requestId,
    workflowVersion: 0,
    definition: { jobs: [{ ...job, id }] },
    env: {},
    policyId: null,
    context: {},
  };
  const journal: Journal = { steps: {}, actions: {} };
  const wrote = { value: false };
  await new Walker(doc, journal, inlineEffects(env, permissions, wrote), { scope: env.scope, budget: env.budget, functions: env.functions }).walk();
  const rec = journal.steps[id];
  if (rec?.status === "success") return { status: "success", output: env.secrets.value(rec.output), wrote: wrote.value };
  // Nothing here waits (the effects never answer `wait`), so the walk decided the job.
  if (rec?.status !== "error" || !rec.error) throw new Error(`the walk of inline job ${id} ended with it ${rec?.status ?? "unstarted"}`);
  return { status: "error", error: env.secrets.value(rec.error), wrote: wrote.value };
}

/**
 * An `actions` command: its list as one job, `input` resolved against the
 * command's scope, `output` (default: the results by `stepId`) against
 * `input` and `outputs`, under the command's permission set.
 */
export function runInlineActions(
  command: { actions: ActionDocument[]; input?: unknown; output?: unknown } & InlinePermissions,
  env: InlineEnvironment,
): Promise<InlineResult> {
  const { actions, input, output, ...permissions } = command;
  return walkJob("actions", { actions, input, output }, env, permissions);
}

/** Where a `job` command's job comes from: `jobs.<key>`'s inline body, or the job its slot is bound to (none: unbound). */
export type InlineJobSource =
  | { key: string; body: InlineJobBody }
  | {
      key: string;
      /** The job definition id bound to the slot (the integration's binding, else the activation's). */
      bound: string | undefined;
    };

/**
 * A `job` command: the job `input` given (resolved against the command's
 * scope) in place of the job's own, under `readonly` plus
 * `additionalAllowed` minus `denied`. An unbound slot fails with
 * JOB_SLOT_UNBOUND; a binding to a job the tenant cannot see (any longer: a
 * share withdrawn since it was bound), with 404, as the binding's own check
 * would refuse it now.
 */
export async function runInlineJob(
  command: { job: InlineJobSource; input?: unknown; additionalAllowed?: readonly string[]; denied?: readonly string[] },
  env: InlineEnvironment,
): Promise<InlineResult> {
  const { job, input, additionalAllowed, denied } = command;
  const permissions: InlinePermissions = { permissionSet: "readonly", additionalAllowed, denied };
  let body: InlineJobBody;
  if ("body" in job) body = job.body;
  else {
    if (job.bound === undefined) {
      const message = `Job slot ${job.key} is not bound to a job; bind one with job_bindings on the app's config or its integration`;
      return { status: "error", error: errorValue({ code: "JOB_SLOT_UNBOUND", slot: job.key }, message), wrote: false };
    }
    const [found] = await visibleJobs(env.tenant, [job.bound]);
    if (!found)
      return {
        status: "error",
        error: errorValue("NOT_FOUND", `Job ${job.bound}, bound to slot ${job.key}, was not found`, { slot: job.key, job_id: job.bound }),
        wrote: false,
      };
    body = found.definition_json as JobDocument;
  }
  return walkJob(job.key, input === undefined ? body : { ...body, input }, env, permissions);
}
