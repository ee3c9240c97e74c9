// The rolling window behind the rate limits (docs/api.md, Rate limits), driven by a clock the
// test sets: no test waits for time to pass. test/gateway/rate-limit.test.ts
// covers the same budgets through the gateway, on the system clock.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../durable-objects/rate-limiter";
import type { Clock } from "../../src/lib/clock";
import { DurableRateLimits } from "../../src/lib/ratelimit/do-client";
import { DistinctWindow, RollingWindow } from "../../src/lib/ratelimit/window";

/** A clock that stands still until the test moves it; `at(s)` is `s` seconds after an arbitrary epoch. */
function manualClock() {
  const epoch = Date.UTC(2026, 0, 1);
  let ms = epoch;
  const clock: Clock = { now: () => ms };
  return { clock, at: (seconds: number) => void (ms = epoch + seconds * 1000) };
}

const allowed = (remaining: number) => ({ allowed: true, remaining });
const refused = { allowed: false, remaining: 0 };

describe("rolling window", () => {
  it("allows `limit` requests in a window, counting remaining down to 0, then refuses", () => {
    const { clock, at } = manualClock();
    const window = new RollingWindow(clock);
    at(0);
    expect([1, 2, 3, 4].map(() => window.hit(3, 60))).toEqual([allowed(2), allowed(1), allowed(0), refused]);
    at(59.999);
    expect(window.hit(3, 60)).toEqual(refused);
  });

  it("rolls second by second: each request frees its unit exactly `window` seconds after its second began", () => {
    const { clock, at } = manualClock();
    const window = new RollingWindow(clock);
    const seen: [number, unknown][] = [];
    const hit = (s: number) => {
      at(s);
      seen.push([s, window.hit(3, 10)]);
    };
    // One request at each of seconds 0, 1 and 2 spends the budget of 3.
    hit(0.5);
    hit(1);
    hit(2.9);
    hit(9.999);
    // Second 0 leaves the window at 10, second 1 at 11, second 2 at 12.
    hit(10);
    hit(10.5);
    hit(11);
    hit(11.2);
    hit(12);
    expect(seen).toEqual([
      [0.5, allowed(2)],
      [1, allowed(1)],
      [2.9, allowed(0)],
      [9.999, refused],
      [10, allowed(0)],
      [10.5, refused],
      [11, allowed(0)],
      [11.2, refused],
      [12, allowed(0)],
    ]);
  });

  it("does not count refused requests: a budget hammered while spent is whole again one window after it was spent", () => {
    const { clock, at } = manualClock();
    const window = new RollingWindow(clock);
    at(0);
    for (let i = 0; i < 5; i++) expect(window.hit(5, 60)).toEqual(allowed(4 - i));
    for (let s = 0; s < 60; s++) {
      at(s);
      for (let i = 0; i < 10; i++) expect(window.hit(5, 60)).toEqual(refused);
    }
    at(60);
    expect([1, 2, 3, 4, 5, 6].map(() => window.hit(5, 60))).toEqual([allowed(4), allowed(3), allowed(2), allowed(1), allowed(0), refused]);
  });

  it("reports remaining as the limit less the requests of the last `window` seconds, this one included", () => {
    const { clock, at } = manualClock();
    const window = new RollingWindow(clock);
    const remaining: number[] = [];
    // Two requests a second for five seconds against 100 per 3 s: at most 6 in any window.
    for (let s = 0; s < 5; s++) {
      at(s);
      remaining.push(window.hit(100, 3).remaining, window.hit(100, 3).remaining);
    }
    expect(remaining).toEqual([99, 98, 97, 96, 95, 94, 95, 94, 95, 94]);
    // After a quiet spell longer than the window the whole budget is back.
    at(20);
    expect(window.hit(100, 3)).toEqual(allowed(99));
  });

  it("keeps each budget's window apart from another's with a different limit or window", () => {
    const { clock, at } = manualClock();
    const short = new RollingWindow(clock);
    const long = new RollingWindow(clock);
    at(0);
    expect([short.hit(1, 1), long.hit(1, 60)]).toEqual([allowed(0), allowed(0)]);
    at(1);
    expect([short.hit(1, 1), long.hit(1, 60)]).toEqual([allowed(0), refused]);
  });
});

describe("distinct window", () => {
  it("spends a unit per new member, lets a member seen within the window pass again, and refuses a new one past the limit", () => {
    const { clock, at } = manualClock();
    const window = new DistinctWindow(clock);
    at(0);
    expect([window.hit("a", 2, 60), window.hit("a", 2, 60), window.hit("b", 2, 60), window.hit("c", 2, 60), window.hit("a", 2, 60)]).toEqual([
      allowed(1),
      allowed(1),
      allowed(0),
      refused,
      allowed(0),
    ]);
    // "a" seen again at 30 s stays until 90 s; "b" leaves at 60 s, making room for "c".
    at(30);
    window.hit("a", 2, 60);
    at(60);
    expect([window.hit("c", 2, 60), window.hit("d", 2, 60)]).toEqual([allowed(0), refused]);
    at(90);
    expect(window.hit("d", 2, 60)).toEqual(allowed(0));
  });
});

describe("RateLimiter Durable Object", () => {
  it("takes its time from the injected clock: a spent budget comes back when the clock, not the wall, moves a window on", async () => {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`clock-test:${crypto.randomUUID()}`));
    const results = await runInDurableObject(stub, (_live, state) => {
      const { clock, at } = manualClock();
      const limiter = new RateLimiter(state, env, clock);
      at(0);
      const spent = [limiter.hit(2, 60), limiter.hit(2, 60), limiter.hit(2, 60)];
      at(59);
      const stillSpent = limiter.hit(2, 60);
      at(60);
      return { spent, stillSpent, rolled: limiter.hit(2, 60) };
    });
    expect(results).toEqual({ spent: [allowed(1), allowed(0), refused], stillSpent: refused, rolled: allowed(1) });
  });

  it("counts distinct members through the client (hitDistinct)", async () => {
    const limits = new DurableRateLimits(env.RATE_LIMITER);
    const key = `distinct-test:${crypto.randomUUID()}`;
    const spend = (member: string) => limits.consume({ key, member, limit: 2, windowSeconds: 60 });
    expect([await spend("a"), await spend("b"), await spend("a"), await spend("c")]).toEqual([allowed(1), allowed(0), allowed(0), refused]);
  });
});
