// The smart-value evaluator: every authoring form with concrete values, the
// explicit scopes, the bounds that stop runaway expressions, and the
// save-time helpers (expressionsIn, rootNamesOf).
import { describe, expect, it } from "vitest";
import {
  compileExpression,
  evaluateExpression,
  ExpressionError,
  ExpressionSyntaxError,
  expressionsIn,
  isTruthy,
  MAX_EXPRESSION_LENGTH,
  resolveSmartValue,
  rootNamesOf,
  withFunctions,
} from "../../src/lib/smart-values";
import { Redactor } from "../../src/lib/redact";

const scope = {
  input: { name: "Ada", n: 5, tags: ["a", "b"], nested: { ok: true }, nothing: null },
  outputs: {
    fetch: {
      status: 200,
      rows: [
        { id: 1, price: 10 },
        { id: 2, price: 25 },
        { id: 3, price: 40 },
      ],
    },
  },
};

/** The thrown error, for assertions on its class and fields. */
async function failure(promise: Promise<unknown> | (() => unknown)): Promise<Error> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

/** Runs `fn`, asserting it fails with an ExpressionError matching `message` within the 2 s guard. */
async function failsWithin(fn: () => Promise<unknown>, message: RegExp): Promise<number> {
  const started = Date.now();
  const err = await failure(fn());
  const elapsed = Date.now() - started;
  expect(err).toBeInstanceOf(ExpressionError);
  expect(err.message).toMatch(message);
  expect(elapsed).toBeLessThan(2000);
  return elapsed;
}

describe("literals and templates", () => {
  it("passes literals through unchanged, nested", async () => {
    const value = { a: 1, b: [true, null, "plain text", { c: 2.5 }], d: "" };
    expect(await resolveSmartValue(value, scope)).toEqual(value);
    expect(await resolveSmartValue(42, scope)).toBe(42);
    expect(await resolveSmartValue(null, scope)).toBeNull();
  });

  it("a whole-string {{ }} yields the value for a JSON field", async () => {
    expect(await resolveSmartValue("{{ input.n }}", scope)).toBe(5);
    expect(await resolveSmartValue("{{ input.tags }}", scope)).toEqual(["a", "b"]);
    expect(await resolveSmartValue("{{ input.nested }}", scope)).toEqual({ ok: true });
    expect(await resolveSmartValue("{{input.nothing}}", scope)).toBeNull();
    expect(await resolveSmartValue("{{ input.missing }}", scope)).toBeUndefined();
    expect(await resolveSmartValue("{{ $sum(outputs.fetch.rows.price) }}", scope)).toBe(75);
  });

  it("a whole-string {{ }} yields the string form for a string field", async () => {
    const asString = (text: string) => resolveSmartValue(text, scope, { expects: "string" });
    expect(await asString("{{ input.n }}")).toBe("5");
    expect(await asString("{{ input.tags }}")).toBe('["a","b"]');
    expect(await asString("{{ input.nested }}")).toBe('{"ok":true}');
    expect(await asString("{{ input.nested.ok }}")).toBe("true");
    expect(await asString("{{ input.missing }}")).toBe("");
    expect(await asString("{{ input.nothing }}")).toBe("null");
    expect(await asString("{{ input.name }}")).toBe("Ada");
  });

  it("interpolates the string form inside longer strings", async () => {
    expect(await resolveSmartValue("Hello {{ input.name }}, n={{ input.n }} tags={{ input.tags }}{{ input.missing }}!", scope)).toBe(
      'Hello Ada, n=5 tags=["a","b"]!',
    );
    expect(await resolveSmartValue(" {{ input.n }}", scope)).toBe(" 5");
  });

  it("ends an expression at the first }} outside strings and braces", async () => {
    expect(await resolveSmartValue('{{ {"a": {"b": input.n}} }}', scope)).toEqual({ a: { b: 5 } });
    expect(await resolveSmartValue('x{{ "}}" & input.name }}y', scope)).toBe("x}}Aday");
    expect(await resolveSmartValue("{{ /* }} */ input.n }}", scope)).toBe(5);
  });

  it("resolves members of objects and arrays, each by its own form", async () => {
    const value = { url: "https://x.test/{{ input.name }}", headers: { n: "{{ input.n }}" }, items: ["{{ input.tags[1] }}", 3] };
    expect(await resolveSmartValue(value, scope)).toEqual({ url: "https://x.test/Ada", headers: { n: 5 }, items: ["b", 3] });
  });

  it("keeps NUL and lone surrogates in data and literals", async () => {
    const odd = "a\u0000b\ud800c";
    expect(await resolveSmartValue(odd, scope)).toBe(odd);
    expect(await resolveSmartValue("{{ input.s }}", { input: { s: odd } })).toBe(odd);
    expect(await resolveSmartValue("<{{ input.s }}>", { input: { s: odd } })).toBe(`<${odd}>`);
    expect(await evaluateExpression('"x\u0000" & input.s', { input: { s: "\udc00" } })).toBe("x\u0000\udc00");
  });
});

