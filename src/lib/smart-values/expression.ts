// One JSONata expression: compiled once per text (bounded LRU cache), then
// evaluated under a Guard (./bounds.ts) against an explicit scope.
//
// The scope is the input document and nothing else: `input.x` reads the
// scope's `input`, `$` and `$$` are the whole scope, and no scope key is bound
// as a variable. A name outside the scope is therefore undefined, never a
// value from elsewhere, and JSONata's built-in functions stay as they are.
import jsonata from "jsonata";
import { budgetOf, MAX_ITEMS, type EvaluationBudget, type EvaluationLimits, type Guard } from "./bounds";
import { ExpressionError, ExpressionSyntaxError, messageOf } from "./errors";
import { toJson } from "./json";
import { LinearRegexEngine, regexProblem } from "./regex";
import { regexLiterals } from "./roots";

export type Scope = Record<string, unknown>;

export interface CompiledExpression {
  readonly text: string;
  readonly ast: jsonata.ExprNode;
  /**
   * The expression's value against `scope`, as JSON (undefined when it
   * selects nothing), under bounds of its own (`limits`) or drawn from a
   * caller's shared budget; throws ExpressionError.
   */
  evaluate(scope: Scope, bounds?: EvaluationLimits | EvaluationBudget): Promise<unknown>;
  /** The same under a Guard shared with other expressions (one smart value), with extra variables (`$rows`). */
  run(guard: Guard, scope: Scope, variables?: Record<string, unknown>): Promise<unknown>;
}

/** Expression text is authored by hand; this is far above any real one and keeps the parser's work small. */
export const MAX_EXPRESSION_LENGTH = 10_000;
const MAX_CACHED = 2000;
/** A picture's `[Y,10000000]` pads to ten million characters in one call; real widths are a handful. */
const MAX_PICTURE_WIDTH = 100;

/**
 * The binding each evaluation's Guard travels under. A variable name ends at
 * whitespace, so no expression can name it.
 */
const GUARD = "smart values guard";
const ENTRY = Symbol.for("jsonata.__evaluate_entry");
const EXIT = Symbol.for("jsonata.__evaluate_exit");

interface Environment {
  lookup(name: string): unknown;
  base: { depth: number };
}
type Focus = jsonata.Focus;
interface Node {
  type: string;
}
type Native = (...args: unknown[]) => unknown;

const guardOf = (environment: Pick<Environment, "lookup">) => environment.lookup(GUARD) as Guard;

/** The built-ins wrapped below, taken from JSONata itself so their behaviour stays exactly its own. */
let builtins: Promise<Record<"pad" | "fromMillis" | "distinct", Native>> | undefined;
function originals() {
  builtins ??= jsonata("[$pad, $fromMillis, $distinct]")
    .evaluate(undefined)
    .then((fns: { implementation: Native }[]) => ({ pad: fns[0].implementation, fromMillis: fns[1].implementation, distinct: fns[2].implementation }));
  return builtins;
}
let resolved: Awaited<ReturnType<typeof originals>>;

function checkPicture(picture: unknown): void {
  if (typeof picture !== "string") return;
  for (const marker of picture.match(/\[[^\]]*\]/g) ?? []) {
    for (const width of marker.match(/\d+/g) ?? []) {
      if (Number(width) > MAX_PICTURE_WIDTH) throw new ExpressionError(`date/time picture width ${width} is above ${MAX_PICTURE_WIDTH}`);
    }
  }
}

/**
 * JSONata built-ins an evaluation refuses, with why; the save-time checks
 * refuse an expression naming one (definition/checks/expressions.ts).
 */
export const REFUSED_FUNCTIONS: Readonly<Record<string, { signature: string; reason: string }>> = {
  eval: { signature: "<sx?:x>", reason: "it evaluates text built at run time, which would hide what the expression reads from these checks" },
};

