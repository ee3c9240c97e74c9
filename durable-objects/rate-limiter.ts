// Rolling-window request counter for one key (`ip:<addr>` or `identity:<id>`).
// Counts are kept in one-second buckets, so the window rolls with one-second
// precision in constant memory. State is in memory only: losing it when the
// object is evicted forgives a little traffic, which a rate limit can afford.
import { DurableObject } from "cloudflare:workers";

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
}

export class RateLimiter extends DurableObject<Env> {
  private readonly buckets = new Map<number, number>();

  hit(limit: number, windowSeconds: number): RateLimitResult {
    const now = Math.floor(Date.now() / 1000);
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
