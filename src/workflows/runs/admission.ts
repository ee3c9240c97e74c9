// What a run's object takes from outside (an awaitInput's data, an
// httpCallback's callback, a cancel) and what it writes when it takes it.
// Pure over what the object keeps (its document, journal, records, state),
// so every refusal is decided, and tested, without an object.
import { errorValue, type ErrorValue } from "../../lib/errors";
import { inputProblems, type AwaitInputConfig } from "../actions/await-input";
import { callbackAttempt } from "../actions/outbound/http-callback";
import { closedRecords, type ClosedRecords } from "../engine/close";
import type { ActionRecord, Journal, RunDocument } from "../engine/types";
import { isFinished, type RunOutcome, type RunRef, type RunState } from "./orchestrator";

/** A refusal (the error the route answers with) or the action record to write. */
export type Admission = { refused: ErrorValue } | { write: ActionRecord };

/**
 * Data for the awaitInput action `stepId`: taken when that action waits in
 * an open run and the data satisfies its schema; the action then succeeds
 * with the data as its result.
 */
export function admitInput(
  doc: RunDocument | undefined,
  journal: Journal,
  state: RunState | undefined,
  { tenantId, runId }: RunRef,
  stepId: string,
  data: unknown,
  now: number,
): Admission {
  const unknown = { refused: errorValue("NOT_FOUND", `Run ${runId} has no awaitInput action ${stepId}`, { step_id: stepId }) };
  const notWaiting = (status: string) => ({
    refused: errorValue("CONFLICT", `Action ${stepId} of run ${runId} is ${status}, not waiting for input`, { step_status: status }),
  });
  if (!doc || doc.tenantId !== tenantId) return unknown;
  const candidates = Object.values(journal.actions).filter((a) => a.name === "awaitInput" && a.stepId === stepId);
  if (!candidates.length) return unknown;
  const waiting = candidates.find((a) => a.status === "waiting");
  if (!waiting) return notWaiting(candidates[0].status);
  if (isFinished(state)) return notWaiting(state.status);
  const problems = inputProblems((waiting.config ?? {}) as AwaitInputConfig, data);
  if (problems.length)
    return {
      refused: errorValue("VALIDATION_FAILED", `The input for ${stepId} does not satisfy its schema`, { errors: problems, validation_errors: problems }),
    };
  return { write: { ...waiting, status: "success", result: data, until: undefined, finishedAt: now } };
}

/**
 * A callback for action `key` in its attempt `attempt`: taken when that
 * attempt waits, unanswered, in an open run. The action keeps the payload
 * and is due at once (its next execution decides its outcome).
 */
export function admitDelivery(
  doc: RunDocument | undefined,
  rec: ActionRecord | undefined,
  state: RunState | undefined,
  { tenantId, runId }: RunRef,
  key: string,
  attempt: number,
  payload: unknown,
  now: number,
): Admission {
  if (!doc || doc.tenantId !== tenantId || !rec) return { refused: errorValue("NOT_FOUND", `Run ${runId} has no action ${key}`) };
  const current = callbackAttempt(rec);
  if (rec.status !== "waiting" || current !== attempt || rec.delivered !== undefined || isFinished(state)) {
    const status = isFinished(state) ? state.status : current !== attempt ? "superseded" : rec.delivered !== undefined ? "answered" : rec.status;
    return { refused: errorValue("CONFLICT", `Action ${key} of run ${runId} is ${status}, not waiting for this callback`, { step_status: status }) };
  }
  return { write: { ...rec, delivered: payload, until: now } };
}

/** A cancel: the run's state becomes `cancelled` and its open work is closed (engine/close.ts). */
export function cancellation(doc: RunDocument | undefined, journal: Journal, now: number): { state: RunOutcome } & ClosedRecords {
  return { state: { status: "cancelled" }, ...closedRecords(doc?.definition.jobs ?? [], journal, now) };
}
