// The sequencing of an action list, shared by a run's jobs and an app's
// commands: each step in order, gated by its `if`; after a success its
// `onSuccess` list, after an error its `onError` list and then its
// `errorPolicy` (`fail` ends the list with the error, `continue` goes on).
// Step keys are `<prefix><i>`, a sub-list's `<key>.onSuccess.<i>` /
// `<key>.onError.<i>`. What a step does and what is kept of it are the
// caller's effects: the run walker journals every outcome before acting on
// it and replays a recorded one; a command runs each step once. An effect may
// throw to abandon the list (a run's action that must wait), and the throw
// passes through unchanged.
import { evaluateExpression, ExpressionError, ExpressionSyntaxError, isTruthy, withFunctions, type EvaluationBudget, type Scope } from "./smart-values";

/** The fields of a step that sequencing reads; the rest are the effects' business. */
export interface SequencedStep<S> {
  if?: string;
  /** Names the step's result in `outputs` for the steps after it. */
  stepId?: string;
  errorPolicy?: "fail" | "continue";
  onSuccess?: readonly S[];
  onError?: readonly S[];
}

export type StepOutcome<E> =
  | { status: "success"; result: unknown }
  | { status: "skipped" }
  /** `consumed`: an `errorPolicy: continue` already went past this error (a replay). */
  | { status: "error"; error: E; consumed?: boolean };

/** How a list ended: `stopped` when `effects.stopped()` said so before a step. */
export type SequenceResult<E> = { status: "success" } | { status: "error"; error: E } | { status: "stopped" };

export interface SequenceEffects<S, E> {
  /** Asked before each step: true stops the list (a run decided by another of its jobs). */
  stopped?(): boolean;
  /** The outcome of a step already under way or finished (a replay), reached without its `if`; undefined for a new step. */
  resume?(step: S, key: string): Promise<StepOutcome<E> | undefined>;
  /** Runs a new step whose `if` held (or that has none). */
  execute(step: S, key: string): Promise<StepOutcome<E>>;
  /** A new step that does not run: its `if` is false (no `failure`: skipped) or failed to evaluate. */
  notRun(step: S, key: string, failure?: ExpressionError | ExpressionSyntaxError): Promise<StepOutcome<E>>;
  /** The error of `step` that its `errorPolicy: continue` went past; told once per error. */
  consumed?(step: S, key: string): Promise<void>;
}

export interface Sequence<S, E> {
  steps: readonly S[];
  /** The keys' prefix (`<job id>/`). */
  prefix: string;
  /** What every `if` reads; it usually holds `outputs`, so later steps see earlier results. */
  scope: Scope;
  /** Each succeeded step's result under its `stepId`, written as the list goes. */
  outputs: Record<string, unknown>;
  effects: SequenceEffects<S, E>;
  /** A budget the `if` evaluations draw from (default: bounds of their own). */
  budget?: EvaluationBudget;
  /** Evaluates an `if` in place of `scope` (an app command's reads its page's sources first); throws as an evaluation does. */
  condition?(text: string): Promise<unknown>;
  /** JSONata function expressions by name, callable as `$<name>(...)` in every `if` (an app spec's `functions`). */
  functions?: Readonly<Record<string, string>>;
}

/** Runs the list to its end, to a failing step's error, or until `stopped()`. */
export async function runSequence<S extends SequencedStep<S>, E>(sequence: Sequence<S, E>): Promise<SequenceResult<E>> {
  const { steps, prefix, effects } = sequence;
  for (let i = 0; i < steps.length; i++) {
    if (effects.stopped?.()) return { status: "stopped" };
    const step = steps[i];
    const key = `${prefix}${i}`;
    const outcome = (await effects.resume?.(step, key)) ?? (await start(sequence, step, key));
    if (outcome.status === "skipped") continue;
    const sub = (list: readonly S[] | undefined, branch: string) => runSequence({ ...sequence, steps: list ?? [], prefix: `${key}.${branch}.` });
    if (outcome.status === "success") {
      if (step.stepId) sequence.outputs[step.stepId] = outcome.result;
      const after = await sub(step.onSuccess, "onSuccess");
      if (after.status !== "success") return after;
      continue;
    }
    // An error: onError runs first, then the step's errorPolicy decides.
    const handled = await sub(step.onError, "onError");
    if (handled.status !== "success") return handled;
    if ((step.errorPolicy ?? "fail") === "fail") return { status: "error", error: outcome.error };
    if (!outcome.consumed) await effects.consumed?.(step, key);
  }
  return { status: "success" };
}

/** A new step: its `if` decides whether it runs. */
async function start<S extends SequencedStep<S>, E>(
  { scope, effects, budget, functions, condition }: Sequence<S, E>,
  step: S,
  key: string,
): Promise<StepOutcome<E>> {
  if (step.if !== undefined) {
    let pass: boolean;
    try {
      pass = isTruthy(await (condition ? condition(step.if) : evaluateExpression(withFunctions(step.if, functions), scope, budget)));
    } catch (e) {
      if (e instanceof ExpressionError || e instanceof ExpressionSyntaxError) return effects.notRun(step, key, e);
      throw e;
    }
    if (!pass) return effects.notRun(step, key);
  }
  return effects.execute(step, key);
}
