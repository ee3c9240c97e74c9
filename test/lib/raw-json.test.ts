import { describe, expect, it } from "vitest";
import { objectWithRaw } from "../../src/lib/raw-json";

describe("objectWithRaw", () => {
  it("puts the raw JSON first and the other fields after it, as JSON.stringify would", () => {
    const raw = '[{"a": 1, "b": "x\\"y"}]';
    const text = objectWithRaw("data", raw, { next_cursor: "c1", count: 3 });
    expect(text).toBe('{"data":[{"a": 1, "b": "x\\"y"}],"next_cursor":"c1","count":3}');
    expect(JSON.parse(text)).toEqual({ data: [{ a: 1, b: 'x"y' }], next_cursor: "c1", count: 3 });
  });

  it("writes no trailing comma without other fields, and skips undefined ones", () => {
    expect(objectWithRaw("data", "[]", {})).toBe('{"data":[]}');
    expect(objectWithRaw("data", "[]", { next_cursor: undefined })).toBe('{"data":[]}');
  });
});
