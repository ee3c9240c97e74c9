// Every evaluation runs under a Guard checked by JSONata's evaluation hooks
// (`__evaluate_entry` / `__evaluate_exit`), so a tenant's expression cannot
// hold the isolate (and every other run on it) or exhaust its 128 MB.
//
// A Guard draws from an EvaluationBudget: by default each evaluation gets a
// budget of its own; a caller that evaluates many smart values as one unit
// (an app render over all its widgets) creates one budget and passes it to
// each, so together they spend no more than it holds.
//
// The step budget is what stops a loop inside a Worker: workerd's clock does
// not advance while code runs without I/O, so a wall-clock deadline alone
// would never fire for `(function($f){$f($f)})(function($f){$f($f)})` (JSONata
// runs that tail call in a loop, so the depth does not grow either).
import { systemClock, type Clock } from "../clock";
import { ExpressionError } from "./errors";
import { readsSecret, type SecretWatch } from "./secrets";

export interface EvaluationLimits {
  /** Wall-clock budget, checked as evaluation proceeds (default 1000). */
  timeoutMs?: number;
  /** Nesting of evaluation (recursion, nested calls) (default 500). */
  maxDepth?: number;
  /** Evaluation steps, one per expression node evaluated (default 1,000,000). */
  maxSteps?: number;
}

export const DEFAULT_LIMITS: Required<EvaluationLimits> = { timeoutMs: 1000, maxDepth: 500, maxSteps: 1_000_000 };

/** Items one array or range may hold; a range is refused before it allocates. */
export const MAX_ITEMS = 1_000_000;
/**
 * Characters, array items and object keys an evaluation may produce in all.
 * Ten million units stay in the tens of MB, so even a run of expressions
 * growing strings or arrays fails well inside the isolate's 128 MB.
 */
export const MAX_VOLUME = 10_000_000;

/** Node types that only hand on a value that already exists; the others build their result. */
const PASS_THROUGH = new Set(["name", "variable", "string", "number", "value", "condition", "block", "bind", "lambda", "regex", "parent"]);

/**
 * Time, steps and volume that evaluations drawing from it may spend
 * together; depth bounds each evaluation on its own. Time is the time spent
 * inside evaluations, read from `clock` (overlapping evaluations each count
 * their own), not the time between them.
 */
export class EvaluationBudget {
  readonly limits: Required<EvaluationLimits>;
  private steps = 0;
  private volume = 0;
  /** Time of the evaluations that have ended. */
  private spentMs = 0;

  constructor(
    limits: EvaluationLimits = {},
    readonly clock: Clock = systemClock,
  ) {
    this.limits = {
      timeoutMs: limits.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      maxDepth: limits.maxDepth ?? DEFAULT_LIMITS.maxDepth,
      maxSteps: limits.maxSteps ?? DEFAULT_LIMITS.maxSteps,
    };
  }

  /** Runs one evaluation under a Guard drawing from this budget; its time counts against the budget once it ends. */
  async evaluation<T>(evaluate: (guard: Guard) => Promise<T>): Promise<T> {
    const guard = new Guard(this);
    try {
      return await evaluate(guard);
    } finally {
      this.spentMs += this.clock.now() - guard.startedAt;
    }
  }

  /** Counts `n` steps of work. */
  chargeSteps(n: number): void {
    this.steps += n;
    if (this.steps > this.limits.maxSteps) throw new ExpressionError(`expression exceeded ${this.limits.maxSteps} evaluation steps`);
  }

  /** Refuses work that would produce `units` more characters or items, before it allocates them. */
  charge(units: number): void {
    this.volume += units;
    if (this.volume > MAX_VOLUME) throw new ExpressionError(`expression produced more than ${MAX_VOLUME} characters and items`);
  }

  /** Refuses to go on once the ended evaluations and the one started at `startedAt` have used the time. */
  checkTime(startedAt: number): void {
    if (this.spentMs + this.clock.now() - startedAt > this.limits.timeoutMs) {
      throw new ExpressionError(`expression ran longer than ${this.limits.timeoutMs} ms`);
    }
  }

  /** Steps counted so far, for sampling the clock every so many. */
  get stepsTaken(): number {
    return this.steps;
  }
}

/** A fresh budget of `limits`, or the caller's shared one. */
export function budgetOf(bounds: EvaluationLimits | EvaluationBudget = {}): EvaluationBudget {
  return bounds instanceof EvaluationBudget ? bounds : new EvaluationBudget(bounds);
}

/** One evaluation's view of its budget, which JSONata's hooks and the guarded built-ins call. */
export class Guard {
  /** When the evaluation began: the clock reading `$now()` and `$millis()` answer. */
  readonly startedAt: number;
  /** The secrets an evaluation watches for (./secrets.ts); set by the caller that resolves with them. */
  secrets?: SecretWatch;
  /** Whether a node evaluated since the caller last cleared it read a secret. */
  readSecret = false;

  constructor(private readonly budget: EvaluationBudget) {
    this.startedAt = budget.clock.now();
    // A shared budget may be spent before this evaluation takes its first step.
    budget.checkTime(this.startedAt);
  }

  enter(depth: number): void {
    const { maxDepth } = this.budget.limits;
    if (depth > maxDepth) throw new ExpressionError(`expression nested deeper than ${maxDepth} levels`);
    this.budget.chargeSteps(1);
    // Reading the clock on every step would cost more than the step itself.
    if ((this.budget.stepsTaken & 255) === 0) this.budget.checkTime(this.startedAt);
  }

  /** Counts `n` steps of work, for built-ins that do many in one call. */
  chargeSteps(n: number): void {
    this.budget.chargeSteps(n);
  }

  exit(nodeType: string, result: unknown): void {
    if (this.secrets && !this.readSecret && readsSecret(this.secrets, result)) this.readSecret = true;
    if (PASS_THROUGH.has(nodeType) || result === null || result === undefined) return;
    if (typeof result === "string") this.charge(result.length);
    else if (Array.isArray(result)) {
      if (result.length > MAX_ITEMS) throw new ExpressionError(`expression built an array of more than ${MAX_ITEMS} items`);
      this.charge(result.length);
    } else if (typeof result === "object") this.charge(Object.keys(result).length);
  }

  /** Refuses work that would produce `units` more characters or items, before it allocates them. */
  charge(units: number): void {
    this.budget.charge(units);
  }
}
