// Cron expressions as Vixie cron and cronie read them: the syntax gate, the
// next occurrence (checked against a day-by-day model of Vixie's matching
// rule on random expressions) and the "fires within the hour" class.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cronProblem, firesWithinTheHour, newSchedule, nextTick } from "../../src/definition/language/cron-expression";

const at = (iso: string) => new Date(iso);

describe("cronProblem", () => {
  it.each([
    "* * * * *",
    "*/5 * * * *",
    "0 9 * * 1-5",
    "0,15,30,45 * * * *",
    "0-30/10 * * * *",
    "0 0 1 jan *",
    "0 0 * JAN-Mar MON-fri",
    "0 0 * * 0",
    "0 0 * * 7",
    "0 0 * * Sun",
    "0 0 * * fri-sun",
    "0 0 * * 5-7",
    "0 0 * * 1-5/2",
    "00 05 * * *",
    "0 0 1,15 * 3",
    "0 0 29 2 *",
    "0 0 30 2 1",
    "*/61 * * * *",
    "  0\t0  * * *  ",
  ])("accepts %j", (expr) => {
    expect(cronProblem(expr)).toBeNull();
  });

  it.each([
    ["", "expected 5 fields (minute hour day-of-month month day-of-week), got 0"],
    ["* * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"],
    ["0 * * * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 6"],
    ["@daily", '"@daily" macros are not supported; write the five fields'],
    ["@reboot", '"@reboot" macros are not supported; write the five fields'],
    ["@hourly 0 * * *", '"@hourly" macros are not supported; write the five fields'],
    ["0 0 ? * *", 'day-of-month field: "?" is not supported (use numbers, *, lists, ranges and steps)'],
    ["0 0 * * ?", 'day-of-week field: "?" is not supported (use numbers, names, *, lists, ranges and steps)'],
    ["0 0 L * *", 'day-of-month field: "L" is not a number'],
    ["0 0 15W * *", 'day-of-month field: "15W" is not a number'],
    ["0 0 LW * *", 'day-of-month field: "LW" is not a number'],
    ["0 0 * * 5L", 'day-of-week field: "5L" is not a number or a name (sun, mon, tue, wed, thu, fri, sat)'],
    ["0 0 * * 1#2", 'day-of-week field: "1#2" is not supported (use numbers, names, *, lists, ranges and steps)'],
    ["H * * * *", 'minute field: "H" is not a number'],
    ["H/15 * * * *", 'minute field: "H/15" steps a single value; steps apply to * or a range (a-b/n)'],
    ["H(0-29) * * * *", 'minute field: "H(0-29)" is not supported (use numbers, *, lists, ranges and steps)'],
    ["~ * * * *", 'minute field: "~" is not supported (use numbers, *, lists, ranges and steps)'],
    ["60 * * * *", "minute field: 60 is out of range 0-59"],
    ["* 24 * * *", "hour field: 24 is out of range 0-23"],
    ["* * 0 * *", "day-of-month field: 0 is out of range 1-31"],
    ["* * 32 * *", "day-of-month field: 32 is out of range 1-31"],
    ["* * * 0 *", "month field: 0 is out of range 1-12"],
    ["* * * 13 *", "month field: 13 is out of range 1-12"],
    ["* * * * 8", "day-of-week field: 8 is out of range 0-7"],
    ["99999999999999999999 * * * *", "minute field: 99999999999999999999 is out of range 0-59"],
    ["5/10 * * * *", 'minute field: "5/10" steps a single value; steps apply to * or a range (a-b/n)'],
    ["*/0 * * * *", "minute field: step 0 must be at least 1"],
    ["30-10 * * * *", "minute field: range 30-10 runs backwards"],
    ["0 0 * * sat-mon", "day-of-week field: range sat-mon runs backwards"],
    ["0 0 * dec-jan *", "month field: range dec-jan runs backwards"],
    ["0 0 * * monday", 'day-of-week field: "monday" is not a number or a name (sun, mon, tue, wed, thu, fri, sat)'],
    ["0 0 * january *", 'month field: "january" is not a number or a name (jan, feb, mar, apr, may, jun, jul, aug, sep, oct, nov, dec)'],
    ["jan * * * *", 'minute field: "jan" is not a number'],
    ["0 0 * * */mon", 'day-of-week field: "*/mon" is not supported (use numbers, names, *, lists, ranges and steps)'],
    ["1,,2 * * * *", 'minute field: "" is not supported (use numbers, *, lists, ranges and steps)'],
    ["1, 2 * * *", 'minute field: "" is not supported (use numbers, *, lists, ranges and steps)'],
    ["-1 * * * *", 'minute field: "-1" is not supported (use numbers, *, lists, ranges and steps)'],
    ["1-2-3 * * * *", 'minute field: "1-2-3" is not supported (use numbers, *, lists, ranges and steps)'],
    ["1.5 * * * *", 'minute field: "1.5" is not supported (use numbers, *, lists, ranges and steps)'],
    ["0 0 30 2 *", "never fires: no chosen day of the month exists in the chosen months"],
    ["0 0 31 4,6,9,11 *", "never fires: no chosen day of the month exists in the chosen months"],
    ["0 0 30,31 2 */7", "never fires: no chosen day of the month exists in the chosen months"],
    ["0 0 * * *\u0000", 'day-of-week field: "*\u0000" is not supported (use numbers, names, *, lists, ranges and steps)'],
    ["\ud800 * * * *", 'minute field: "\ud800" is not supported (use numbers, *, lists, ranges and steps)'],
    ["0 0 * * *\n", 'day-of-week field: "*\n" is not supported (use numbers, names, *, lists, ranges and steps)'],
  ])("refuses %j", (expr, reason) => {
    expect(cronProblem(expr)).toBe(reason);
  });

  it("refuses what is not a string", () => {
    for (const value of [42, null, undefined, ["* * * * *"], { cron: "* * * * *" }]) expect(cronProblem(value as never)).toBe("must be a string");
  });
});

