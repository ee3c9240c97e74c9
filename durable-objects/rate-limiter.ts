// One rolling-window budget per object, addressed by the budget's name: of
// requests (`hit`) or of distinct members (`hitDistinct`); a name is only
// ever spent one way. Thin on purpose: the counting is RollingWindow's and
// DistinctWindow's, the addressing the client's
// (src/lib/ratelimit/do-client.ts), which is the only caller of both. State is
// in memory only: losing it when the object is evicted forgives a little
// traffic, which a rate limit can afford.
import { DurableObject } from "cloudflare:workers";
import { systemClock, type Clock } from "../src/lib/clock";
import type { RateLimitResult } from "../src/lib/ratelimit/interface";
import { DistinctWindow, RollingWindow } from "../src/lib/ratelimit/window";

export class RateLimiter extends DurableObject<Env> {
  private readonly window: RollingWindow;
  private readonly distinct: DistinctWindow;

  /** The runtime passes only `ctx` and `env`; tests construct the object with their own clock. */
  constructor(ctx: DurableObjectState, env: Env, clock: Clock = systemClock) {
    super(ctx, env);
    this.window = new RollingWindow(clock);
    this.distinct = new DistinctWindow(clock);
  }

  hit(limit: number, windowSeconds: number): RateLimitResult {
    return this.window.hit(limit, windowSeconds);
  }

  hitDistinct(member: string, limit: number, windowSeconds: number): RateLimitResult {
    return this.distinct.hit(member, limit, windowSeconds);
  }
}
