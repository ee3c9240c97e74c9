import { describe, expect, it } from "vitest";
import { MAX_RESULT_IDS, upsertActionResult } from "../../src/workflows/actions/upsert-result";

describe("upsertActionResult", () => {
  const answer = (n: number) => ({ created: n, updated: 0, unchanged: 0, ignored: 0, ids: Array.from({ length: n }, (_, i) => `id-${i}`), errors: [] });

  it("keeps the REST answer whole up to MAX_RESULT_IDS ids", () => {
    const whole = answer(MAX_RESULT_IDS);
    expect(upsertActionResult(whole)).toBe(whole);
  });

  it("leaves the ids out past it, saying how many there were", () => {
    expect(upsertActionResult(answer(MAX_RESULT_IDS + 1))).toEqual({
      created: MAX_RESULT_IDS + 1,
      updated: 0,
      unchanged: 0,
      ignored: 0,
      errors: [],
      ids_omitted: MAX_RESULT_IDS + 1,
    });
  });
});