describe("nextTick", () => {
  it.each([
    // Strictly after, at minute precision: seconds of `after` are dropped.
    ["* * * * *", "2024-01-01T10:00:00Z", "2024-01-01T10:01:00.000Z"],
    ["* * * * *", "2024-01-01T10:00:59.999Z", "2024-01-01T10:01:00.000Z"],
    ["30 */6 * * *", "2024-01-01T18:30:00Z", "2024-01-02T00:30:00.000Z"],
    ["0 0 1 1 *", "2024-06-01T00:00:00Z", "2025-01-01T00:00:00.000Z"],
    ["59 23 31 12 *", "2024-12-31T23:59:00Z", "2025-12-31T23:59:00.000Z"],
    // Month ends: a day a month lacks is skipped, not rolled into the next month.
    ["0 0 1 * *", "2024-01-31T12:00:00Z", "2024-02-01T00:00:00.000Z"],
    ["0 0 31 * *", "2024-04-15T00:00:00Z", "2024-05-31T00:00:00.000Z"],
    ["0 0 */10 * *", "2024-02-21T00:00:00Z", "2024-03-01T00:00:00.000Z"],
    // Leap days: 2100 is not a leap year.
    ["0 0 29 2 *", "2023-03-01T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["0 0 29 2 *", "2024-02-29T00:00:00Z", "2028-02-29T00:00:00.000Z"],
    ["0 0 29 2 *", "2096-03-01T00:00:00Z", "2104-02-29T00:00:00.000Z"],
    // Sunday is 0, 7 and sun (2024-06-01 is a Saturday).
    ["0 12 * * 0", "2024-06-01T00:00:00Z", "2024-06-02T12:00:00.000Z"],
    ["0 12 * * 7", "2024-06-01T00:00:00Z", "2024-06-02T12:00:00.000Z"],
    ["0 12 * * SUN", "2024-06-01T00:00:00Z", "2024-06-02T12:00:00.000Z"],
    ["0 0 * * 5-7", "2024-06-02T00:00:00Z", "2024-06-07T00:00:00.000Z"],
    ["0 0 * * fri-sun", "2024-06-07T00:00:00Z", "2024-06-08T00:00:00.000Z"],
    ["0 0 * * fri-sun", "2024-06-08T00:00:00Z", "2024-06-09T00:00:00.000Z"],
    ["0 0 * * fri-sun", "2024-06-09T00:00:00Z", "2024-06-14T00:00:00.000Z"],
    // Names, any case (2024-02-01 is a Thursday).
    ["0 0 * feb Mon", "2024-01-01T00:00:00Z", "2024-02-05T00:00:00.000Z"],
    ["0 0 1 JUL-aug *", "2024-07-01T00:00:00Z", "2024-08-01T00:00:00.000Z"],
    // Both day fields written out: either matches (2024-09-10 is a Tuesday, 09-13 a Friday).
    ["0 0 10 * 5", "2024-09-07T00:00:00Z", "2024-09-10T00:00:00.000Z"],
    ["0 0 10 * 5", "2024-09-10T00:00:00Z", "2024-09-13T00:00:00.000Z"],
    // A day field starting with `*` (`*/2` too): both must match. Mondays on odd dates.
    ["0 0 */2 * 1", "2024-09-01T00:00:00Z", "2024-09-09T00:00:00.000Z"],
    ["0 0 */2 * 1", "2024-09-09T00:00:00Z", "2024-09-23T00:00:00.000Z"],
    ["0 0 */2 * 1", "2024-09-23T00:00:00Z", "2024-10-07T00:00:00.000Z"],
    // The 1st on Sun/Tue/Thu/Sat: 2025-01-01 is a Wednesday, 2025-02-01 a Saturday.
    ["0 0 1 * */2", "2024-12-15T00:00:00Z", "2025-02-01T00:00:00.000Z"],
  ])("%j after %s is %s", (expr, after, expected) => {
    expect(nextTick(expr, at(after)).toISOString()).toBe(expected);
  });

  it("throws on an invalid expression or time", () => {
    expect(() => nextTick("0 0 30 2 *", at("2024-01-01T00:00:00Z"))).toThrow("never fires");
    expect(() => nextTick("@daily", at("2024-01-01T00:00:00Z"))).toThrow("macros");
    expect(() => nextTick("* * * * *", new Date(Number.NaN))).toThrow("invalid start time");
  });
});

describe("nextTick against a model of Vixie's matching", () => {
  interface Field {
    text: string;
    values: Set<number>;
  }
  const range = (from: number, to: number, step: number) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
  const item = (min: number, max: number) =>
    fc.oneof(
      fc.constant({ text: "*", values: range(min, max, 1) }),
      fc.integer({ min: 1, max: max - min + 2 }).map((s) => ({ text: `*/${s}`, values: range(min, max, s) })),
      fc.integer({ min, max }).map((v) => ({ text: `${v}`, values: [v] })),
      fc
        .tuple(fc.integer({ min, max }), fc.integer({ min, max }), fc.integer({ min: 1, max: 12 }))
        .map(([a, b, s]) => [Math.min(a, b), Math.max(a, b), s])
        .map(([a, b, s]) => ({ text: s === 1 ? `${a}-${b}` : `${a}-${b}/${s}`, values: range(a, b, s) })),
    );
  const field = (min: number, max: number) =>
    fc
      .array(item(min, max), { minLength: 1, maxLength: 3 })
      .map((items): Field => ({ text: items.map((i) => i.text).join(","), values: new Set(items.flatMap((i) => i.values)) }));
  const expression = fc.record({ minute: field(0, 59), hour: field(0, 23), dom: field(1, 31), month: field(1, 12), dow: field(0, 7) });
  type Expression = typeof expression extends fc.Arbitrary<infer E> ? E : never;

  /** The first matching minute after `after`, scanning day by day for 401 years, or null. */
  function modelNext(e: Expression, after: Date): Date | null {
    const dow = new Set([...e.dow.values].map((d) => d % 7));
    const either = !e.dom.text.startsWith("*") && !e.dow.text.startsWith("*");
    const start = Math.floor(after.getTime() / 60_000) * 60_000 + 60_000;
    const day0 = Math.floor(start / 86_400_000);
    for (let day = day0; day < day0 + 401 * 366; day++) {
      const date = new Date(day * 86_400_000);
      if (!e.month.values.has(date.getUTCMonth() + 1)) continue;
      const domOk = e.dom.values.has(date.getUTCDate());
      const dowOk = dow.has(date.getUTCDay());
      if (!(either ? domOk || dowOk : domOk && dowOk)) continue;
      for (let minute = 0; minute < 1440; minute++) {
        const t = day * 86_400_000 + minute * 60_000;
        if (t >= start && e.hour.values.has(Math.floor(minute / 60)) && e.minute.values.has(minute % 60)) return new Date(t);
      }
    }
    return null;
  }

  it("agrees on random expressions and start times", () => {
    fc.assert(
      fc.property(expression, fc.date({ min: at("1990-01-01T00:00:00Z"), max: at("2090-01-01T00:00:00Z"), noInvalidDate: true }), (e, after) => {
        const text = [e.minute, e.hour, e.dom, e.month, e.dow].map((f) => f.text).join(" ");
        const expected = modelNext(e, after);
        if (expected === null) {
          expect(cronProblem(text)).toBe("never fires: no chosen day of the month exists in the chosen months");
          return;
        }
        expect(cronProblem(text)).toBeNull();
        expect(nextTick(text, after).toISOString()).toBe(expected.toISOString());
      }),
      { seed: 20_260_713, numRuns: 300 },
    );
  });
});

describe("firesWithinTheHour", () => {
  it.each([
    ["* * * * *", true],
    ["*/5 * * * *", true],
    ["0,30 * * * *", true],
    // Minutes 0 and 59: the longest gap is 59 minutes.
    ["*/59 * * * *", true],
    ["0,1 * * * *", true],
    ["* * 1-31 * *", true],
    ["* * * * 0-6", true],
    ["* * 1-31 * 1", true],
    ["0 * * * *", false],
    ["5 * * * *", false],
    ["*/61 * * * *", false],
    ["0 9 * * 1-5", false],
    ["*/5 * * * 1-5", false],
    ["*/5 0-22 * * *", false],
    ["* * * 1-11 *", false],
    ["* * 1-30 * *", false],
    ["* * * * 7", false],
  ])("%j: %s", (expr, expected) => {
    expect(firesWithinTheHour(expr)).toBe(expected);
  });

  it("agrees with the gaps between the occurrences of two months", () => {
    const start = at("2024-01-29T00:00:00Z");
    for (const expr of ["*/20 * * * *", "*/20 * 1-29 * *", "0,20,40 0-23 * * *", "*/30 * * 1,3-12 *", "*/15 * * * 0-5"]) {
      let longest = 0;
      for (let t = nextTick(expr, start), n = nextTick(expr, t); n.getTime() < Date.UTC(2024, 2, 31); t = n, n = nextTick(expr, n)) {
        longest = Math.max(longest, n.getTime() - t.getTime());
      }
      expect(firesWithinTheHour(expr), expr).toBe(longest < 3_600_000);
    }
  });
});

describe("newSchedule", () => {
  it("starts at the next tick with a 0-9 s offset; hourly and rarer expressions catch up", () => {
    const now = at("2024-03-10T08:17:42Z");
    const hourly = newSchedule("0 * * * *", now);
    expect(hourly.nextRunAt.toISOString()).toBe("2024-03-10T09:00:00.000Z");
    expect(hourly.catchUp).toBe(true);
    const minutely = newSchedule("* * * * *", now);
    expect(minutely.nextRunAt.toISOString()).toBe("2024-03-10T08:18:00.000Z");
    expect(minutely.catchUp).toBe(false);
    const offsets = new Set(Array.from({ length: 1000 }, () => newSchedule("*/5 * * * *", now).offsetSeconds));
    expect([...offsets].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("throws on an invalid expression", () => {
    expect(() => newSchedule("0 0 L * *", at("2024-01-01T00:00:00Z"))).toThrow('"L" is not a number');
  });
});
