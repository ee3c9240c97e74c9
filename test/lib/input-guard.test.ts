import { describe, expect, it } from "vitest";
import { guardJson, isCleanText, jsonProblems, MAX_JSON_DEPTH, underflows } from "../../src/lib/input-guard";
import { ApiError } from "../../src/lib/errors";

const lines = (text: string, options = {}) => jsonProblems(JSON.parse(text), { source: text, ...options }).map((p) => `${p.path}: ${p.reason}`);
const nested = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels);

describe("isCleanText", () => {
  it("refuses NUL and unpaired surrogates, keeps paired ones", () => {
    expect(isCleanText("plain ✓")).toBe(true);
    expect(isCleanText("😀")).toBe(true);
    expect(isCleanText("a\u0000b")).toBe(false);
    expect(isCleanText("\ud800")).toBe(false);
    expect(isCleanText("x\udc00")).toBe(false);
    expect(isCleanText("\ude00\ud83d")).toBe(false);
  });
});

describe("jsonProblems: text", () => {
  // An object's own leaves come first, then what its arrays and objects hold.
  it("names values and keys, rendering bad keys as JSON literals", () => {
    expect(lines(String.raw`{"name":"a\u0000","attributes":{"tags":["ok","\ud800"],"na\u0000me":1,"fine":"😀"}}`)).toEqual([
      "name: must not contain NUL characters or unpaired surrogates",
      'attributes["na\\u0000me"]: is a key with NUL characters or unpaired surrogates',
      "attributes.tags[1]: must not contain NUL characters or unpaired surrogates",
    ]);
  });

  it("starts paths at the base, and says (root) without one", () => {
    expect(lines(String.raw`"\u0000"`)).toEqual(["(root): must not contain NUL characters or unpaired surrogates"]);
    expect(lines(String.raw`{"name":"\udfff"}`, { base: "data[7]" })).toEqual(["data[7].name: must not contain NUL characters or unpaired surrogates"]);
  });

  it("stops after twenty problems and says there are more", () => {
    const err = (() => {
      try {
        guardJson(Array.from({ length: 5000 }, () => "\u0000"));
      } catch (e) {
        return e as ApiError;
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(422);
    const got = err!.details.validation_errors as string[];
    expect(got).toHaveLength(21);
    expect(got[0]).toBe("[0]: must not contain NUL characters or unpaired surrogates");
    expect(got[20]).toBe("... and more");
  });
});

describe("jsonProblems: depth", () => {
  it(`allows ${MAX_JSON_DEPTH} levels and refuses the next, naming where`, () => {
    const objects = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
    expect(lines(objects(MAX_JSON_DEPTH))).toEqual([]);
    expect(lines(objects(MAX_JSON_DEPTH + 1))).toEqual([`${Array(MAX_JSON_DEPTH).fill("a").join(".")}: nests deeper than 128 levels of arrays and objects`]);
    expect(lines(nested(MAX_JSON_DEPTH))).toEqual([]);
    expect(lines(nested(MAX_JSON_DEPTH + 1))).toEqual([`${"[0]".repeat(100)}…: nests deeper than 128 levels of arrays and objects`]);
  });

  it("counts the levels that enclose the value (an upsert row sits 2 deep)", () => {
    expect(lines(nested(MAX_JSON_DEPTH - 2), { base: "data[0]", depth: 2 })).toEqual([]);
    expect(lines(nested(MAX_JSON_DEPTH - 1), { base: "data[0]", depth: 2 })).toHaveLength(1);
  });

  it("walks a 10,000- and a 1,000,000-deep document without exhausting the stack, cutting the path", () => {
    for (const levels of [10_000, 1_000_000]) {
      const got = lines(`{"attributes":${nested(levels, "0")},"x":1e5}`);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatch(/^attributes\[0\]\[0\]\[0\].*…: nests deeper than 128 levels of arrays and objects$/);
      expect(got[0].length).toBeLessThan(400);
    }
  });
});

describe("jsonProblems: numbers", () => {
  it("refuses numbers that overflow to infinity", () => {
    expect(lines(`{"a":1e400,"b":[-1e309],"c":1${"0".repeat(400)}}`)).toEqual([
      "a: is a number too large to store",
      "c: is a number too large to store",
      "b[0]: is a number too large to store",
    ]);
  });

  it("refuses numerals that underflow to 0, with or without an exponent", () => {
    expect(lines(`{"a":1e-400,"b":[0, -2.5e-330],"c":0.${"0".repeat(330)}1}`)).toEqual([
      "a: is a number too small to store (it would become 0)",
      "c: is a number too small to store (it would become 0)",
      "b[1]: is a number too small to store (it would become 0)",
    ]);
  });

  it("keeps zeros, tiny numbers that survive, and exponents elsewhere", () => {
    expect(lines(`{"a":0,"b":0.0,"c":-0,"d":0e10,"e":0.000e-500,"f":1e-300,"g":5e-324,"h":"1e-400","i":1e300}`)).toEqual([]);
  });

  it("cannot tell an underflow from 0 without the source text", () => {
    expect(jsonProblems(JSON.parse("[1e-400]"))).toEqual([]);
  });

  it("relies on JSON.parse source text access, which workerd provides", () => {
    const seen: unknown[] = [];
    JSON.parse("[1e-400]", function (this: unknown, _k: string, v: unknown, ...rest: unknown[]) {
      seen.push((rest[0] as { source?: string } | undefined)?.source);
      return v;
    } as Parameters<typeof JSON.parse>[1]);
    expect(seen[0]).toBe("1e-400");
  });

  it("underflows(): non-zero digits that read as 0", () => {
    expect(underflows("1e-400")).toBe(true);
    expect(underflows("-0.5E-330")).toBe(true);
    expect(underflows("0e-400")).toBe(false);
    expect(underflows("0.0")).toBe(false);
    expect(underflows("1e-300")).toBe(false);
  });
});

describe("guardJson", () => {
  it("throws 422 VALIDATION_FAILED with the lines, and passes clean values", () => {
    expect(() => guardJson({ a: [1, "x", { b: null, c: true }] })).not.toThrow();
    try {
      guardJson({ a: "\u0000" }, { message: "Query parameters failed validation" });
      expect.unreachable();
    } catch (e) {
      const err = e as ApiError;
      expect([err.status, err.code, err.message]).toEqual([422, "VALIDATION_FAILED", "Query parameters failed validation"]);
      expect(err.details.validation_errors).toEqual(["a: must not contain NUL characters or unpaired surrogates"]);
    }
  });
});
