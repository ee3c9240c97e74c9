// The one back-off (lib/backoff.ts): capped, doubling, jittered within its range.
import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../src/lib/backoff";

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the cap, at the top of its range when random is 1", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((retry) => backoffDelay(retry, 1_000, 30_000, () => 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it("keeps the jitter within [initial, cap]: the lower end is half the cap, never under the initial delay", () => {
    expect([1, 2, 3, 4, 6].map((retry) => backoffDelay(retry, 1_000, 30_000, () => 0))).toEqual([1_000, 1_000, 2_000, 4_000, 15_000]);
    expect(backoffDelay(3, 1_000, 30_000, () => 0.5)).toBe(3_000);
  });

  it("stays within [initial, cap] for every retry and random value", () => {
    for (let retry = 1; retry <= 40; retry++) {
      for (const r of [0, 0.001, 0.25, 0.5, 0.999, 1]) {
        const d = backoffDelay(retry, 250, 10_000, () => r);
        const cap = Math.min(10_000, 250 * 2 ** (retry - 1));
        if (d < 250 || d > cap || !Number.isInteger(d)) throw new Error(`retry ${retry}, random ${r}: ${d} outside [250, ${cap}]`);
      }
    }
    expect(backoffDelay(40, 250, 10_000, () => 1)).toBe(10_000);
  });

  it("retries at once when the initial delay is 0, and never passes a cap below the initial delay", () => {
    expect([1, 2, 10].map((retry) => backoffDelay(retry, 0, 5_000, () => 1))).toEqual([0, 0, 0]);
    expect([1, 3].map((retry) => backoffDelay(retry, 2_000, 500, () => 0.5))).toEqual([500, 500]);
  });

  it("uses Math.random when no source is given", () => {
    const d = backoffDelay(3, 100, 1_000);
    expect(d >= 200 && d <= 400).toBe(true);
  });
});
