// When an outbound attempt is worth repeating, and how long to wait first.
// Pure: the callers (actions) decide how many attempts they make and sleep
// through the run's alarm, not here.
import { OutboundError } from "./types";

/** Statuses that say "not now" rather than "no": a timeout, too early, rate-limited, or a server fault. */
const RETRYABLE_STATUS = new Set([408, 425, 429]);

/**
 * Whether another attempt may succeed: 408, 425, 429 and every 5xx, and a
 * failed or broken connection. A timeout is not retried (the attempt may
 * have taken effect and the caller's time is spent), nor anything the guard
 * or the limits refused: the next attempt would meet the same refusal.
 */
export function isRetryable(outcome: { status: number } | OutboundError): boolean {
  if (outcome instanceof OutboundError) return outcome.kind === "connection";
  return RETRYABLE_STATUS.has(outcome.status) || (outcome.status >= 500 && outcome.status <= 599);
}

/**
 * The wait before retry number `retry` (1-based): `initialMs * 2^(retry-1)`
 * capped at `maxMs`, with "equal jitter" (somewhere in the upper half of that,
 * never below `initialMs`) so callers that failed together do not return
 * together. Always within [min(initialMs, cap), cap]; `initialMs` 0 retries at once.
 */
export function backoffDelay(retry: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const cap = Math.min(maxMs, initialMs * 2 ** Math.max(0, retry - 1));
  const floor = Math.min(cap, Math.max(initialMs, cap / 2));
  return Math.round(floor + random() * (cap - floor));
}
