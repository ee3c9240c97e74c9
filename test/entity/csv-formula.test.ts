// OWASP CSV-injection escaping of export cells (src/entity/csv/columns.ts).
import { describe, expect, it } from "vitest";
import { cellText } from "../../src/entity/csv/columns";

describe("cellText with escapeFormulas", () => {
  it("prefixes ' to text starting with =, +, -, @, tab or carriage return, then quotes as RFC 4180 says", () => {
    const cases: [string, string][] = [
      ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
      ["=1+2", "'=1+2"],
      ["+1", "'+1"],
      ["-5", "'-5"],
      ["@SUM(A1)", "'@SUM(A1)"],
      ["\tcmd", "'\tcmd"],
      ["\r=1", `"'\r=1"`],
      ["=a,b", `"'=a,b"`],
    ];
    expect(cases.map(([value]) => cellText(value, true))).toEqual(cases.map(([, text]) => text));
  });

  it("leaves numbers, booleans, JSON and other text as they are", () => {
    expect([-5, -0.25, 1e21, true, ["=x"], { f: "=x" }, "a=b", " =1", "'quoted", "", null, undefined].map((v) => cellText(v, true))).toEqual([
      "-5",
      "-0.25",
      "1e+21",
      "true",
      `"[""=x""]"`,
      `"{""f"":""=x""}"`,
      "a=b",
      `" =1"`,
      "'quoted",
      `""`,
      "",
      "",
    ]);
  });

  it("writes text as stored when escaping is off", () => {
    expect(["=1+2", "-5", "@x", "\tcmd"].map((v) => cellText(v))).toEqual(["=1+2", "-5", "@x", `"\tcmd"`]);
  });
});
