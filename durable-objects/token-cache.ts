// One OAuth2 client-credentials token per object, addressed by tenant and
// cache key (src/lib/outbound/token-cache-client.ts, the only caller). The
// object is where concurrent callers meet: they share one exchange (an
// in-flight promise) and reuse its token while its lifetime allows.
//
// The token is kept in memory only. Storage would survive an eviction, but it
// would hold a live bearer credential at rest for as long as the object
// exists; an evicted object costs one extra exchange, which is cheap.
import { DurableObject } from "cloudflare:workers";
import { systemClock, type Clock } from "../src/lib/clock";
import { outboundFetch } from "../src/lib/outbound/client";
import { outboundRunError } from "../src/lib/outbound/errors";
import { EXCHANGE_TIMEOUT_MS, exchangeFailed, exchangeRequest, readTokenAnswer, type ResolvedOAuth2, type TokenAnswer } from "../src/lib/outbound/oauth2";
import { OutboundError } from "../src/lib/outbound/types";
import type { ErrorValue } from "../src/lib/errors";

/** An exchange's outcome; `reuseUntil` absent: used once, by the caller that started it. */
type Minted = { token: string; reuseUntil?: number } | { error: ErrorValue };

export class TokenCache extends DurableObject<Env> {
  /** Test seams: the time reuse is measured by, and the exchange's timeout. */
  clock: Clock = systemClock;
  exchangeTimeoutMs = EXCHANGE_TIMEOUT_MS;

  private cached?: { token: string; reuseUntil: number };
  private inflight?: Promise<Minted>;

  /**
   * A token for `profile` (the same six key fields on every call: they make
   * the object's name). `rejected`: the token the target answered 401 to; it
   * is dropped and a new one exchanged, unless another caller already did.
   */
  async token(profile: ResolvedOAuth2, rejected?: string): Promise<TokenAnswer> {
    if (rejected !== undefined && this.cached?.token === rejected) this.cached = undefined;
    for (;;) {
      if (this.cached && this.clock.now() < this.cached.reuseUntil) return { token: this.cached.token, fresh: false };
      const joined = this.inflight !== undefined;
      const minted = await (this.inflight ??= this.exchange(profile).finally(() => (this.inflight = undefined)));
      if ("error" in minted) return minted;
      // A used-once token goes to the caller that started the exchange; the others wait for the next one.
      if (joined && minted.reuseUntil === undefined) continue;
      return { token: minted.token, fresh: true };
    }
  }

  private async exchange(profile: ResolvedOAuth2): Promise<Minted> {
    // Reuse counts from the request, not the answer: the token's lifetime cannot start before it, so the reuse never outlives the token.
    const requestedAt = this.clock.now();
    let status: number;
    let body: string;
    try {
      const res = await outboundFetch(exchangeRequest(profile, this.exchangeTimeoutMs), this.env);
      status = res.status;
      body = new TextDecoder().decode(res.body);
    } catch (e) {
      if (!(e instanceof OutboundError)) throw e;
      // A refused token URL fails as any refused target does; no answer otherwise is status 0.
      return { error: e.kind === "refused" ? outboundRunError(e) : exchangeFailed(profile, 0, "", e.reason) };
    }
    const reading = readTokenAnswer(status, body);
    if (!("token" in reading)) return { error: exchangeFailed(profile, status, body, reading.reason) };
    if (reading.reuseSeconds === 0) return { token: reading.token };
    const reuseUntil = requestedAt + reading.reuseSeconds * 1000;
    this.cached = { token: reading.token, reuseUntil };
    return { token: reading.token, reuseUntil };
  }
}
