// The run engine's vocabulary: what a run executes (the run document), what
// it has recorded so far (the journal), and what the walker asks of the world
// (effects). The walker (walk.ts) is deterministic given the journal, so a run
// resumed after a crash replays its recorded outcomes and executes only what
// was never recorded as finished.
import type { ActionDocument, StepDocument, WorkflowDocument } from "../../definition/language/workflow-schema";
import type { ErrorValue } from "../../lib/errors";

/** Everything a run needs, loaded once when it starts and kept with it. */
export interface RunDocument {
  runId: string;
  tenantId: string;
  workflowId: string;
  workflowVersion: number;
  /** Reference steps carry their bound job's actions and contract, inlined at load. */
  definition: WorkflowDocument;
  /** The effective env (definition defaults under the activation's values). */
  env: Record<string, unknown>;
  /** The access policy the run acts with; null: no permissions. */
  policyId: string | null;
  /** A test run's: the API token whose permissions it acts with (read when it acts) instead of `policyId`'s. */
  callerTokenId?: string;
  context: Record<string, unknown>;
}

export type StepStatus = "pending" | "running" | "waiting" | "success" | "error" | "skipped" | "cancelled" | "timeout";
export const TERMINAL_STEP: ReadonlySet<StepStatus> = new Set(["success", "error", "skipped", "cancelled", "timeout"]);

/** Why a step is `skipped`: its condition was false, or the run ended before it started. */
export type StepSkippedReason = "condition_false" | "run_ended";
/** Why an action is `skipped`: its `if` was false, or the run ended before it started. */
export type ActionSkippedReason = "if_false" | "run_ended";

export interface StepRecord {
  status: StepStatus;
  /** The step's resolved input, recorded when it starts, so a replay sees the same value. */
  input?: unknown;
  output?: unknown;
  error?: ErrorValue;
  /** Set when the step's error was consumed by `errorPolicy: continue`. */
  consumed?: boolean;
  skippedReason?: StepSkippedReason;
  /** Strings its input or output computed from secrets: concealed in every record, as the secrets are. */
  concealed?: string[];
  startedAt?: number;
  finishedAt?: number;
}

/**
 * One action of one job, addressed by its key: `<job id>/<position>` with
 * `.onSuccess.<i>` / `.onError.<i>` for sub-sequences (`notify/0.onError.1`).
 */
export interface ActionRecord {
  key: string;
  jobId: string;
  stepId?: string;
  name: string;
  status: StepStatus;
  /** Attempts started: an execution re-sent after a crash and a retry after a failure each count one. */
  attempt: number;
  /**
   * `<run id>:<action key>:<n>`, n the attempt the action started at: every
   * attempt of this action in this run (a resend after a crash, a retry after
   * a failure) carries it; a retried run starts the action afresh with a new one.
   */
  idempotencyKey?: string;
  /** The resolved config of the current attempt. */
  config?: unknown;
  result?: unknown;
  error?: ErrorValue;
  /** An `errorPolicy: continue` consumed the error: the job went on. */
  consumed?: boolean;
  skippedReason?: ActionSkippedReason;
  /** Strings its config computed from secrets: concealed in every record, as the secrets are. */
  concealed?: string[];
  /** When a waiting action gives up, or a retry is due (epoch ms). */
  until?: number;
  /** What the action keeps about itself (a child run's id, a callback's state). */
  detail?: unknown;
  /**
   * What arrived from outside for the waiting attempt (an httpCallback's
   * callback), kept until the action's next execution decides its outcome.
   */
  delivered?: unknown;
  startedAt?: number;
  finishedAt?: number;
}

export interface Journal {
  steps: Record<string, StepRecord>;
  actions: Record<string, ActionRecord>;
}

/** Every string the journal's records computed from secrets. */
export function concealedIn(journal: Journal): string[] {
  return [...Object.values(journal.steps), ...Object.values(journal.actions)].flatMap((rec) => rec.concealed ?? []);
}

/** The failures `errorPolicy: continue` consumed: actions' and steps' alike. */
export function errorsContinued(journal: Journal): number {
  let n = 0;
  for (const rec of Object.values(journal.actions)) if (rec.consumed) n++;
  for (const rec of Object.values(journal.steps)) if (rec.status === "error" && rec.consumed) n++;
  return n;
}

/** What an action's execution answers. */
export type ActionOutcome =
  | { kind: "success"; result: unknown; detail?: unknown }
  | { kind: "error"; error: ErrorValue; detail?: unknown }
  /**
   * Not finished: wait for input (`until` is the deadline, if any), or, with
   * `retry`, call again at `until` as the next attempt (a back-off).
   */
  | { kind: "wait"; until?: number; retry?: boolean; detail?: unknown };

export interface ActionInvocation {
  record: ActionRecord;
  action: ActionDocument;
  config: unknown;
  /** The record's idempotency key: the same for every attempt of the action in this run. */
  idempotencyKey: string;
  /** This execution repeats one whose end was never recorded (a crash): its request may have left already. */
  resent?: boolean;
}

/**
 * The secrets a run's records must not show (lib/redact.ts's Redactor):
 * what an expression computes from one is `derived` and concealed too.
 */
export interface RunSecrets {
  readonly size: number;
  reveals(text: string): boolean;
  /** Conceals what an expression computed from a secret; answers the strings newly concealed. */
  derived(value: unknown): string[];
}

/** What the walker asks of the world; the Durable Object provides it, tests fake it. */
export interface Effects {
  now(): number;
  /** The run's secrets, when it has any. */
  secrets?: RunSecrets;
  /** Makes a record durable (and visible to the runs API) before the walker acts on it. */
  recordStep(stepId: string, record: StepRecord): Promise<void>;
  recordAction(record: ActionRecord): Promise<void>;
  execute(invocation: ActionInvocation): Promise<ActionOutcome>;
  /** A registered JSON schema by name (step contracts by name). */
  schema(name: string): Promise<unknown>;
}

/** How a walk ended. `suspended`: nothing can move until input arrives or a timer is due. */
export type WalkResult =
  | { status: "success" | "error" | "skipped"; error?: ErrorValue; outputs: Record<string, unknown> }
  | { status: "suspended"; wakeAt?: number; outputs: Record<string, unknown> };

export type { ActionDocument, StepDocument, WorkflowDocument };
