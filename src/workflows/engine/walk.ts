// The run walker: one pass over a run's job DAG that starts every step whose
// dependencies have finished (independent steps concurrently), and inside a
// job runs its actions in order (`if`, `onSuccess`, `onError` and
// `errorPolicy` through the shared sequencing of ../../lib/sequence.ts;
// `errorWhen` and the config here). Everything it decides is recorded through
// `effects` before it acts on it, and a recorded outcome is replayed, never
// redone: a walk after a crash, an alarm or an input continues where the
// journal ends. A pass ends when the run is decided or nothing can move.
// An app command runs one job through the same walker, in memory, with the
// command's scope, the request's expression budget and the spec's functions
// (WalkOptions).
import { ApiError, errorValue, type ErrorValue } from "../../lib/errors";
import { check, type JsonSchema } from "../../lib/validate";
import { runSequence, type SequenceEffects, type SequenceResult, type StepOutcome } from "../../lib/sequence";
import {
  evaluateExpression,
  isTruthy,
  resolveSmartValue,
  withFunctions,
  ExpressionError,
  ExpressionSyntaxError,
  type EvaluationBudget,
  type Scope,
} from "../../lib/smart-values";
import { missingSecretsIn } from "../../lib/secret-markers";
import { closedRecords } from "./close";
import {
  errorsContinued,
  TERMINAL_STEP,
  type ActionDocument,
  type ActionRecord,
  type Effects,
  type Journal,
  type RunDocument,
  type StepDocument,
  type StepRecord,
  type WalkResult,
} from "./types";

/** An action waits (input, a retry): the job stops here until it is woken. */
class JobSuspended {
  constructor(readonly wakeAt?: number) {}
}

/** The key every attempt of one execution of an action carries (records written before keys were kept fall back to their attempt's). */
const idempotencyKeyOf = (runId: string, rec: ActionRecord) => rec.idempotencyKey ?? `${runId}:${rec.key}:${rec.attempt}`;

/** `errorWhen` an action has without writing one: an `http` answer of 4xx or 5xx is a failure. */
const DEFAULT_ERROR_WHEN: Partial<Record<ActionDocument["name"], string>> = { http: "result.status >= 400" };

/** An `http` failure names the status it answered; the rule that failed it may read anything else. */
function errorWhenMessage(action: ActionDocument, key: string, result: unknown): string {
  const status = action.name === "http" ? (result as { status?: unknown } | undefined)?.status : undefined;
  const answered = typeof status === "number" ? ` (HTTP ${status})` : "";
  return `Action ${action.stepId ?? key}: errorWhen holds for its result${answered}`;
}

function expressionError(e: unknown, field: string): ErrorValue {
  if (e instanceof ExpressionError || e instanceof ExpressionSyntaxError) return errorValue("UNPROCESSABLE_ENTITY", `${field}: ${e.message}`, { field });
  throw e;
}

async function validated(effects: Effects, value: unknown, embedded: unknown, named: string | undefined, what: string): Promise<ErrorValue | undefined> {
  let errors: string[];
  try {
    const schema = embedded ?? (named === undefined ? undefined : await effects.schema(named));
    if (schema === undefined) return undefined;
    errors = check(schema as JsonSchema, value, what);
  } catch (e) {
    // A schema that cannot be found or evaluated fails the step, not the walk.
    if (e instanceof ApiError) return e.value;
    throw e;
  }
  return errors.length ? errorValue("VALIDATION_FAILED", `The step's ${what} does not satisfy its schema`, { errors, validation_errors: errors }) : undefined;
}

/**
 * What a finished step's record decides for the run: a `skipped` step by its
 * `conditionPolicy`, an `error` one by its `errorPolicy` (`continue`: nothing,
 * `abort`: success, `fail`: error). Read from the journal, so a replay decides
 * exactly as the pass that recorded it.
 */