/** Registers the guarded built-ins on a freshly compiled expression. */
function harden(expr: jsonata.Expression): void {
  const assign = expr.assign as unknown as (name: symbol, value: unknown) => void;
  assign(ENTRY, (_node: Node, _input: unknown, environment: Environment) => guardOf(environment).enter(environment.base.depth));
  assign(EXIT, (node: Node, _input: unknown, environment: Environment, result: unknown) => guardOf(environment).exit(node.type, result));
  for (const [name, { signature }] of Object.entries(REFUSED_FUNCTIONS)) {
    expr.registerFunction(
      name,
      () => {
        throw new ExpressionError(`$${name} is not available in expressions`);
      },
      signature,
    );
  }
  expr.registerFunction(
    "pad",
    function (this: Focus, str: unknown, width: unknown, char: unknown) {
      // JSONata builds the padding as width × char.length characters before trimming it.
      guardOf(this.environment).charge(Math.abs(Math.trunc(Number(width))) * Math.max(1, typeof char === "string" ? char.length : 1));
      return resolved.pad(str, width, char);
    },
    "<s-ns?:s>",
  );
  expr.registerFunction(
    "fromMillis",
    function (millis: unknown, picture: unknown, timezone: unknown) {
      checkPicture(picture);
      return resolved.fromMillis(millis, picture, timezone);
    },
    "<n-s?s?:s>",
  );
  // `$now()` and `$millis()` read the evaluation's own start, as JSONata's do.
  expr.registerFunction(
    "now",
    function (this: Focus, picture: unknown, timezone: unknown) {
      checkPicture(picture);
      return resolved.fromMillis(guardOf(this.environment).startedAt, picture, timezone);
    },
    "<s?s?:s>",
  );
  expr.registerFunction(
    "millis",
    function (this: Focus) {
      return guardOf(this.environment).startedAt;
    },
    "<:n>",
  );
  expr.registerFunction(
    "distinct",
    function (this: Focus, arr: unknown) {
      // Up to one comparison per pair of items, all in one step; a step costs about a hundred comparisons.
      if (Array.isArray(arr)) guardOf(this.environment).chargeSteps(Math.ceil((arr.length * arr.length) / 100));
      return resolved.distinct.call(this, arr);
    },
    "<x:x>",
  );
}

class Compiled implements CompiledExpression {
  constructor(
    readonly text: string,
    private readonly expr: jsonata.Expression,
  ) {}

  get ast(): jsonata.ExprNode {
    return this.expr.ast();
  }

  evaluate(scope: Scope, bounds?: EvaluationLimits | EvaluationBudget): Promise<unknown> {
    return budgetOf(bounds).evaluation((guard) => this.run(guard, scope));
  }

  async run(guard: Guard, scope: Scope, variables: Record<string, unknown> = {}): Promise<unknown> {
    resolved ??= await originals();
    let result: unknown;
    try {
      result = await this.expr.evaluate(scope, { ...variables, [GUARD]: guard });
    } catch (err) {
      if (err instanceof ExpressionError) throw err;
      // JSONata's own words for these name the attempted size, not the bound.
      const code = (err as { code?: unknown }).code;
      if (code === "D2014" || code === "D2015") throw new ExpressionError(`expression built a sequence of more than ${MAX_ITEMS} items`);
      throw new ExpressionError(messageOf(err));
    }
    return toJson(result);
  }
}

const cache = new Map<string, Compiled>();

/** Compiles `text` once (later calls hit the cache); throws ExpressionSyntaxError. */
export function compileExpression(text: string): CompiledExpression {
  const hit = cache.get(text);
  if (hit) {
    // Re-inserting keeps the Map in least-recently-used order.
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  if (text.length > MAX_EXPRESSION_LENGTH)
    throw new ExpressionSyntaxError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, MAX_EXPRESSION_LENGTH);
  if (text.trim() === "") throw new ExpressionSyntaxError("expression is empty", 0);
  let expr: jsonata.Expression;
  try {
    expr = jsonata(text, { sequence: MAX_ITEMS, RegexEngine: LinearRegexEngine as unknown as RegExpConstructor });
  } catch (err) {
    const position = (err as { position?: unknown }).position;
    throw new ExpressionSyntaxError(messageOf(err), typeof position === "number" ? position : undefined);
  }
  for (const { re, position } of regexLiterals(expr.ast())) {
    const problem = regexProblem(re);
    if (problem) throw new ExpressionSyntaxError(problem, position);
  }
  harden(expr);
  const compiled = new Compiled(text, expr);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(text, compiled);
  return compiled;
}

/**
 * `text` with the `functions` it calls bound as variables around it, so it
 * can call each as `$<name>(...)`. Bound in the same block as the
 * expression, the functions run under its Guard (an endless one is stopped
 * like any loop), may call each other, and what they read is part of what
 * the expression reads. Only the functions the text names (and those they
 * name in turn) are bound, which keeps the text short.
 */
export function withFunctions(text: string, functions: Readonly<Record<string, string>> | undefined): string {
  if (!functions) return text;
  const named = new Set<string>();
  const pending = [text];
  while (pending.length) {
    const body = pending.pop()!;
    for (const [name, fn] of Object.entries(functions)) {
      // A name JSONata cannot spell as a variable could never be called; its text would only break the block.
      if (named.has(name) || typeof fn !== "string" || !FUNCTION_NAME.test(name) || !body.includes(`$${name}`)) continue;
      named.add(name);
      pending.push(fn);
    }
  }
  if (named.size === 0) return text;
  return `(\n${[...named].map((name) => `$${name} := ${functions[name]};`).join("\n")}\n(${text}\n)\n)`;
}
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A bare JSONata expression (a condition, `if`, `errorWhen`) against `scope`. */
export function evaluateExpression(text: string, scope: Scope, bounds?: EvaluationLimits | EvaluationBudget): Promise<unknown> {
  return compileExpression(text).evaluate(scope, bounds);
}
