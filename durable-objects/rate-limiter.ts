// One rolling-window budget per object, addressed by the budget's name. Thin on
// purpose: the counting is RollingWindow's, the addressing the client's
// (src/lib/ratelimit/do-client.ts), which is the only caller of `hit`. State is
// in memory only: losing it when the object is evicted forgives a little
// traffic, which a rate limit can afford.
import { DurableObject } from "cloudflare:workers";
import { systemClock, type Clock } from "../src/lib/clock";
import type { RateLimitResult } from "../src/lib/ratelimit/interface";
import { RollingWindow } from "../src/lib/ratelimit/window";

export class RateLimiter extends DurableObject<Env> {
  private readonly window: RollingWindow;

  /** The runtime passes only `ctx` and `env`; tests construct the object with their own clock. */
  constructor(ctx: DurableObjectState, env: Env, clock: Clock = systemClock) {
    super(ctx, env);
    this.window = new RollingWindow(clock);
  }

  hit(limit: number, windowSeconds: number): RateLimitResult {
    return this.window.hit(limit, windowSeconds);
  }
}
