// Rolling-window counter for one budget. Counts are kept in one-second
// buckets, so the window rolls with one-second precision in memory bounded by
// the window length. Time comes from the clock it is given, so tests roll the
// window without waiting.
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
