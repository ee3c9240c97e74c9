// An outbound call made while a request waits for it (an app's `$http`
// source, an `http` action an app command runs): the request's caller is
// waiting, so there is no alarm to retry by, and the request has a deadline
// no attempt, wait or retry may pass. A run's action retries through its
// alarm instead (request.ts, retryAt).
import { DEFAULTS, retryAt, send, type Knobs, type OutboundContext, type Prepared, type Sent } from "./request";

/** The retries a request allows, at most, whatever the config asks: each one is time the caller waits. */
export const MAX_RETRIES_WITHIN_DEADLINE = 2;
/** The first wait before a retry, by default, and the longest any wait may be. */
const FIRST_RETRY_WAIT_MS = 250;
const MAX_RETRY_WAIT_MS = 1000;

/** `late`: the deadline passed first (before an attempt, during one, or before a retry would be due). */
export type SentWithinDeadline = Sent | { late: true };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `req` until it answers, retrying only when `knobs.maxRetries` says so
 * (at most twice) on what is worth retrying, waiting as its back-off says but
 * never more than a second, each attempt ending by `deadline` (epoch ms, read
 * on `ctx.now`). An attempt cut short by the deadline is the deadline's
 * failure, not the target's: `late`.
 */
export async function sendWithinDeadline(req: Prepared, knobs: Knobs, ctx: OutboundContext, deadline: number, resend = true): Promise<SentWithinDeadline> {
  const maxRetries = Math.min(knobs.maxRetries ?? 0, MAX_RETRIES_WITHIN_DEADLINE);
  const initial = Math.min(knobs.initialRetryDelayMs ?? FIRST_RETRY_WAIT_MS, MAX_RETRY_WAIT_MS);
  const bounds = { initial, max: Math.max(initial, Math.min(knobs.maxRetryDelayMs ?? MAX_RETRY_WAIT_MS, MAX_RETRY_WAIT_MS)) };
  for (let attempt = 1; ; attempt++) {
    const left = deadline - ctx.now();
    if (left <= 0) return { late: true };
    const ownTimeout = knobs.timeoutMs ?? DEFAULTS.timeoutMs;
    const sent = await send(req, { timeoutMs: Math.min(ownTimeout, left) }, ctx, resend);
    // Decided by which bound the attempt had, not by reading the clock again: a timer may fire a hair before the deadline reads as passed.
    if ("failure" in sent && sent.failure.kind === "timeout" && left < ownTimeout) return { late: true };
    const until = retryAt(sent, attempt, { maxRetries }, bounds, ctx);
    if (until === undefined) return sent;
    if (until >= deadline) return { late: true };
    await wait(Math.max(0, until - ctx.now()));
  }
}
