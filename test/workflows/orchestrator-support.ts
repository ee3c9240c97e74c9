// Driving runs' objects from tests: dispatch, kick, read the record, move the
// object's clock and fire its alarm.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { WorkflowRun } from "../../durable-objects/workflow-run";
import { isoTimestamp } from "../../src/lib/timestamps";
import { kickRuns, runObject } from "../../src/workflows/runs/run-client";
import { insertRuns } from "../../src/workflows/runs/start";
import { call, systemQuery, withSystemDb, type TenantCreds } from "../support/api";
import { activeWorkflow } from "./fixture";

/** An activated workflow with a manual webhook trigger around `jobs`. */
export async function manualWorkflow(t: TenantCreds, jobs: object[], extra: Record<string, unknown> = {}, activation?: { policy_id?: string }) {
  return activeWorkflow(t, { jobs, triggers: [{ id: "manual", webhook: { methods: ["POST"] } }], ...extra }, activation);
}

/** Dispatches a run and waits for its object to have walked it as far as it goes. */
export async function dispatched(t: TenantCreds, workflowId: string, input: unknown = {}): Promise<string> {
  const res = await call("POST", "/workflows/wr", { auth: t.auth, body: { workflow_id: workflowId, trigger_id: "manual", input } });
  if (res.status !== 202) throw new Error(`dispatch: ${res.status} ${res.text}`);
  const runId = res.json.data.workflow_run.id as string;
  // The route's own kick may still be walking; a second start waits behind it and finds nothing more to do.
  await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
  return runId;
}

/**
 * Walks the runs invokeWorkflow started below `runId`, one generation at a
 * time, and answers their ids: a parent never waits for its children, so
 * each child gets a kick of its own, which waits behind the start its parent
 * handed over and returns once the child's walk went as far as it goes.
 */
export async function descendants(t: TenantCreds, runId: string): Promise<string[]> {
  const walked: string[] = [];
  for (let generation = [runId]; generation.length; walked.push(...generation)) {
    const rows = await systemQuery<{ id: string }>(`SELECT id FROM workflow_runs WHERE parent_run_id = ANY($1::uuid[]) ORDER BY created_at, id`, [generation]);
    generation = rows.map((r) => r.id);
    await kickRuns(
      env,
      generation.map((id) => ({ tenantId: t.tenantId, runId: id })),
    );
  }
  return walked;
}

/** A run row inserted as a trigger path would, but never kicked. */
export async function insertedRun(
  t: TenantCreds,
  workflow: { id: string; activation: { version: number; triggers: { id: string; trigger_id: string; type: string }[] } },
  notBefore: number,
): Promise<string> {
  const trigger = workflow.activation.triggers[0];
  const id = crypto.randomUUID();
  await withSystemDb((db) =>
    db.system((sql) =>
      insertRuns(sql, t.tenantId, [
        {
          id,
          workflowId: workflow.id,
          workflowVersion: workflow.activation.version,
          triggerId: trigger.trigger_id,
          triggerKey: trigger.id,
          triggerType: trigger.type as "cron",
          context: { input: {}, trigger: { id: trigger.id, type: trigger.type }, run: { id } },
          notBefore: isoTimestamp(notBefore),
        },
      ]),
    ),
  );
  return id;
}

export async function runRecord(t: TenantCreds, runId: string) {
  const res = await call("GET", `/workflows/runs/workflows/${runId}`, { auth: t.auth });
  if (res.status !== 200) throw new Error(`GET run: ${res.status} ${res.text}`);
  return res.json.data;
}

export const stub = (runId: string) => runObject(env.WORKFLOW_RUN, runId);

export function inObject<R>(runId: string, fn: (instance: WorkflowRun, state: DurableObjectState) => R | Promise<R>): Promise<R> {
  return runInDurableObject(stub(runId), fn);
}

/** Calls queued or at work in the object (runs/run-watch.ts): while any is, its alarm keeps watch RESUME_MS ahead. */
const busyCalls = (instance: WorkflowRun) => (instance as unknown as { watch: { busy: number } }).watch.busy;

/**
 * The alarm the run waits on: read once the object has no call at work (a
 * kick the dispatch route sent in the background may still be walking, its
 * alarm held RESUME_MS ahead until it ends).
 */
export async function alarmOf(runId: string): Promise<number | null> {
  for (let tries = 0; tries < 500 && (await inObject(runId, busyCalls)) > 0; tries++) await new Promise((r) => setTimeout(r, 10));
  return inObject(runId, (_, state) => state.storage.getAlarm());
}

/** Sets the object's clock to `at`, then fires its alarm. */
export async function fireAlarmAt(runId: string, at: number): Promise<boolean> {
  await inObject(runId, (instance) => void (instance.clock = { now: () => at }));
  return runDurableObjectAlarm(stub(runId));
}
