// The linear-time engine behind JSON Schema patterns: it agrees with
// ECMAScript's `u` regexes on what they match, refuses what it cannot run,
// and takes time linear in the input where backtracking took exponential.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { linearRegExp, patternProblem, toRe2, UnsupportedPattern, withLinearRegExp } from "../../src/lib/linear-regexp";

/** Constructs where RE2's default meaning differs from ECMAScript's, and the escapes only ECMAScript spells that way. */
const PATTERNS = [
  "^.*$",
  "^.$",
  "^\\s+$",
  "\\S",
  "^[\\s\\d]+$",
  "^[^\\s]+$",
  "^[\\S]+$",
  "^[^\\S\\n]+$",
  "^\\w+$",
  "\\bA",
  "^[^]$",
  "[]",
  "^\\p{L}+$",
  "^\\p{Letter}+$",
  "^\\P{Lu}$",
  "^\\p{Script=Latin}+$",
  "^\\p{gc=Nd}$",
  "^\\u00e9$",
  "^\\u{1F600}$",
  "^\\uD83D\\uDE00$",
  "^[\\u0041-\\u005A]+$",
  "^(?<x>a|A)+$",
  "^[\\b]$",
  "^\\cJ$",
  "^\\x41",
  "^\\0$",
  "^[a\\-z]+$",
  "^\\/$",
  "^(?:a|1)*$",
  "^a{2,3}$",
  "^[[]$",
  "^\\v\\t$",
  "^[\\w\\-]+$",
  "a$",
  "^$",
  "^(a+)+$",
];
const CHARS = [
  "a",
  "A",
  "1",
  "9",
  " ",
  "\n",
  "\r",
  "\t",
  "\v",
  "\b",
  "\0",
  "\u2028",
  "\u00a0",
  "\ufeff",
  "\u3000",
  "\u0085",
  "😀",
  "é",
  "_",
  "-",
  "[",
  ":",
  "/",
];

describe("linearRegExp agrees with ECMAScript", () => {
  it.each(PATTERNS)("matches what new RegExp(%j, 'u') matches", (pattern) => {
    const native = new RegExp(pattern, "u");
    const linear = linearRegExp(pattern);
    const input = fc.array(fc.constantFrom(...CHARS), { maxLength: 6 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(input, (s) => linear.test(s) === native.test(s)),
      { seed: 7, numRuns: 400, examples: [[""], ["\r"], ["\u2028"], ["😀"]] },
    );
  });

  it("rewrites the constructs whose meaning differs", () => {
    expect(toRe2("a.b")).toBe("a[^\\n\\r\\x{2028}\\x{2029}]b");
    expect(toRe2("\\p{Letter}\\P{gc=Uppercase_Letter}")).toBe("\\p{L}\\P{Lu}");
    expect(toRe2("\\uD83D\\uDE00\\u{1F600}\\u00e9")).toBe("\\x{1f600}\\x{1F600}\\x{e9}");
    expect(toRe2("(?<year>\\d{4})[[:]")).toBe("(\\d{4})[\\[:]");
  });
});

describe("patternProblem", () => {
  it("accepts ordinary patterns, including ones that backtrack exponentially", () => {
    for (const p of ["^[A-Za-z0-9][A-Za-z0-9_.:-]*$", "^(a+)+$", "^\\p{L}+$", "(x|y)*z"]) expect(patternProblem(p)).toBeUndefined();
  });

  it("names what cannot be used", () => {
    expect(patternProblem("([a-z]")).toBe("is not a valid ECMAScript regular expression");
    const linear = "uses what the linear-time regex engine cannot run: ";
    // workerd's V8 knows ES2025 modifiers; translating them would need `.` and `\s` per flag, so they are refused.
    expect(patternProblem("(?i:a)")).toBe(`${linear}inline modifiers`);
    expect(patternProblem("(a)\\1")).toBe(`${linear}backreferences`);
    expect(patternProblem("(?<x>a)\\k<x>")).toBe(`${linear}backreferences`);
    expect(patternProblem("a(?=b)")).toBe(`${linear}lookahead and lookbehind`);
    expect(patternProblem("a(?!b)")).toBe(`${linear}lookahead and lookbehind`);
    expect(patternProblem("(?<=a)b")).toBe(`${linear}lookahead and lookbehind`);
    expect(patternProblem("(?<!a)b")).toBe(`${linear}lookahead and lookbehind`);
    expect(patternProblem("\\p{Script_Extensions=Latin}")).toBe(`${linear}the Unicode property Script_Extensions`);
    expect(patternProblem("a{1001}")).toBe(`${linear}invalid repeat count: \`{1001}\``);
    expect(() => linearRegExp("(a)\\1")).toThrow(UnsupportedPattern);
  });
});

describe("time", () => {
  it("answers the ReDoS input in linear time: 32 a's and a '!' in milliseconds, 100,000 in well under a second", () => {
    const re = linearRegExp("^(a+)+$");
    let start = performance.now();
    expect(re.test(`${"a".repeat(32)}!`)).toBe(false);
    expect(performance.now() - start).toBeLessThan(100);
    start = performance.now();
    expect(re.test(`${"a".repeat(100_000)}!`)).toBe(false);
    expect(re.test("a".repeat(100_000))).toBe(true);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe("withLinearRegExp", () => {
  it("hands out RE2-backed objects for new RegExp(…) inside, and restores the global after, even on a throw", () => {
    const native = RegExp;
    const start = performance.now();
    const result = withLinearRegExp(() => new RegExp("^(a+)+$", "u").test(`${"a".repeat(40)}!`));
    expect(result).toBe(false);
    expect(performance.now() - start).toBeLessThan(100);
    expect(RegExp).toBe(native);
    expect(() => withLinearRegExp(() => new RegExp("(", "u"))).toThrow(SyntaxError);
    expect(RegExp).toBe(native);
  });
});
