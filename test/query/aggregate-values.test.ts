// The answer's exact numbers (src/entity/query/aggregate/values.ts): numeric
// text becomes a JSON number only when that number prints back as the same
// decimal; otherwise the text goes out as it is.
import { describe, expect, it } from "vitest";
import { exactNumber, nearestNumber } from "../../src/entity/query/aggregate/values";

describe("exactNumber", () => {
  it("answers a number for decimals a double prints back exactly, whatever Postgres's scale", () => {
    expect(exactNumber("0.3")).toBe(0.3);
    expect(exactNumber("0.30")).toBe(0.3);
    expect(exactNumber("379.50")).toBe(379.5);
    expect(exactNumber("-0.05")).toBe(-0.05);
    expect(exactNumber("0")).toBe(0);
    expect(exactNumber("0.000")).toBe(0);
    expect(exactNumber("9007199254740992")).toBe(9007199254740992);
    expect(exactNumber("100000000000000000000")).toBe(1e20);
    expect(exactNumber("1000000000000000000000")).toBe(1e21);
    expect(exactNumber("0.0000001")).toBe(1e-7);
  });

  it("answers the text for decimals no double prints back", () => {
    expect(exactNumber("9007199254740993")).toBe("9007199254740993");
    expect(exactNumber("2000000000000000.01")).toBe("2000000000000000.01");
    expect(exactNumber("0.1000000000000000000001")).toBe("0.1000000000000000000001");
    const huge = `2${"0".repeat(308)}`;
    expect(exactNumber(huge)).toBe(huge);
    expect(exactNumber("NaN")).toBe("NaN");
    expect(exactNumber("Infinity")).toBe("Infinity");
  });
});

describe("nearestNumber", () => {
  it("rounds to the nearest double, and keeps text no double holds", () => {
    expect(nearestNumber("3.3333333333333333")).toBe(10 / 3);
    expect(nearestNumber("75.9000000000000000")).toBe(75.9);
    expect(nearestNumber(`1${"0".repeat(400)}`)).toBe(`1${"0".repeat(400)}`);
  });
});
