import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/lib/redact";

describe("Redactor", () => {
  it("masks every occurrence in text and in JSON values, keys included, longest value first", () => {
    const r = new Redactor(["s3cret-token", "s3cret"]);
    expect(r.text("Bearer s3cret-token and s3cret")).toBe("Bearer *** and ***");
    expect(r.value({ a: "x s3cret-token y", list: ["s3cret", 1, null], s3cret: true })).toEqual({ a: "x *** y", list: ["***", 1, null], "***": true });
  });

  it("finds a value with quotes, backslashes and newlines as JSON spells it", () => {
    const secret = 'pa"ss\\wo\nrd';
    const r = new Redactor([secret]);
    expect(r.value({ header: `Basic ${secret}!` })).toEqual({ header: "Basic ***!" });
  });

  it("leaves values without a concealed value untouched (the same object) and ignores values shorter than 4", () => {
    const r = new Redactor(["abc"]);
    const v = { a: "abc abc" };
    expect(r.size).toBe(0);
    expect(r.value(v)).toBe(v);
    r.conceal("abcd");
    expect(r.value({ a: "xabcdx" })).toEqual({ a: "x***x" });
    expect(r.value(undefined)).toBeUndefined();
    expect(r.value("abcd")).toBe("***");
  });

  it("tells whether a text carries a concealed value, and conceals each string of a value derived from one", () => {
    const r = new Redactor(["s3cret"]);
    expect([r.reveals("a s3cret b"), r.reveals("S3CRET")]).toEqual([true, false]);
    expect(r.derived({ upper: "S3CRET", list: ["abc", "longer one", 7], s3cret: "s3cret" })).toEqual(["longer one", "S3CRET"]);
    expect(r.derived("S3CRET")).toEqual([]);
    expect(r.value({ a: "S3CRET", b: "the longer one", c: "abc" })).toEqual({ a: "***", b: "the ***", c: "abc" });
  });
});
