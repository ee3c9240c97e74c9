// Retrying a finished run in place: each step's `rerunPolicy` decides what of
// its previous attempt the new one keeps, or a redrive names the step to run
// again from, with everything depending on it.
import type { Journal, RunDocument, StepDocument, StepRecord } from "./types";

/**
 * The journal with only the steps `keep` says yes to. A forgotten step's
 * actions stay as `pending` records carrying their attempt count and nothing
 * else (not their idempotency key): the walker runs them afresh from the next
 * attempt, so a new key (`<run id>:<action key>:<attempt>`) is never one an
 * earlier attempt of the run already used.
 */
function keeping(doc: RunDocument, journal: Journal, keep: (step: StepDocument, prior: StepRecord) => boolean): Journal {
  const next: Journal = { steps: {}, actions: {} };
  for (const step of doc.definition.jobs) {
    const prior = journal.steps[step.id];
    if (!prior) continue;
    const kept = keep(step, prior);
    if (kept) next.steps[step.id] = prior;
    for (const rec of Object.values(journal.actions)) {
      if (rec.jobId !== step.id) continue;
      next.actions[rec.key] = kept ? rec : { key: rec.key, jobId: rec.jobId, stepId: rec.stepId, name: rec.name, status: "pending", attempt: rec.attempt };
    }
  }
  return next;
}

/**
 * The journal a retried run starts from. `continue` keeps a step that
 * succeeded or was skipped (later steps reuse its output); `allow` (the
 * default) forgets the step and its actions so it runs again; `abort` on a
 * step that ran before ends the retried run `skipped`.
 */
export function journalForRetry(doc: RunDocument, journal: Journal): { journal: Journal; abort: boolean } {
  if (doc.definition.jobs.some((step) => journal.steps[step.id] && step.rerunPolicy === "abort")) return { journal, abort: true };
  return {
    journal: keeping(doc, journal, (step, prior) => step.rerunPolicy === "continue" && (prior.status === "success" || prior.status === "skipped")),
    abort: false,
  };
}

/** `from` and every step that depends on it, directly or through other steps. */
export function dependentsOf(jobs: readonly StepDocument[], from: string): Set<string> {
  const found = new Set([from]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const step of jobs) {
      if (found.has(step.id) || !(step.dependencies ?? []).some((d) => found.has(d))) continue;
      found.add(step.id);
      grew = true;
    }
  }
  return found;
}

/**
 * The journal a redrive from step `from` starts from: that step and its
 * dependents are forgotten whatever their `rerunPolicy`; every other step
 * keeps its record as it is (its output is reused, its error stays).
 */
export function journalForRedrive(doc: RunDocument, journal: Journal, from: string): Journal {
  const rerun = dependentsOf(doc.definition.jobs, from);
  return keeping(doc, journal, (step) => !rerun.has(step.id));
}
