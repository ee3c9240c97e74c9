import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compactJson, objectWithRaw } from "../../src/lib/raw-json";

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

describe("compactJson", () => {
  it("writes Postgres's spaced JSON as JSON.stringify writes the same value", () => {
    const spaced =
      '[{"id" : "a", "type" : {"id" : "t", "name" : "T"}, "attributes" : {"n": 1, "s": "x : y, z", "e": []}, "deleted_at" : null}, \n {"id" : "b"}]';
    expect(compactJson(spaced)).toBe(JSON.stringify(JSON.parse(spaced)));
    expect(compactJson(spaced)).toBe('[{"id":"a","type":{"id":"t","name":"T"},"attributes":{"n":1,"s":"x : y, z","e":[]},"deleted_at":null},{"id":"b"}]');
  });

  it("keeps whitespace, quotes and backslashes inside strings", () => {
    const spaced = String.raw`{"a" : "q\" , \"", "b": "\\", "c" : "\\\" x", "d": "tab\t nl\n \u001f"}`;
    expect(compactJson(spaced)).toBe(JSON.stringify(JSON.parse(spaced)));
  });

  it("prints numbers as JavaScript does where Postgres prints them otherwise", () => {
    expect(compactJson('{"a": 1.50, "b": 100.0, "c": -0.0, "d": 0.0000001, "e": 12345678901234567890, "f": -42, "g": 123456789012345}')).toBe(
      '{"a":1.5,"b":100,"c":0,"d":1e-7,"e":12345678901234567000,"f":-42,"g":123456789012345}',
    );
    expect(compactJson(`[1${"0".repeat(400)}]`)).toBe(JSON.stringify(JSON.parse(`[1${"0".repeat(400)}]`)));
  });

  it("returns compact text unchanged", () => {
    const compact = '{"a":[1,2,{"b":"c d"}],"e":true}';
    expect(compactJson(compact)).toBe(compact);
  });

  it("equals JSON.stringify of the parsed value for any JSON, however spaced", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(" ", "\n ", "\t"), (value, space) => {
        const expected = JSON.stringify(value);
        expect(compactJson(JSON.stringify(value, null, space))).toBe(expected);
      }),
      { seed: 20_261_124, numRuns: 500 },
    );
  });
});
