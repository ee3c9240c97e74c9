// What a run's end does to the work it leaves: whatever is running or
// waiting ends `cancelled`, and whatever never started is recorded `skipped`
// with `skippedReason: "run_ended"`, so the record lists every step of the
// definition and every action of a job the end cut short. Shared by the
// walker (a run decided by a step's policy) and the run's object (a cancel,
// the sweep's deadline, a walk that failed).
import { TERMINAL_STEP, type ActionRecord, type Journal, type StepDocument, type StepRecord, type StepStatus } from "./types";

export interface ClosedRecords {
  steps: [string, StepRecord][];
  actions: ActionRecord[];
}

const open = (status: StepStatus) => status === "running" || status === "waiting";

/**
 * The records that close a run's open work at `now`. A `pending` record is
 * one a retried run has not started again: it is never-started work.
 */
export function closedRecords(jobs: readonly StepDocument[], journal: Journal, now: number): ClosedRecords {
  const steps: [string, StepRecord][] = [];
  const actions: ActionRecord[] = [];
  for (const rec of Object.values(journal.actions)) {
    if (open(rec.status)) actions.push({ ...rec, status: "cancelled", until: undefined, finishedAt: now });
  }
  for (const job of jobs) {
    const rec = journal.steps[job.id];
    if (rec && TERMINAL_STEP.has(rec.status)) continue;
    if (!rec || rec.status === "pending") {
      steps.push([job.id, { status: "skipped", skippedReason: "run_ended", finishedAt: now }]);
      continue;
    }
    steps.push([job.id, { ...rec, status: "cancelled", finishedAt: now }]);
    // The job was cut short: its actions not yet reached never start. Each
    // one before them has a record, so the unrecorded ones are all after.
    (job.actions ?? []).forEach((action, i) => {
      const key = `${job.id}/${i}`;
      const prior = journal.actions[key];
      if (prior && prior.status !== "pending") return;
      actions.push({
        key,
        jobId: job.id,
        stepId: action.stepId,
        name: action.name,
        status: "skipped",
        skippedReason: "run_ended",
        attempt: prior?.attempt ?? 0,
        finishedAt: now,
      });
    });
  }
  return { steps, actions };
}
