// The one back-off: how long to wait before trying again, for every caller
// that retries (an outbound action's next attempt, a run's start that found
// the database unreachable). Pure; the random source is a parameter so a
// test fixes the jitter.

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