function decisionOf(step: StepDocument, rec: StepRecord): "success" | "error" | undefined {
  const policy = rec.status === "skipped" ? step.conditionPolicy : rec.status === "error" ? step.errorPolicy : "continue";
  if (policy === "continue") return undefined;
  return policy === "abort" ? "success" : "error";
}

/** What sequencing reads of an action's terminal record; a replayed `cancelled` or `timeout` counts as an error. */
function outcomeOf(rec: ActionRecord): StepOutcome<ErrorValue> {
  if (rec.status === "skipped") return { status: "skipped" };
  if (rec.status === "success") return { status: "success", result: rec.result };
  return { status: "error", error: rec.error!, consumed: rec.consumed };
}

/** How a walk evaluates, when it is not a run's own (an app command's job inside a request). */
export interface WalkOptions {
  /** What every step's `condition` and `input` see, instead of the run's `outputs`, `context` and `config.env`. */
  scope?: Scope;
  /** The budget every evaluation of the walk draws from, instead of bounds of its own. */
  budget?: EvaluationBudget;
  /** JSONata function expressions by name, callable as `$<name>(...)` in every expression. */
  functions?: Readonly<Record<string, string>>;
}

export class Walker {
  private decided?: "success" | "error";
  private readonly byId: Map<string, StepDocument>;

  constructor(
    private readonly doc: RunDocument,
    private readonly journal: Journal,
    private readonly effects: Effects,
    private readonly options: WalkOptions = {},
  ) {
    this.byId = new Map(doc.definition.jobs.map((s) => [s.id, s]));
  }

