// Retrying a finished run in place: each step's `rerunPolicy` decides what of
// its previous attempt the new one keeps.
import type { Journal, RunDocument } from "./types";

/**
 * The journal a retried run starts from. `continue` keeps a step that
 * succeeded or was skipped (later steps reuse its output); `allow` (the
 * default) forgets the step and its actions so it runs again; `abort` on a
 * step that ran before ends the retried run `skipped`.
 *
 * A forgotten action stays as a `pending` record carrying its attempt count
 * and nothing else (not its idempotency key): the walker runs it afresh from
 * the next attempt, so its new key (`<run id>:<action key>:<attempt>`) is
 * never one an earlier attempt of the run already used.
 */
export function journalForRetry(doc: RunDocument, journal: Journal): { journal: Journal; abort: boolean } {
  const next: Journal = { steps: {}, actions: {} };
  for (const step of doc.definition.jobs) {
    const prior = journal.steps[step.id];
    if (!prior) continue;
    const policy = step.rerunPolicy ?? "allow";
    if (policy === "abort") return { journal, abort: true };
    const keep = policy === "continue" && (prior.status === "success" || prior.status === "skipped");
    if (keep) next.steps[step.id] = prior;
    for (const rec of Object.values(journal.actions)) {
      if (rec.jobId !== step.id) continue;
      next.actions[rec.key] = keep ? rec : { key: rec.key, jobId: rec.jobId, stepId: rec.stepId, name: rec.name, status: "pending", attempt: rec.attempt };
    }
  }
  return { journal: next, abort: false };
}
