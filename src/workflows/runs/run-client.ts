// How the rest of the service reaches a run's object: start (or walk on) a
// run, answer its awaitInput or httpCallback action, cancel, retry, re-sync
// its mirror, follow its events. Callers depend on RunClient, never on the WorkflowRun object's
// RPC shape or on how objects are named (only DurableRunClient knows that).
import type { WorkflowRun } from "../../../durable-objects/workflow-run";
import type { ErrorValue } from "../../lib/errors";
import { log } from "../../lib/logger";
import type { RunRef } from "./orchestrator";
import type { Following, RunRow } from "./run-events";

export interface RunClient {
  /** Announces a start before it is sent: the object starts the run by its own alarm if the start never arrives. */
  arm(run: RunRef): Promise<void>;
  /** Starts the run, or walks it on if it started already (idempotent). */
  start(run: RunRef): Promise<void>;
  /** Answers the awaitInput action `stepId` with `data`; a refusal says why not. */
  input(run: RunRef, stepId: string, data: unknown): Promise<ErrorValue | undefined>;
  /** Hands an httpCallback's callback to action `key` in its attempt `attempt`; a refusal says why not. */
  deliver(run: RunRef, key: string, attempt: number, payload: unknown): Promise<ErrorValue | undefined>;
  /** Stops the run (its row was already moved to `cancelled`). */
  cancel(run: RunRef): Promise<void>;
  /** Runs a finished run again in place (its row was already moved to `pending`). */
  retry(run: RunRef): Promise<void>;
  /** Writes the run's whole record to Postgres again from its object's journal, finished or not, then walks it on. */
  resync(run: RunRef): Promise<void>;
  /** Opens a stream of the run's events (runs/run-events.ts); `row`: the run's row as the caller's tenant reads it. */
  follow(run: RunRef, row: RunRow): Promise<Following>;
}

/** The object of one run, addressed by the run id. */
export function runObject(namespace: DurableObjectNamespace<WorkflowRun>, runId: string) {
  return namespace.get(namespace.idFromName(runId));
}

export class DurableRunClient implements RunClient {
  constructor(private readonly namespace: DurableObjectNamespace<WorkflowRun>) {}

  arm({ tenantId, runId }: RunRef): Promise<void> {
    return runObject(this.namespace, runId).arm(tenantId, runId);
  }

  start({ tenantId, runId }: RunRef): Promise<void> {
    return runObject(this.namespace, runId).start(tenantId, runId);
  }

  input({ tenantId, runId }: RunRef, stepId: string, data: unknown): Promise<ErrorValue | undefined> {
    return runObject(this.namespace, runId).input(tenantId, runId, stepId, data);
  }

  deliver({ tenantId, runId }: RunRef, key: string, attempt: number, payload: unknown): Promise<ErrorValue | undefined> {
    return runObject(this.namespace, runId).deliver(tenantId, runId, key, attempt, payload);
  }

  cancel({ tenantId, runId }: RunRef): Promise<void> {
    return runObject(this.namespace, runId).cancel(tenantId, runId);
  }

  retry({ tenantId, runId }: RunRef): Promise<void> {
    return runObject(this.namespace, runId).retry(tenantId, runId);
  }

  resync({ tenantId, runId }: RunRef): Promise<void> {
    return runObject(this.namespace, runId).resync(tenantId, runId);
  }

  async follow({ tenantId, runId }: RunRef, row: RunRow): Promise<Following> {
    return runObject(this.namespace, runId).follow(tenantId, runId, row);
  }
}

export function runClient(env: RunEnv): RunClient {
  return new DurableRunClient(env.WORKFLOW_RUN);
}

/** How many objects one kick or re-sync calls at once. */
const CONCURRENCY = 20;

type RunEnv = { WORKFLOW_RUN: DurableObjectNamespace<WorkflowRun> };

/** Calls `each` for every run, a few at a time; a failure is logged, never thrown. */
async function forEachRun(runs: RunRef[], what: string, each: (run: RunRef) => Promise<void>): Promise<void> {
  for (let i = 0; i < runs.length; i += CONCURRENCY) {
    await Promise.all(
      runs.slice(i, i + CONCURRENCY).map(async (run) => {
        try {
          await each(run);
        } catch (e) {
          log.error(`${what} a workflow run failed`, { run_id: run.runId, tenant_id: run.tenantId, error: (e as Error).message });
        }
      }),
    );
  }
}

/**
 * Starts (or resumes) each run in its own object. Called once the runs'
 * rows are committed; never throws: a kick that fails is repeated by the
 * sweep (runs/sweep.ts), and starting a started run only walks it.
 */
export function kickRuns(env: RunEnv, runs: RunRef[]): Promise<void> {
  const client = runClient(env);
  return forEachRun(runs, "kicking", (run) => client.start(run));
}

/**
 * How a route hands the runs it created (rows committed) to their objects:
 * each object is armed before the route answers, then kicked once the
 * caller has its answer. The kick stays off the answer's path; the arming
 * makes sure a kick lost with the process (killed between answer and kick)
 * costs seconds, not a wait for the sweep. Never throws: an object that
 * cannot be armed is the sweep's.
 */
export async function handOverRuns(env: RunEnv, ctx: Pick<ExecutionContext, "waitUntil">, runs: RunRef[]): Promise<void> {
  const client = runClient(env);
  await forEachRun(runs, "arming", (run) => client.arm(run));
  ctx.waitUntil(kickRuns(env, runs));
}

/** Asks each run's object to re-sync its whole record and walk on (the sweep's repair); never throws. */
export function resyncRuns(env: RunEnv, runs: RunRef[]): Promise<void> {
  const client = runClient(env);
  return forEachRun(runs, "re-syncing", (run) => client.resync(run));
}
