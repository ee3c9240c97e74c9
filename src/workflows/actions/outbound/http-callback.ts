// `httpCallback`: sends a request as `http` does, carrying a signed URL
// (header `X-Callback-Url`, and optionally a body field) the target calls
// when its work is done; the action waits until then. The callback's body and
// headers are the result. Each attempt has its own URL, kept (armed) in the
// run's storage before anything is sent: an attempt resent after a crash
// sends the same URL again (the target may have taken the first request), and
// a retry's new attempt after a failure makes the earlier URL answer 409.
import type { ActionRecord } from "../../engine/types";
import { action } from "../action";
import { callbackUrl } from "./callback-link";
import { bodyPreview, delays, failureError, prepare, retryAt, send } from "../../../lib/outbound/request";
import { payloadOf } from "./http";
import { errorValue } from "../../../lib/errors";
import { isObject } from "../../../lib/is-object";
import { CALLBACK_TIMEOUT_MS, outboundDeclarations } from "../../../definition/language/actions/outbound";

/** What the waiting action receives from its callback route; its result is this. */
export interface CallbackDelivery {
  body: unknown;
  headers: Record<string, string>;
}

/**
 * What the action keeps about its current attempt. Not the callback URL:
 * the record is readable with `workflow:read`, and the URL lets its holder
 * answer the action; the URL is derived again from the deadline when needed.
 */
interface Armed {
  iteration: number;
  /** Epoch ms the callback URL expires at, and the action fails without one. */
  deadline: number;
  /** The request was answered 2xx: the action waits for its callback. */
  awaiting: boolean;
}

/**
 * The attempt whose callback URL the action waits on: the armed one once the
 * request was taken (a resend after a crash keeps the URL of the attempt it
 * repeats), else the current attempt.
 */
export function callbackAttempt(rec: ActionRecord): number {
  const armed = rec.name === "httpCallback" ? (rec.detail as Armed | undefined) : undefined;
  return armed?.awaiting ? armed.iteration : rec.attempt;
}

export const httpCallback = action(outboundDeclarations.httpCallback, {
  permissions: (config) => (config.binaryUpload === undefined ? [] : ["entity:read"]),
  async execute(config, invocation, ctx) {
    const rec = invocation.record;
    const kept = rec.detail as Armed | undefined;
    const current = kept?.iteration === rec.attempt || (invocation.resent && kept) ? kept : undefined;
    if (rec.delivered !== undefined) {
      const { body, headers } = rec.delivered as CallbackDelivery;
      return { kind: "success", result: ctx.redact({ body, headers }) };
    }
    const timeoutMs = config.callbackTimeoutMs ?? CALLBACK_TIMEOUT_MS.default;
    // Executed again while awaiting, with nothing delivered: the deadline passed.
    if (current?.awaiting) {
      return {
        kind: "error",
        error: errorValue("UNPROCESSABLE_ENTITY", `No callback arrived within ${timeoutMs} ms`, { callback_timeout_ms: timeoutMs }),
      };
    }
    const bounds = delays(config);
    if ("error" in bounds) return { kind: "error", error: bounds.error };

    // A replayed attempt (a crash after arming) keeps its URL and deadline.
    const deadline = current?.deadline ?? ctx.now() + timeoutMs;
    const iteration = current?.iteration ?? rec.attempt;
    const url = await callbackUrl(ctx.env.MASTER_KEY, ctx.origin, {
      tenantId: ctx.tenantId,
      runId: ctx.runId,
      key: rec.key,
      attempt: iteration,
      expiresAt: deadline,
    });
    const body = config.callbackField && isObject(config.body) ? { ...config.body, [config.callbackField]: url } : config.body;
    const headers = Object.fromEntries(Object.entries(config.headers ?? {}).filter(([name]) => name.toLowerCase() !== "x-callback-url"));
    const payload = await payloadOf({ ...config, body }, ctx);
    if ("kind" in payload) return payload;
    const prepared = await prepare({ ...config, headers: { ...headers, "X-Callback-Url": url } }, payload, ctx, invocation.idempotencyKey);
    if ("error" in prepared) return { kind: "error", error: prepared.error };

    const armed: Armed = { iteration, deadline, awaiting: false };
    try {
      await ctx.persist(armed);
    } catch (e) {
      const reason = ctx.redact(e instanceof Error ? e.message : String(e));
      return {
        kind: "error",
        error: errorValue(
          { code: "HTTP_AUTH_ARM_NOT_PERSISTED", action_run_id: `${ctx.runId}:${rec.key}`, iteration, reason },
          "The callback's state could not be saved, so the request was not sent",
        ),
      };
    }
    const sent = await send(prepared, config, ctx, !config.binaryUpload);
    const until = retryAt(sent, rec.attempt, config, bounds, ctx);
    if (until !== undefined) return { kind: "wait", retry: true, until, detail: armed };
    if (!("response" in sent)) return { kind: "error", error: failureError(sent, ctx), detail: armed };
    const { status } = sent.response;
    if (status >= 200 && status < 300) return { kind: "wait", until: deadline, detail: { ...armed, awaiting: true } };
    return {
      kind: "error",
      error: errorValue("UNPROCESSABLE_ENTITY", `The callback request was answered with ${status}`, { status, body_preview: bodyPreview(sent.response, ctx) }),
      detail: armed,
    };
  },
});
