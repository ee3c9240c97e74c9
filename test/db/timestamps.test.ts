// The API's one timestamp form, from each of its three producers.
import { describe, expect, it } from "vitest";
import { isoTimestamp, pgTimestamptzToIso } from "../../src/lib/timestamps";

describe("isoTimestamp", () => {
  it("prints UTC with the fraction's trailing zeros trimmed, and no fraction on a whole second", () => {
    expect(isoTimestamp(Date.UTC(2026, 10, 24, 1, 2, 3))).toBe("2026-11-24T01:02:03Z");
    expect(isoTimestamp(Date.UTC(2026, 10, 24, 1, 2, 3, 500))).toBe("2026-11-24T01:02:03.5Z");
    expect(isoTimestamp(Date.UTC(2026, 10, 24, 1, 2, 3, 120))).toBe("2026-11-24T01:02:03.12Z");
    expect(isoTimestamp(Date.UTC(2026, 10, 24, 1, 2, 3, 7))).toBe("2026-11-24T01:02:03.007Z");
    expect(isoTimestamp(new Date("2000-01-01T00:00:00.000Z"))).toBe("2000-01-01T00:00:00Z");
  });
});

describe("pgTimestamptzToIso", () => {
  it("turns Postgres's text in any session time zone into the same form", () => {
    expect(pgTimestamptzToIso("2026-11-24 01:02:03+00")).toBe("2026-11-24T01:02:03Z");
    expect(pgTimestamptzToIso("2026-11-24 01:02:03.123456+00")).toBe("2026-11-24T01:02:03.123456Z");
    expect(pgTimestamptzToIso("2026-11-24 02:32:03.5+01:30")).toBe("2026-11-24T01:02:03.5Z");
    expect(pgTimestamptzToIso("2026-11-23 20:02:03.25-05")).toBe("2026-11-24T01:02:03.25Z");
  });

  it("agrees with isoTimestamp on the same instant", () => {
    for (const ms of [0, 500, 120, 7]) {
      const instant = Date.UTC(2026, 10, 24, 1, 2, 3, ms);
      const fraction = ms ? `.${String(ms).padStart(3, "0").replace(/0+$/, "")}` : "";
      expect(pgTimestamptzToIso(`2026-11-24 01:02:03${fraction}+00`)).toBe(isoTimestamp(instant));
    }
  });

  it("leaves text that is not a Postgres timestamptz as it is", () => {
    expect(pgTimestamptzToIso("2026-11-24T01:02:03Z")).toBe("2026-11-24T01:02:03Z");
  });
});
