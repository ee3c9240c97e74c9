// When an outbound attempt is worth repeating (how long to wait first is the
// one back-off, lib/backoff.ts). Pure: the callers (actions) decide how many
// attempts they make and sleep through the run's alarm, not here.
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