  /** Job outputs by job id, as the run ends with them: succeeded steps only. */
  outputs(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [id, rec] of Object.entries(this.journal.steps)) if (rec.status === "success") out[id] = rec.output;
    return out;
  }

  /** The failures `errorPolicy: continue` consumed so far. */
  errorsContinued(): number {
    return errorsContinued(this.journal);
  }

  async walk(): Promise<WalkResult> {
    for (const step of this.doc.definition.jobs) {
      const rec = this.journal.steps[step.id];
      if (rec) this.decide(step, rec);
    }
    const running = new Map<string, Promise<void>>();
    let wakeAt: number | undefined;
    const suspended = new Set<string>();
    const settled = (id: string) => TERMINAL_STEP.has(this.journal.steps[id]?.status ?? "pending");
    const ready = (s: StepDocument) => !settled(s.id) && !running.has(s.id) && !suspended.has(s.id) && (s.dependencies ?? []).every(settled);

    for (;;) {
      if (!this.decided) {
        for (const step of this.doc.definition.jobs.filter(ready)) {
          running.set(
            step.id,
            this.runStep(step)
              .then((r) => {
                if (r === undefined) return;
                suspended.add(step.id);
                if (r.wakeAt !== undefined) wakeAt = wakeAt === undefined ? r.wakeAt : Math.min(wakeAt, r.wakeAt);
              })
              .finally(() => running.delete(step.id)),
          );
        }
      }
      if (!running.size) break;
      await Promise.race(running.values());
    }

    if (this.decided) {
      await this.closeOpen();
      return { status: this.decided, outputs: this.outputs() };
    }
    if (suspended.size) return { status: "suspended", wakeAt, outputs: this.outputs() };
    // Every step is terminal here: a step is left unstarted only behind one
    // that never settles, and the DAG was checked for cycles at save.
    return { status: "success", outputs: this.outputs() };
  }

  /** A `fail` anywhere makes the run `error`, whichever step decided first, so replays agree. */
  private decide(step: StepDocument, rec: StepRecord): void {
    const decision = decisionOf(step, rec);
    if (decision) this.decided = this.decided === "error" ? "error" : decision;
  }

  /** A decided run leaves nothing open: what still runs or waits ends `cancelled`, what never started is `skipped` (./close.ts). */
  private async closeOpen(): Promise<void> {
    const closed = closedRecords(this.doc.definition.jobs, this.journal, this.effects.now());
    for (const [id, rec] of closed.steps) await this.recordStep(id, rec);
    for (const rec of closed.actions) await this.recordAction(rec);
  }

  /**
   * Resolves a smart value watching the run's secrets: the strings an
   * expression computed from one are concealed, and added to `concealed`
   * for the record that keeps the value.
   */
  private resolve(value: unknown, scope: Scope, concealed: string[]): Promise<unknown> {
    const { budget, functions } = this.options;
    const secrets = this.effects.secrets;
    const watch = secrets?.size
      ? {
          secrets: {
            size: secrets.size,
            reveals: (text: string) => secrets.reveals(text),
            derived: (v: unknown) => void concealed.push(...secrets.derived(v)),
          },
        }
      : {};
    return resolveSmartValue(value, scope, { functions, ...watch, ...(budget && { budget }) });
  }

  /** A bare expression (`condition`, `errorWhen`) under the walk's budget and functions. */
  private evaluate(expression: string, scope: Scope): Promise<unknown> {
    return evaluateExpression(withFunctions(expression, this.options.functions), scope, this.options.budget);
  }

  private async recordStep(id: string, rec: StepRecord): Promise<void> {
    this.journal.steps[id] = rec;
    await this.effects.recordStep(id, rec);
  }

  /**
   * The outputs a step's fields see: those of the steps it depends on,
   * directly or not. A step that merely happened to finish earlier is not
   * visible, so what a step reads never depends on timing.
   */
  private visibleOutputs(step: StepDocument): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const pending = [...(step.dependencies ?? [])];
    const seen = new Set<string>();
    while (pending.length) {
      const id = pending.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const rec = this.journal.steps[id];
      if (rec?.status === "success") out[id] = rec.output;
      pending.push(...(this.byId.get(id)?.dependencies ?? []));
    }
    return out;
  }

  /** One step: condition, input, the job, output. Resolves with a JobSuspended when it must wait. */
  private async runStep(step: StepDocument): Promise<JobSuspended | undefined> {
    const now = () => this.effects.now();
    let rec = this.journal.steps[step.id];
    if (!rec || rec.status === "pending") {
      const scope = this.options.scope ?? { outputs: this.visibleOutputs(step), context: this.doc.context, config: { env: this.doc.env } };
      const startedAt = now();
      if (step.condition !== undefined) {
        let pass: boolean;
        try {
          pass = isTruthy(await this.evaluate(step.condition, scope));
        } catch (e) {
          return this.stepFailed(step, { status: "running", startedAt }, expressionError(e, "condition"));
        }
        if (!pass) return this.finish(step, { status: "skipped", skippedReason: "condition_false", startedAt, finishedAt: startedAt });
      }
      // A reference step left without a job (none published under its name, no binding) has nothing to run.
      if (step.actions === undefined && step.name !== undefined) {
        const message = `Step ${step.id} references job ${step.name}, which has no published version bound to it; publish the job and save the workflow again, or bind one with job_bindings`;
        return this.stepFailed(step, { status: "running", startedAt }, errorValue({ code: "JOB_UNBOUND", step_id: step.id, job_name: step.name }, message));
      }
      let input: unknown;
      const concealed: string[] = [];
      try {
        input = step.input === undefined ? {} : await this.resolve(step.input, scope, concealed);
      } catch (e) {
        return this.stepFailed(step, { status: "running", startedAt }, expressionError(e, "input"));
      }
      rec = { status: "running", input, startedAt, ...(concealed.length ? { concealed } : {}) };
      // A secret the input reads must resolve: the job cannot run on a marker.
      const missing = missingSecretsIn(input);
      if (missing.length)
        return this.stepFailed(step, { status: "running", startedAt }, errorValue("UNPROCESSABLE_ENTITY", "Missing secrets.", { missing_secrets: missing }));
      const invalid = await validated(this.effects, input, step.inputSchema, step.inputSchemaName, "input");
      if (invalid) return this.stepFailed(step, rec, invalid);
      await this.recordStep(step.id, rec);
    }

    const outputs: Record<string, unknown> = {};
    let job: SequenceResult<ErrorValue>;
    try {
      const input = rec.input;
      job = await runSequence({
        steps: step.actions ?? [],
        prefix: `${step.id}/`,
        scope: { input, outputs },
        outputs,
        effects: this.sequenceEffects(step, input, outputs),
        budget: this.options.budget,
        functions: this.options.functions,
      });
    } catch (e) {
      if (e instanceof JobSuspended) {
        if (rec.status !== "waiting") await this.recordStep(step.id, { ...rec, status: "waiting" });
        return e;
      }
      throw e;
    }
    // The run was decided by another step: the walk records this one `cancelled` once every running step has stopped.
    if (job.status === "stopped") return undefined;
    // The job's error ends it, and the step's `errorPolicy` decides what the run does.
    if (job.status === "error") return this.stepFailed(step, rec, job.error);

    let output: unknown;
    const concealed = [...(rec.concealed ?? [])];
    try {
      output = step.output === undefined ? outputs : await this.resolve(step.output, { input: rec.input, outputs }, concealed);
    } catch (e) {
      return this.stepFailed(step, rec, expressionError(e, "output"));
    }
    if (concealed.length) rec = { ...rec, concealed };
    const invalid = await validated(this.effects, output, step.outputSchema, step.outputSchemaName, "output");
    if (invalid) return this.stepFailed(step, rec, invalid);
    return this.finish(step, { ...rec, status: "success", output, finishedAt: now() });
  }

  private stepFailed(step: StepDocument, rec: StepRecord, error: ErrorValue): Promise<undefined> {
    const consumed = (step.errorPolicy ?? "fail") === "continue";
    return this.finish(step, { ...rec, status: "error", error, consumed, finishedAt: this.effects.now() });
  }

  /** Records a step's terminal record, then lets its policy decide the run. */
  private async finish(step: StepDocument, rec: StepRecord): Promise<undefined> {
    await this.recordStep(step.id, rec);
    this.decide(step, rec);
    return undefined;
  }

  /** The walker's side of a job's action list: journal, replay, execution. */
  private sequenceEffects(step: StepDocument, input: unknown, outputs: Record<string, unknown>): SequenceEffects<ActionDocument, ErrorValue> {
    return {
      stopped: () => this.decided !== undefined,
      resume: async (action, key) => {
        const rec = await this.resumeAction(action, key, input, outputs);
        return rec && outcomeOf(rec);
      },
      execute: async (action, key) => outcomeOf(await this.startAction(step, action, key, input, outputs)),
      notRun: async (action, key, failure) => {
        const base = this.base(step, action, key);
        // A retried run's forgotten action keeps its attempt count.
        const attempt = this.journal.actions[key]?.attempt ?? 0;
        const now = this.effects.now();
        const rec: ActionRecord = failure
          ? { ...base, status: "error", attempt, error: expressionError(failure, "if"), startedAt: now, finishedAt: now }
          : { ...base, status: "skipped", skippedReason: "if_false", attempt, startedAt: now, finishedAt: now };
        return outcomeOf(await this.recordAction(rec));
      },
      consumed: async (_action, key) => void (await this.recordAction({ ...this.journal.actions[key], consumed: true })),
    };
  }

  private async recordAction(rec: ActionRecord): Promise<ActionRecord> {
    this.journal.actions[rec.key] = rec;
    await this.effects.recordAction(rec);
    return rec;
  }

  private base(step: StepDocument, action: ActionDocument, key: string) {
    return { key, jobId: step.id, stepId: action.stepId, name: action.name };
  }

  /** An action the journal has under way or finished: replayed when finished, executed again when due. Undefined for a new one. */
  private async resumeAction(action: ActionDocument, key: string, input: unknown, outputs: Record<string, unknown>): Promise<ActionRecord | undefined> {
    let rec = this.journal.actions[key];
    if (!rec || rec.status === "pending") return undefined;
    if (TERMINAL_STEP.has(rec.status)) return rec;
    // Still `running` from an execution whose end was never recorded (a crash,
    // an eviction): its request may have left, so this one is a new attempt
    // under the same idempotency key.
    const resent = rec.status === "running";
    if (resent) rec = await this.recordAction({ ...rec, attempt: rec.attempt + 1, idempotencyKey: idempotencyKeyOf(this.doc.runId, rec) });
    else if (rec.status === "waiting") {
      if (rec.until === undefined || rec.until > this.effects.now()) throw new JobSuspended(rec.until);
      // Due: this execution is recorded before it starts, as the first one was.
      // `until` stays, so the action can tell a retry or a deadline passed.
      rec = await this.recordAction({ ...rec, status: "running" });
    }
    return this.executeAction(action, key, rec, input, outputs, resent);
  }

  /** A new action whose `if` held: its config resolved and recorded, then executed. */
  private async startAction(step: StepDocument, action: ActionDocument, key: string, input: unknown, outputs: Record<string, unknown>): Promise<ActionRecord> {
    const now = () => this.effects.now();
    // A retried run's forgotten action keeps its attempt count, so this
    // attempt's idempotency key differs from every earlier one.
    const attempt = this.journal.actions[key]?.attempt ?? 0;
    const base = this.base(step, action, key);
    let config: unknown;
    const concealed: string[] = [];
    try {
      config = action.config === undefined ? {} : await this.resolve(action.config, { input, outputs }, concealed);
    } catch (e) {
      return this.recordAction({ ...base, status: "error", attempt, error: expressionError(e, "config"), startedAt: now(), finishedAt: now() });
    }
    const idempotencyKey = `${this.doc.runId}:${key}:${attempt + 1}`;
    const rec = await this.recordAction({
      ...base,
      status: "running",
      attempt: attempt + 1,
      idempotencyKey,
      config,
      ...(concealed.length ? { concealed } : {}),
      startedAt: now(),
    });
    return this.executeAction(action, key, rec, input, outputs, false);
  }

  /** One execution of a running action to a terminal record, or JobSuspended. */
  private async executeAction(
    action: ActionDocument,
    key: string,
    rec: ActionRecord,
    input: unknown,
    outputs: Record<string, unknown>,
    resent: boolean,
  ): Promise<ActionRecord> {
    const now = () => this.effects.now();
    const outcome = await this.effects.execute({ record: rec, action, config: rec.config, idempotencyKey: idempotencyKeyOf(this.doc.runId, rec), resent });
    if (outcome.kind === "wait") {
      const attempt = outcome.retry ? rec.attempt + 1 : rec.attempt;
      await this.recordAction({ ...rec, status: "waiting", attempt, until: outcome.until, detail: outcome.detail ?? rec.detail, delivered: undefined });
      throw new JobSuspended(outcome.until);
    }
    if (outcome.kind === "error") {
      return this.recordAction({ ...rec, status: "error", error: outcome.error, detail: outcome.detail ?? rec.detail, until: undefined, finishedAt: now() });
    }
    const done = { ...rec, result: outcome.result, detail: outcome.detail ?? rec.detail, until: undefined, finishedAt: now() };
    const errorWhen = action.errorWhen ?? DEFAULT_ERROR_WHEN[action.name];
    if (errorWhen !== undefined) {
      let failed: boolean;
      try {
        failed = isTruthy(await this.evaluate(errorWhen, { input, outputs, result: outcome.result }));
      } catch (e) {
        return this.recordAction({ ...done, status: "error", error: expressionError(e, "errorWhen") });
      }
      if (failed) {
        const error = errorValue("UNPROCESSABLE_ENTITY", errorWhenMessage(action, key, outcome.result), { result: outcome.result });
        return this.recordAction({ ...done, status: "error", error });
      }
    }
    return this.recordAction({ ...done, status: "success" });
  }
}