describe("directives", () => {
  it("$jsonata yields the raw value", async () => {
    expect(await resolveSmartValue({ $jsonata: "input.n * 2" }, scope)).toBe(10);
    expect(await resolveSmartValue({ $jsonata: "input.tags" }, scope, { expects: "string" })).toEqual(["a", "b"]);
    expect(await resolveSmartValue({ x: { $jsonata: "input.nested" } }, scope)).toEqual({ x: { ok: true } });
  });

  it("$literal yields its value untouched, templates and directives included", async () => {
    const raw = { text: "{{ input.n }}", inner: { $jsonata: "1" }, $ref: "#/x" };
    expect(await resolveSmartValue({ $literal: raw }, scope)).toEqual(raw);
    expect(await resolveSmartValue({ body: { $literal: "{{ not evaluated" } }, scope)).toEqual({ body: "{{ not evaluated" });
  });

  it("$rows with $pipe reshapes the rows, bound as $rows", async () => {
    const value = { $rows: "{{ outputs.fetch.rows }}", $pipe: '$rows[price > 15].{"id": id, "double": price * 2}' };
    expect(await resolveSmartValue(value, scope)).toEqual([
      { id: 2, double: 50 },
      { id: 3, double: 80 },
    ]);
    expect(await resolveSmartValue({ $rows: [{ a: 1 }, { a: 2 }], $pipe: "$count($rows) & '/' & input.name" }, scope)).toBe("2/Ada");
    expect(await resolveSmartValue({ $rows: { $jsonata: "outputs.fetch.rows" }, $pipe: "$sum($rows.price)" }, scope)).toBe(75);
  });

  it("refuses $rows that are not an array", async () => {
    const err = await failure(resolveSmartValue({ data: { $rows: "{{ input.n }}", $pipe: "$rows" } }, scope));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("data.$rows: must give an array, got 5");
    const missing = await failure(resolveSmartValue({ $rows: "{{ input.missing }}", $pipe: "$rows" }, scope));
    expect(missing.message).toBe("$rows: must give an array, got nothing");
  });

  it("refuses unknown and malformed directives, naming the path", async () => {
    const cases: [unknown, string][] = [
      [
        { a: { $ref: "#/x" } },
        'a: "$ref" is not a directive (directives: $jsonata, $literal, or $rows with $pipe; wrap data with $-keys in {"$literal": ...})',
      ],
      [{ $jsonata: "1", other: 2 }, 'an object with "$jsonata" must hold exactly $jsonata, $literal, or $rows with $pipe'],
      [{ $rows: [] }, 'an object with "$rows" must hold exactly $jsonata, $literal, or $rows with $pipe'],
      [[{ $jsonata: 5 }], "[0].$jsonata: must be a JSONata expression string"],
      [{ $rows: [], $pipe: null }, "$pipe: must be a JSONata expression string or an array of steps"],
    ];
    for (const [value, message] of cases) {
      const err = await failure(resolveSmartValue(value, scope));
      expect(err).toBeInstanceOf(ExpressionSyntaxError);
      expect(err.message).toBe(message);
      expect(await failure(() => expressionsIn(value, "config"))).toBeInstanceOf(ExpressionSyntaxError);
    }
  });
});

