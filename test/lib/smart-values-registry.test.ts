// The directive registry and the shared evaluation budget of the smart-value
// module: a directive registered by a caller is declared at save time
// (expressionsIn) and evaluated at run time (resolveSmartValue) without the
// resolver knowing it; evaluations drawing from one budget spend it together.
import { describe, expect, it } from "vitest";
import {
  evaluateExpression,
  EvaluationBudget,
  ExpressionError,
  ExpressionSyntaxError,
  expressionsIn,
  resolveSmartValue,
  SMART_VALUE_DIRECTIVES,
  type Directive,
} from "../../src/lib/smart-values";

async function failure(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

/** `{ "$upper": <smart value> }`: the value's string, upper-cased. */
const upper: Directive = {
  keys: ["$upper"],
  check: (use) => use.smartValue("$upper"),
  async evaluate(use) {
    const value = await use.resolve("$upper");
    if (typeof value !== "string") use.fail("$upper", `must give a string, got ${JSON.stringify(value)}`);
    return (value as string).toUpperCase();
  },
};

/** `{ "$pick": "expr", "$from": { ... } }`: a literal map read by key, the key computed by expr. */
const pick: Directive = {
  keys: ["$pick", "$from"],
  label: "$pick with $from",
  check(use) {
    use.expression("$pick");
    if (typeof use.value.$from !== "object" || use.value.$from === null) use.refuse("$from", "must be an object");
  },
  async evaluate(use) {
    const key = await use.expression("$pick");
    return (use.value.$from as Record<string, unknown>)[String(key)];
  },
};

const directives = SMART_VALUE_DIRECTIVES.with(upper, pick);
const scope = { input: { name: "Ada", level: "b" } };

describe("directive registry", () => {
  it("evaluates a registered directive at run time, nested in any smart value", async () => {
    const value = { greeting: { $upper: "hello {{ input.name }}" }, items: [{ $pick: "input.level", $from: { a: 1, b: 2 } }], raw: { $jsonata: "input.name" } };
    expect(await resolveSmartValue(value, scope, { directives })).toEqual({ greeting: "HELLO ADA", items: [2], raw: "Ada" });
    // A directive's value is not resolved again: `{{ }}` in what it gives stays text.
    expect(await resolveSmartValue({ $pick: "'x'", $from: { x: "{{ input.name }}" } }, scope, { directives })).toBe("{{ input.name }}");
    const err = await failure(() => resolveSmartValue({ a: { $upper: "{{ 5 }}" } }, scope, { directives }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("a.$upper: must give a string, got 5");
  });

  it("declares a registered directive's expressions at save time, and refuses a malformed one there", async () => {
    const value = { greeting: { $upper: "hi {{ input.name }}" }, pick: { $pick: "input.level", $from: {} } };
    expect(expressionsIn(value, "config", directives)).toEqual([
      { path: "config.greeting.$upper", text: " input.name " },
      { path: "config.pick.$pick", text: "input.level" },
    ]);
    const notObject = await failure(() => expressionsIn({ p: { $pick: "x", $from: 3 } }, "config", directives));
    expect(notObject).toBeInstanceOf(ExpressionSyntaxError);
    expect(notObject.message).toBe("config.p.$from: must be an object");
    const notText = await failure(() => expressionsIn({ p: { $pick: 3, $from: {} } }, "config", directives));
    expect(notText).toBeInstanceOf(ExpressionSyntaxError);
    expect(notText.message).toBe("config.p.$pick: must be a JSONata expression string");
  });

  it("refuses an unknown $-key as before, listing the registered directives", async () => {
    const unknown = await failure(() => resolveSmartValue({ a: { $x: 1 } }, scope, { directives }));
    expect(unknown).toBeInstanceOf(ExpressionSyntaxError);
    expect(unknown.message).toBe(
      'a: "$x" is not a directive (directives: $jsonata, $literal, $rows with $pipe, $upper, or $pick with $from; wrap data with $-keys in {"$literal": ...})',
    );
    const partial = await failure(() => expressionsIn({ $pick: "x" }, "", directives));
    expect(partial.message).toBe('an object with "$pick" must hold exactly $jsonata, $literal, $rows with $pipe, $upper, or $pick with $from');
    // Without the registration the directive is an unknown one, as any `$x` is.
    const plain = await failure(() => resolveSmartValue({ $upper: "a" }, scope));
    expect(plain.message).toBe('"$upper" is not a directive (directives: $jsonata, $literal, or $rows with $pipe; wrap data with $-keys in {"$literal": ...})');
    expect(await resolveSmartValue({ $literal: { $upper: "a" } }, scope, { directives })).toEqual({ $upper: "a" });
  });

  it("refuses a directive registered twice or spelled without $", () => {
    expect(() => directives.with({ ...upper })).toThrow("the directive $upper is registered twice");
    expect(() => SMART_VALUE_DIRECTIVES.with({ ...upper, keys: ["upper"] })).toThrow('a directive is spelled by $-keys, not ["upper"]');
  });
});

describe("evaluation budget", () => {
  // `$sum([1..5].($ + 1))` takes 27 steps.
  const text = "$sum([1..5].($ + 1))";

  it("without a budget, each evaluation has bounds of its own", async () => {
    expect(await evaluateExpression(text, {}, { maxSteps: 40 })).toBe(20);
    expect(await evaluateExpression(text, {}, { maxSteps: 40 })).toBe(20);
  });

  it("two evaluations sharing a budget fail on the second when the first spent its steps", async () => {
    const budget = new EvaluationBudget({ maxSteps: 40 });
    expect(await evaluateExpression(text, {}, budget)).toBe(20);
    const err = await failure(() => resolveSmartValue({ total: `{{ ${text} }}` }, {}, { budget }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("total: expression exceeded 40 evaluation steps");
  });

  it("counts the time spent inside evaluations on the injected clock, not the time between them", async () => {
    const clock = { at: 0, now: () => clock.at };
    /** `{ "$spend": ms }`: moves the test's clock, as a slow producer would take time. */
    const spend: Directive = { keys: ["$spend"], check: () => undefined, evaluate: async (use) => void (clock.at += use.value.$spend as number) };
    const options = { budget: new EvaluationBudget({ timeoutMs: 50 }, clock), directives: SMART_VALUE_DIRECTIVES.with(spend) };
    await resolveSmartValue({ $spend: 30 }, {}, options);
    clock.at += 1000;
    expect(await evaluateExpression("1 + 1", {}, options.budget)).toBe(2);
    await resolveSmartValue({ $spend: 30 }, {}, options);
    const err = await failure(() => evaluateExpression("1 + 1", {}, options.budget));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("expression ran longer than 50 ms");
  });

  it("answers $now() and $millis() from the budget's clock", async () => {
    const budget = new EvaluationBudget({}, { now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    expect(await evaluateExpression("$millis()", {}, budget)).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(await evaluateExpression("$now()", {}, budget)).toBe("2026-01-02T03:04:05.000Z");
  });
});
