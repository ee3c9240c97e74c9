// List operations on a config scope (setPrincipalConfig ops): the merge
// patch they make of the effective config, and what they refuse.
import { describe, expect, it } from "vitest";
import { opsPatch } from "../../src/apps/config/ops";
import { ApiError } from "../../src/lib/errors";

describe("opsPatch", () => {
  it("appends unique items, creating the list and its parents", () => {
    expect(opsPatch({}, [{ op: "appendUnique", path: "pins.ids", value: "a" }])).toEqual({ pins: { ids: ["a"] } });
    expect(opsPatch({ pins: { ids: ["a"], other: 1 } }, [{ op: "appendUnique", path: "pins.ids", value: "a" }])).toEqual({ pins: { ids: ["a"] } });
    expect(opsPatch({ l: [{ a: 1, b: 2 }] }, [{ op: "appendUnique", path: "l", value: { b: 2, a: 1 } }])).toEqual({ l: [{ a: 1, b: 2 }] });
  });

  it("removes every equal item, and a missing list stays empty", () => {
    expect(
      opsPatch({ l: ["a", "b", "a", { x: [1] }] }, [
        { op: "remove", path: "l", value: "a" },
        { op: "remove", path: "l", value: { x: [1] } },
      ]),
    ).toEqual({ l: ["b"] });
    expect(opsPatch({}, [{ op: "remove", path: "l", value: "a" }])).toEqual({ l: [] });
  });

  it("moves the first equal item by one place, a no-op at an end or when absent", () => {
    const l = { l: ["a", "b", "c"] };
    expect(opsPatch(l, [{ op: "moveItem", path: "l", value: "b", by: -1 }])).toEqual({ l: ["b", "a", "c"] });
    expect(opsPatch(l, [{ op: "moveItem", path: "l", value: "b", by: 1 }])).toEqual({ l: ["a", "c", "b"] });
    expect(opsPatch(l, [{ op: "moveItem", path: "l", value: "a", by: -1 }])).toEqual({ l: ["a", "b", "c"] });
    expect(opsPatch(l, [{ op: "moveItem", path: "l", value: "z" }])).toEqual({ l: ["a", "b", "c"] });
  });

  it("applies ops in order on the value the earlier ones left, and answers every list touched", () => {
    const patch = opsPatch({ a: ["x"], b: { c: [] } }, [
      { op: "appendUnique", path: "a", value: "y" },
      { op: "moveItem", path: "a", value: "y", by: -1 },
      { op: "appendUnique", path: "b.c", value: 1 },
    ]);
    expect(patch).toEqual({ a: ["y", "x"], b: { c: [1] } });
  });

  it("keeps a key named __proto__ a plain key", () => {
    const patch = opsPatch({}, [{ op: "appendUnique", path: "__proto__.polluted", value: 1 }]);
    expect(Object.hasOwn(patch, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a path to a value that is not a list, or through one that is not an object, and an empty segment", () => {
    const refused = (config: Record<string, unknown>, path: string) => {
      try {
        opsPatch(config, [{ op: "appendUnique", path, value: 1 }]);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        return (e as ApiError).message;
      }
      throw new Error("not refused");
    };
    expect(refused({ title: "x" }, "title")).toBe("ops[0]: title holds string, not a list");
    expect(refused({ title: null }, "title")).toBe("ops[0]: title holds null, not a list");
    expect(refused({ a: [1] }, "a.b")).toBe("ops[0]: a is not an object, so a.b cannot be a list");
    expect(refused({}, "a..b")).toBe('ops[0].path "a..b" is not a dotted path');
  });
});
