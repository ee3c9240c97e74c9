// Optimistic locking of config writes: each attempt reads the row and its
// revision, computes the new value from the delta, and writes only where the
// revision is still the one read. A lost race re-reads and re-applies the
// delta; a delta that no longer applies (a check refuses it against the
// newer value) cannot converge: 409.
import { ApiError, type PlainDetails } from "../../lib/errors";

/** An attempt's answer when the row moved between its read and its write. */
export const LOST = Symbol("lost race");

const ATTEMPTS = 8;

export async function converge<T>(attempt: () => Promise<T | typeof LOST>): Promise<T> {
  for (let tries = 0; tries < ATTEMPTS; tries++) {
    let outcome: T | typeof LOST;
    try {
      outcome = await attempt();
    } catch (e) {
      if (tries > 0 && e instanceof ApiError && e.status === 422) {
        throw new ApiError("CONFLICT", `A concurrent change made this write inapplicable: ${e.message}`, { ...e.details, reason: e.code } as PlainDetails);
      }
      throw e;
    }
    if (outcome !== LOST) return outcome;
  }
  throw new ApiError("CONFLICT", "The config kept changing concurrently; the write was not applied", { attempts: ATTEMPTS });
}
