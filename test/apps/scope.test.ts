// The config scope rule (src/apps/config/): RFC 7396 merge patches, schema
// defaults, x-immutable and the 422 lines, without a database.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { effectiveConfig, mergePatch } from "../../src/apps/config/merge";
import { writeScope, type ScopeRules } from "../../src/apps/config/scope";
import type { JsonSchema } from "../../src/lib/validate";
import type { ApiError } from "../../src/lib/errors";

const json = fc.jsonValue({ maxDepth: 3 });
const object = fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__"), json, { maxKeys: 3 });

describe("merge patch", () => {
  it("follows the RFC 7396 examples", () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: "b" }, { a: "c" }, { a: "c" }],
      [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
      [{ a: "b" }, { a: null }, {}],
      [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
      [{ a: ["b"] }, { a: "c" }, { a: "c" }],
      [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
      [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
      [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
      [
        ["a", "b"],
        ["c", "d"],
        ["c", "d"],
      ],
      [{ a: "b" }, ["c"], ["c"]],
      [{ a: "foo" }, null, null],
      [{ a: "foo" }, "bar", "bar"],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: "b", c: null }, { a: "b" }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(mergePatch(target, patch)).toEqual(result);
  });

  it("is idempotent, keeps __proto__ a plain key, and applies disjoint patches in any order alike", () => {
    fc.assert(
      fc.property(object, object, (target, patch) => {
        const once = mergePatch(target, patch);
        expect(mergePatch(once, patch)).toEqual(once);
        expect(Object.getPrototypeOf(once)).toBe(Object.prototype);
      }),
    );
    fc.assert(
      fc.property(object, json, json, (target, x, y) => {
        expect(mergePatch(mergePatch(target, { x }), { y })).toEqual(mergePatch(mergePatch(target, { y }), { x }));
      }),
    );
  });
});

describe("scope writes", () => {
  const schema = {
    type: "object",
    properties: {
      limit: { type: "integer", maximum: 10 },
      mode: { type: "string", "x-immutable": true, default: "a" },
      box: { type: "object", properties: { n: { type: "integer", default: 1 } } },
    },
  };
  const rules: ScopeRules = { scope: "team", definition: { mode: "fixed" }, schema: schema as JsonSchema };
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("expected a refusal");
  };

  it("stores defaults of unset properties (not those the definition sets) and validates the effective value", () => {
    expect(writeScope(rules, {}, { box: {} })).toEqual({ box: { n: 1 } });
    expect(effectiveConfig(rules.definition, { box: { n: 1 } })).toEqual({ mode: "fixed", box: { n: 1 } });
    const err = refusal(() => writeScope(rules, {}, { limit: 11 }));
    expect([err.status, err.code, err.details.scope]).toEqual([422, "VALIDATION_FAILED", "team"]);
    expect((err.details.validation_errors as string[])[0]).toMatch(/^limit: /);
  });

  it("refuses a value other than the definition's for an x-immutable property, and accepts the same one", () => {
    const err = refusal(() => writeScope(rules, {}, { mode: "other" }));
    expect(err.details.validation_errors).toEqual(['mode: is immutable: the definition sets it to "fixed"']);
    expect(writeScope(rules, {}, { mode: "fixed" })).toEqual({ mode: "fixed" });
    expect(writeScope({ ...rules, definition: undefined }, {}, { mode: "free" })).toEqual({ mode: "free" });
  });
});
