// Rolling-window counters for one budget, of requests or of distinct members.
// Time is kept in whole seconds, so a window rolls with one-second precision
// in memory bounded by the window length (requests) or the limit (members).
// Time comes from the clock it is given, so tests roll the window without
// waiting.
import type { Clock } from "../clock";
import type { RateLimitResult } from "./interface";

export class RollingWindow {
  private readonly buckets = new Map<number, number>();

  constructor(private readonly clock: Clock) {}

  /** Counts the request if the last `windowSeconds` hold fewer than `limit`; a refused request is not counted. */
  hit(limit: number, windowSeconds: number): RateLimitResult {
    const now = Math.floor(this.clock.now() / 1000);
    let used = 0;
    for (const [second, count] of this.buckets) {
      if (second <= now - windowSeconds) this.buckets.delete(second);
      else used += count;
    }
    if (used >= limit) return { allowed: false, remaining: 0 };
    this.buckets.set(now, (this.buckets.get(now) ?? 0) + 1);
    return { allowed: true, remaining: limit - used - 1 };
  }
}

/**
 * A budget of distinct members per rolling window (an integration's key
 * document URLs): a member seen within the last `windowSeconds` passes again
 * without spending, a new one spends a unit. Each member is kept with the
 * second it was last seen, so memory is bounded by the limit.
 */
export class DistinctWindow {
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Admits `member` if it was seen within the window or fewer than `limit` others were; a refused member is not kept. */
  hit(member: string, limit: number, windowSeconds: number): RateLimitResult {
    const now = Math.floor(this.clock.now() / 1000);
    for (const [seen, second] of this.lastSeen) if (second <= now - windowSeconds) this.lastSeen.delete(seen);
    if (!this.lastSeen.has(member) && this.lastSeen.size >= limit) return { allowed: false, remaining: 0 };
    this.lastSeen.set(member, now);
    return { allowed: true, remaining: limit - this.lastSeen.size };
  }
}