describe("scopes", () => {
  it("an action's scope reading context gets undefined, never another scope's value", async () => {
    const actionScope = { input: { x: 1 }, outputs: {} };
    expect(await evaluateExpression("context.x", actionScope)).toBeUndefined();
    expect(await evaluateExpression("$exists(context)", actionScope)).toBe(false);
    expect(await resolveSmartValue("{{ context.input }}", actionScope)).toBeUndefined();
    expect(await resolveSmartValue("[{{ config.env.TOKEN }}]", actionScope)).toBe("[]");
    // The same text against a step's scope sees its context.
    expect(await evaluateExpression("context.x", { context: { x: 7 }, outputs: {} })).toBe(7);
  });

  it("scope keys are names in the document, not variables; $ and $$ are the whole scope", async () => {
    expect(await evaluateExpression("$input", { input: 1 })).toBeUndefined();
    expect(await evaluateExpression("$keys($)", { input: 1, outputs: 2 })).toEqual(["input", "outputs"]);
    expect(await evaluateExpression("$$.input", { input: 3 })).toBe(3);
  });

  it("keeps the built-ins working", async () => {
    expect(await evaluateExpression('$string(input.n) & $uppercase("x")', scope)).toBe("5X");
    expect(await evaluateExpression('$pad("7", -3, "0")', scope)).toBe("007");
    expect(await evaluateExpression("$now() = $now() and $millis() > 1700000000000", {})).toBe(true);
    expect(await evaluateExpression('$fromMillis(0, "[Y0001]-[M01]-[D01]")', {})).toBe("1970-01-01");
    expect(await evaluateExpression("$distinct([1, 2, 1, 3, 2])", {})).toEqual([1, 2, 3]);
    expect(await evaluateExpression('$match("ab12cd345", /\\d+/).match', {})).toEqual(["12", "345"]);
    expect(await evaluateExpression('$replace("Hello World", /o/i, "0")', {})).toBe("Hell0 W0rld");
    expect(await evaluateExpression('$contains("ABC", /b/i)', {})).toBe(true);
    expect(await evaluateExpression('$split("a1b22c", /[0-9]+/)', {})).toEqual(["a", "b", "c"]);
    // Offsets count UTF-16 code units, as JavaScript strings do.
    expect(await evaluateExpression('$match("é😀ab", /a(b)/)', {})).toEqual({ match: "ab", index: 3, groups: ["b"] });
    expect(await evaluateExpression('$match("x\nab", /^a/m).index', {})).toBe(2);
  });

  it("refuses $eval, which would evaluate text no save-time check saw", async () => {
    const err = await failure(evaluateExpression('$eval("context")', { context: 1 }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("$eval is not available in expressions");
  });
});

describe("results are JSON", () => {
  it("turns sequences into plain arrays", async () => {
    const rows = (await evaluateExpression("outputs.fetch.rows.id", scope)) as number[];
    expect(rows).toEqual([1, 2, 3]);
    expect(Object.keys(rows)).toEqual(["0", "1", "2"]);
    expect(JSON.stringify(await evaluateExpression("[input.n]", scope))).toBe("[5]");
  });

  it("refuses functions and non-finite numbers", async () => {
    expect((await failure(evaluateExpression("function($x){$x}", {}))).message).toBe("expression result is a function, not JSON");
    expect((await failure(evaluateExpression("$uppercase", {}))).message).toBe("expression result is a function, not JSON");
    expect((await failure(evaluateExpression('{"f": $sum}', {}))).message).toBe("expression result is a function, not JSON");
    const inf = await failure(evaluateExpression("1e308 * 10", {}));
    expect(inf).toBeInstanceOf(ExpressionError);
  });

  it("keeps __proto__ as a plain key", async () => {
    const out = (await evaluateExpression('{"__proto__": {"polluted": 1}}', {})) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("bounds", () => {
  it("stops the self-applying lambda by its time or step budget", async () => {
    const loop = "(function($f){$f($f)})(function($f){$f($f)})";
    await failsWithin(() => evaluateExpression(loop, {}), /^expression (exceeded 1000000 evaluation steps|ran longer than 1000 ms)$/);
    // Where the clock stands still while code runs (deployed workerd), the step budget alone stops it.
    await failsWithin(() => evaluateExpression(loop, {}, { timeoutMs: 1e9, maxSteps: 100_000 }), /^expression exceeded 100000 evaluation steps$/);
  });

  it("stops non-tail recursion by its depth", async () => {
    const expr = "($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))";
    await failsWithin(() => evaluateExpression(expr, {}), /nested deeper than 500 levels/);
    expect(await evaluateExpression("($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(20))", {})).toBe(20);
  });

  it("refuses huge ranges before allocating them", async () => {
    await failsWithin(() => evaluateExpression("[1..100000000]", {}), /^expression built a sequence of more than 1000000 items$/);
    await failsWithin(() => evaluateExpression("$count([1..2000000])", {}), /^expression built a sequence of more than 1000000 items$/);
    await failsWithin(() => evaluateExpression("$count([1..600000, 1..600000])", {}), /more than 1000000 items/);
    expect(await evaluateExpression("$count([1..1000])", {})).toBe(1000);
  });

  it("refuses huge strings from $pad and from repeated growth", async () => {
    await failsWithin(() => evaluateExpression('$pad("", 1e9)', {}), /more than 10000000 characters and items/);
    await failsWithin(() => evaluateExpression('$pad("", -600000000, "ab")', {}), /more than 10000000 characters and items/);
    await failsWithin(() => evaluateExpression('$reduce([1..40], function($acc, $v){ $acc & $acc }, "xy")', {}), /more than 10000000 characters and items/);
    await failsWithin(
      () => evaluateExpression("$reduce([1..40], function($acc, $v){ $append($acc, $acc) }, [1])", {}),
      /more than 1000000 items|characters and items/,
    );
  });

  it("refuses many large values kept at once", async () => {
    await failsWithin(() => evaluateExpression('[1..1000].$pad("", 1000000)', {}), /more than 10000000 characters and items/);
    await failsWithin(() => evaluateExpression("[1..100000].[[1..100000]]", {}), /characters and items|evaluation steps/);
  });

  it("refuses huge date pictures and quadratic $distinct", async () => {
    await failsWithin(() => evaluateExpression('$fromMillis(0, "[Y,100000000]")', {}), /picture width 100000000 is above 100/);
    await failsWithin(() => evaluateExpression('$now("[Y0,100000000-100000000]")', {}), /picture width/);
    await failsWithin(() => evaluateExpression("$distinct([1..20000])", {}), /evaluation steps/);
  });

  it("runs regexes in linear time and refuses what RE2 cannot run at compile", async () => {
    const started = Date.now();
    expect(await evaluateExpression("$contains(input.s, /^(a+)+$/)", { input: { s: "a".repeat(5000) + "!" } })).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    const err = await failure(() => compileExpression("$match(s, /(a)\\1/)"));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    expect((err as ExpressionSyntaxError).position).toBe(17);
    expect(err.message).toMatch(/backreference|cannot run/);
  });

  it("honours smaller limits passed by the caller", async () => {
    // `$sum([1..5].($ + 1))` takes 27 steps and nests 5 levels deep.
    const text = "$sum([1..5].($ + 1))";
    expect(await evaluateExpression(text, {}, { maxSteps: 27, maxDepth: 5 })).toBe(20);
    await failsWithin(() => evaluateExpression(text, {}, { maxSteps: 26 }), /^expression exceeded 26 evaluation steps$/);
    await failsWithin(() => evaluateExpression(text, {}, { maxDepth: 4 }), /^expression nested deeper than 4 levels$/);
    await failsWithin(
      () => evaluateExpression("(function($f){$f($f)})(function($f){$f($f)})", {}, { maxSteps: 1e9, timeoutMs: 50 }),
      /^expression ran longer than 50 ms$/,
    );
  });

  it("shares one budget across the expressions of one smart value", async () => {
    const one = "{{ $sum([1..5].($ + 1)) }}";
    expect(await resolveSmartValue([one, one], {}, { limits: { maxSteps: 60 } })).toEqual([20, 20]);
    const err = await failure(resolveSmartValue([one, one, one], {}, { limits: { maxSteps: 60 } }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("[2]: expression exceeded 60 evaluation steps");
  });
});

describe("compile", () => {
  it("reports syntax errors with their position", () => {
    const err = compileFailure("input.n +");
    expect(err.position).toBe(9);
    expect(err.message).toMatch(/end of expression/i);
    expect(compileFailure("a b").position).toBe(3);
    expect(compileFailure("").message).toBe("expression is empty");
    expect(compileFailure("x".repeat(MAX_EXPRESSION_LENGTH + 1)).message).toBe(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  });

  it("compiles each text once", () => {
    expect(compileExpression("input.n + 1")).toBe(compileExpression("input.n + 1"));
    expect(compileExpression("input.n + 1")).not.toBe(compileExpression("input.n + 2"));
  });

  it("reports template syntax errors with the path", async () => {
    const err = await failure(resolveSmartValue({ a: ["ok", "{{ input.n +"] }, scope));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    expect(err.message).toBe('a[1]: "{{" at character 0 has no closing "}}"');
    const bad = await failure(resolveSmartValue({ a: "{{ input.n + }}" }, scope));
    expect(bad).toBeInstanceOf(ExpressionSyntaxError);
    expect(bad.message).toMatch(/^a: /);
  });

  it("names the path of an evaluation failure", async () => {
    const err = await failure(resolveSmartValue({ headers: { "x-n": '{{ $number("abc") }}' } }, scope));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toMatch(/^headers\["x-n"\]: /);
  });
});

function compileFailure(text: string): ExpressionSyntaxError {
  try {
    compileExpression(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    return err as ExpressionSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to compile`);
}

describe("expressionsIn", () => {
  it("lists every expression with its path", () => {
    const value = {
      url: "https://x/{{ input.id }}/{{ input.part }}",
      headers: { "x-a": "{{ outputs.a }}", plain: "no template" },
      items: [1, "x", { $jsonata: "input.items" }],
      keep: { $literal: "{{ never }}" },
      rows: { $rows: "{{ outputs.q.rows }}", $pipe: "$rows.id" },
      n: 5,
    };
    expect(expressionsIn(value, "config")).toEqual([
      { path: "config.url", text: " input.id " },
      { path: "config.url", text: " input.part " },
      { path: 'config.headers["x-a"]', text: " outputs.a " },
      { path: "config.items[2].$jsonata", text: "input.items" },
      { path: "config.rows.$rows", text: " outputs.q.rows " },
      { path: "config.rows.$pipe", text: "$rows.id" },
    ]);
    expect(expressionsIn("plain", "x")).toEqual([]);
    expect(expressionsIn("{{ a }}", "jobs[0].input")).toEqual([{ path: "jobs[0].input", text: " a " }]);
  });
});

describe("rootNamesOf", () => {
  it.each([
    ["input.x + outputs.step.y", ["input", "outputs"]],
    ["context.input.entity.id", ["context"]],
    ["config.env.URL & secrets.tenant.K", ["config", "secrets"]],
    ["outputs.a[id = input.id].name", ["outputs"]],
    ["outputs.a[id = $$.input.id].name", ["outputs", "input"]],
    ["outputs.rows[status = 'x'].{ 'v': value }", ["outputs"]],
    ["$map(input.items, function($v){ $v.price * outputs.rate })", ["input", "outputs"]],
    ["($x := context.a; $x.b)", ["context"]],
    ["$.input.x", ["input"]],
    ["$$.outputs", ["outputs"]],
    ["$keys($)", ["$"]],
    ["$count($$)", ["$$"]],
    ["*.x", ["$"]],
    ["outputs.rows^(price)", ["outputs"]],
    ["$now()", []],
    ["result.status >= 400", ["result"]],
    ["$rows[price > 1]", []],
    ["input.a ? context.b : config.c", ["input", "context", "config"]],
  ])("%s reads %j", (text, names) => {
    expect(rootNamesOf(text)).toEqual(names);
  });

  it("throws ExpressionSyntaxError for a bad expression", () => {
    expect(() => rootNamesOf("a +")).toThrow(ExpressionSyntaxError);
  });
});

describe("isTruthy", () => {
  it.each([
    [undefined, false],
    [null, false],
    [0, false],
    ["", false],
    [[], false],
    [{}, false],
    [false, false],
    [[0, ""], false],
    [1, true],
    ["x", true],
    [[0, 1], true],
    [{ a: 0 }, true],
    [true, true],
    [-1, true],
    [[[1]], true],
  ])("%j is %s", (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });

  it("agrees with JSONata's own cast", async () => {
    for (const value of [0, 1, "", "a", [], [0], [0, 1], {}, { a: 1 }, null, false, true]) {
      expect(await evaluateExpression("$boolean(v)", { v: value })).toBe(isTruthy(value));
    }
  });
});

describe("secrets an expression reads", () => {
  const secretScope = { config: { env: { TOKEN: "tok-secret-1", BASE: "https://api.example" } }, input: { n: 3 } };

  it("an expression that read a secret hands what it computed to the watch, each expression judged on its own reads", async () => {
    const watch = new Redactor(["tok-secret-1"]);
    const value = await resolveSmartValue(
      {
        upper: "{{ $uppercase(config.env.TOKEN) }}",
        size: "{{ $length(config.env.TOKEN) & ' chars long' }}",
        joined: "{{ $join(config.env.*, '|') }}",
        base: "{{ config.env.BASE }}",
        keys: "{{ $keys(config.env) }}",
        bearer: "Bearer {{ config.env.TOKEN }}",
      },
      secretScope,
      { secrets: watch },
    );
    expect(value).toEqual({
      upper: "TOK-SECRET-1",
      size: "12 chars long",
      joined: "tok-secret-1|https://api.example",
      base: "https://api.example",
      keys: ["TOKEN", "BASE"],
      bearer: "Bearer tok-secret-1",
    });
    // Reading config.env.BASE or the env's keys is no read of the token.
    expect(watch.value(value)).toEqual({
      upper: "***",
      size: "***",
      joined: "***",
      base: "https://api.example",
      keys: ["TOKEN", "BASE"],
      bearer: "Bearer ***",
    });
  });

  it("taints in turn what reads a computed value, and nothing without a watch or with an empty one", async () => {
    const watch = new Redactor(["tok-secret-1"]);
    const upper = await resolveSmartValue("{{ $uppercase(config.env.TOKEN) }}", secretScope, { secrets: watch });
    const later = await resolveSmartValue({ $jsonata: "$substring(input.upper, 0, 7)" }, { input: { upper } }, { secrets: watch });
    expect([upper, later, watch.value({ later })]).toEqual(["TOK-SECRET-1", "TOK-SEC", { later: "***" }]);
    const empty = new Redactor();
    await resolveSmartValue("{{ $uppercase(config.env.TOKEN) }}", secretScope, { secrets: empty });
    expect(empty.size).toBe(0);
  });
});

describe("a caller's mask for values computed from secrets", () => {
  it("replaces each expression that read a secret by the mask, keeping literal text and its siblings", async () => {
    const redactor = new Redactor(["tok-secret-1"]);
    const watch = {
      get size() {
        return redactor.size;
      },
      reveals: (t: string) => redactor.reveals(t),
      derived: (v: unknown) => void redactor.derived(v),
      mask: "***",
    };
    const scope = { config: { env: { TOKEN: "tok-secret-1", NAME: "ada" } } };
    const value = { a: "{{ $length(config.env.TOKEN) }}", b: "x {{ $substring(config.env.TOKEN, 0, 1) }} {{ config.env.NAME }}", c: "{{ config.env.NAME }}" };
    expect(await resolveSmartValue(value, scope, { secrets: watch })).toEqual({ a: "***", b: "x *** ada", c: "ada" });
  });
});

describe("a spec's functions", () => {
  it("are callable as $<name>(...) in templates, $jsonata and $pipe, and may call each other", async () => {
    const functions = { twice: "function($n) { $n * 2 }", quad: "function($n) { $twice($twice($n)) }" };
    const value = { a: "{{ $twice(input.n) }}", b: { $jsonata: "$quad(1)" }, c: { $rows: [1, 2], $pipe: "$rows.$twice($)" } };
    expect(await resolveSmartValue(value, scope, { functions })).toEqual({ a: 10, b: 4, c: [2, 4] });
  });

  it("bind only the functions an expression names, and run under its bounds", async () => {
    expect(withFunctions("input.n", { twice: "function($n) { $n * 2 }" })).toBe("input.n");
    const loop = { spin: "function($n) { $spin($n + 1) }" };
    const err = await failure(resolveSmartValue("{{ $spin(0) }}", scope, { functions: loop, limits: { maxSteps: 10_000 } }));
    expect(err).toBeInstanceOf(ExpressionError);
  });
});
