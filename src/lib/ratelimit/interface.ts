// What a caller needs from a rate limiter, whatever keeps the counts: spend one
// unit of a named budget and learn whether it was allowed. Callers depend on
// this, never on the Durable Object that implements it (see ./do-client.ts).

export interface RateLimitRequest {
  /** The budget's name, e.g. `ip:<address>`; each name is counted on its own. */
  key: string;
  limit: number;
  windowSeconds: number;
  /**
   * When set, the budget counts distinct members instead of requests: a
   * member already admitted within the window passes again without spending.
   */
  member?: string;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Units left in the window after this request; 0 when refused. */
  remaining: number;
}

export interface RateLimits {
  consume(request: RateLimitRequest): Promise<RateLimitResult>;
}
