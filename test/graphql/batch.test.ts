// Batches (src/entity/graphql/batch.ts): the calls one relationship field
// makes for every parent of a level run as one load.
import { describe, expect, it } from "vitest";
import { Batches } from "../../src/entity/graphql/batch";

describe("Batches", () => {
  it("joins the calls made in one pass into one run, and starts a new batch after it ran", async () => {
    const batches = new Batches();
    const key = {};
    const runs: string[][] = [];
    const run = async (ids: string[]) => {
      runs.push(ids);
      return new Map(ids.map((id) => [id, [`${id}-child`]]));
    };
    const level1 = await Promise.all(["a", "b", "a", "c"].map((id) => batches.load(key, id, run)));
    expect(level1).toEqual([["a-child"], ["b-child"], ["a-child"], ["c-child"]]);
    expect(runs).toEqual([["a", "b", "c"]]);
    // What a level's continuations ask for joins one batch too, not one per parent.
    const level2 = await Promise.all(level1.map(([child]) => Promise.resolve().then(() => batches.load(key, child, run))));
    expect(level2).toEqual([["a-child-child"], ["b-child-child"], ["a-child-child"], ["c-child-child"]]);
    expect(runs).toEqual([
      ["a", "b", "c"],
      ["a-child", "b-child", "c-child"],
    ]);
  });

  it("keeps fields apart, answers [] for an id the run did not answer, and fails every member with the one error", async () => {
    const batches = new Batches();
    const fieldA = {};
    const fieldB = {};
    const failure = new Error("boom");
    let runsOfA = 0;
    const failing = async () => {
      runsOfA++;
      throw failure;
    };
    const [a1, a2, b, missing] = await Promise.allSettled([
      batches.load(fieldA, "1", failing),
      batches.load(fieldA, "2", failing),
      batches.load(fieldB, "1", async () => new Map([["1", ["x"]]])),
      batches.load(fieldB, "2", async () => new Map()),
    ]);
    expect(runsOfA).toBe(1);
    expect(a1).toEqual({ status: "rejected", reason: failure });
    expect(a2.status === "rejected" && a2.reason).toBe(failure);
    expect(b).toEqual({ status: "fulfilled", value: ["x"] });
    expect(missing).toEqual({ status: "fulfilled", value: [] });
  });
});
