// RateLimits backed by the RateLimiter Durable Object: one object per budget
// name. The only code that knows how objects are named and what `hit` takes.
import type { RateLimiter } from "../../../durable-objects/rate-limiter";
import type { RateLimitRequest, RateLimitResult, RateLimits } from "./interface";

export class DurableRateLimits implements RateLimits {
  constructor(private readonly namespace: DurableObjectNamespace<RateLimiter>) {}

  async consume({ key, limit, windowSeconds, member }: RateLimitRequest): Promise<RateLimitResult> {
    const stub = this.namespace.get(this.namespace.idFromName(key));
    return member === undefined ? stub.hit(limit, windowSeconds) : stub.hitDistinct(member, limit, windowSeconds);
  }
}
