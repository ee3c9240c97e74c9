// The position of every action of one job, as `workflow_action_runs.position`
// numbers them: depth-first in document order (an action, then its onSuccess
// sub-sequence, then its onError one), so a job's rows list the actions as the
// definition reads, whichever of them ran.
import type { ActionDocument, ActionRecord } from "./types";

/**
 * Positions (0-based) by action key suffix: the part of the walker's action
 * key after `<job id>/`, such as `0`, `1.onSuccess.0` or `0.onError.1`.
 */
export function actionPositions(actions: readonly ActionDocument[]): Map<string, number> {
  const positions = new Map<string, number>();
  const visit = (sequence: readonly ActionDocument[], prefix: string) => {
    sequence.forEach((action, i) => {
      const key = `${prefix}${i}`;
      positions.set(key, positions.size);
      visit(action.onSuccess ?? [], `${key}.onSuccess.`);
      visit(action.onError ?? [], `${key}.onError.`);
    });
  };
  visit(actions, "");
  return positions;
}

/** An action's path in its job: its `stepId`, or else its key's position part (`2`, `2.onError.0`). */
export function actionPath(rec: Pick<ActionRecord, "key" | "jobId" | "stepId">): string {
  return rec.stepId ?? rec.key.slice(rec.jobId.length + 1);
}

/**
 * `<run id>:<job id>:<action path>`: the `Idempotency-Key` an `http` action
 * sends. It names the action, not an attempt, so every attempt and every
 * retry of the run sends the same one and a target deduplicating by it
 * applies the request once.
 */
export function requestIdempotencyKey(runId: string, rec: Pick<ActionRecord, "key" | "jobId" | "stepId">): string {
  return `${runId}:${rec.jobId}:${actionPath(rec)}`;
}
