// The sequencing of an action list over fake effects: which steps run, in
// which order, under which keys, and how `if`, `onSuccess`, `onError`,
// `errorPolicy`, replays and a stop decide the list's end.
import { describe, expect, it } from "vitest";
import { runSequence, type SequenceEffects, type SequencedStep, type StepOutcome } from "../../src/lib/sequence";

interface Step extends SequencedStep<Step> {
  /** What the fake execute answers: an error with this text, else success with `value`. */
  fail?: string;
  value?: unknown;
}

/** Runs `steps` over fake effects, logging every effect as `<effect> <key>`. */
async function run(steps: Step[], options: { replay?: Record<string, StepOutcome<string>>; stopAfter?: number } = {}) {
  const log: string[] = [];
  const outputs: Record<string, unknown> = {};
  let executed = 0;
  const effects: SequenceEffects<Step, string> = {
    stopped: () => options.stopAfter !== undefined && executed >= options.stopAfter,
    resume: async (_step, key) => {
      const outcome = options.replay?.[key];
      if (outcome) log.push(`replay ${key}`);
      return outcome;
    },
    execute: async (step, key) => {
      executed++;
      log.push(`execute ${key}`);
      return step.fail !== undefined ? { status: "error", error: step.fail } : { status: "success", result: step.value };
    },
    notRun: async (_step, key, failure) => {
      log.push(failure ? `if-failed ${key}: ${failure.constructor.name}` : `skip ${key}`);
      return failure ? { status: "error", error: `if: ${failure.message}` } : { status: "skipped" };
    },
    consumed: async (_step, key) => void log.push(`consumed ${key}`),
  };
  const result = await runSequence({ steps, prefix: "job/", scope: { input: { n: 2 }, outputs }, outputs, effects });
  return { result, log, outputs };
}

describe("runSequence", () => {
  it("runs steps in order, gates each on its if (reading earlier results), and names results by stepId", async () => {
    const { result, log, outputs } = await run([
      { stepId: "a", value: 1 },
      { if: "outputs.a = 1", stepId: "b", value: 2 },
      { if: "input.n > 5", value: 3 },
      { if: "outputs.b = 2", value: 4 },
    ]);
    expect(result).toEqual({ status: "success" });
    expect(log).toEqual(["execute job/0", "execute job/1", "skip job/2", "execute job/3"]);
    expect(outputs).toEqual({ a: 1, b: 2 });
  });

  it("follows onSuccess after a success and onError after an error, keyed under the step", async () => {
    const { result, log } = await run([
      { value: 1, onSuccess: [{ value: 2 }, { value: 3, onSuccess: [{ value: 4 }] }], onError: [{ value: "never" }] },
      { fail: "boom", errorPolicy: "continue", onSuccess: [{ value: "never" }], onError: [{ value: 5 }] },
    ]);
    expect(result).toEqual({ status: "success" });
    expect(log).toEqual([
      "execute job/0",
      "execute job/0.onSuccess.0",
      "execute job/0.onSuccess.1",
      "execute job/0.onSuccess.1.onSuccess.0",
      "execute job/1",
      "execute job/1.onError.0",
      "consumed job/1",
    ]);
  });

  it("ends the list with the error under errorPolicy fail (the default), after onError", async () => {
    const { result, log } = await run([{ fail: "boom", onError: [{ value: 1 }] }, { value: "never" }]);
    expect(result).toEqual({ status: "error", error: "boom" });
    expect(log).toEqual(["execute job/0", "execute job/0.onError.0"]);
  });

  it("ends the whole list when a sub-list fails, whatever the outer step's policy", async () => {
    const { result, log } = await run([{ value: 1, errorPolicy: "continue", onSuccess: [{ fail: "inner" }] }, { value: "never" }]);
    expect(result).toEqual({ status: "error", error: "inner" });
    expect(log).toEqual(["execute job/0", "execute job/0.onSuccess.0"]);
    const onError = await run([{ fail: "outer", errorPolicy: "continue", onError: [{ fail: "handler" }] }, { value: "never" }]);
    expect(onError.result).toEqual({ status: "error", error: "handler" });
  });

  it("hands an if that fails to evaluate to notRun, and treats its outcome as the step's", async () => {
    const { result, log } = await run([{ if: "$number('x')", errorPolicy: "continue", onError: [{ value: 1 }] }, { if: "input.n +" }]);
    expect(result).toEqual({ status: "error", error: expect.stringMatching(/^if: /) });
    expect(log).toEqual(["if-failed job/0: ExpressionError", "execute job/0.onError.0", "consumed job/0", "if-failed job/1: ExpressionSyntaxError"]);
  });

  it("replays a resumed outcome without reading its if, and reports a consumed error only once", async () => {
    const replay: Record<string, StepOutcome<string>> = {
      "job/0": { status: "success", result: 7 },
      "job/1": { status: "error", error: "old", consumed: true },
      "job/2": { status: "error", error: "new" },
    };
    const { result, log, outputs } = await run(
      [{ stepId: "a", if: "false", value: "never" }, { errorPolicy: "continue" }, { errorPolicy: "continue" }, { if: "outputs.a = 7", value: 1 }],
      { replay },
    );
    expect(result).toEqual({ status: "success" });
    expect(log).toEqual(["replay job/0", "replay job/1", "replay job/2", "consumed job/2", "execute job/3"]);
    expect(outputs).toEqual({ a: 7 });
  });

  it("stops before the next step, in sub-lists too, when stopped() says so", async () => {
    const { result, log } = await run([{ value: 1, onSuccess: [{ value: 2 }, { value: 3 }] }, { value: 4 }], { stopAfter: 2 });
    expect(result).toEqual({ status: "stopped" });
    expect(log).toEqual(["execute job/0", "execute job/0.onSuccess.0"]);
  });

  it("lets a throwing effect abandon the list", async () => {
    const effects: SequenceEffects<Step, string> = {
      execute: async () => {
        throw new Error("suspended");
      },
      notRun: async () => ({ status: "skipped" }),
    };
    await expect(runSequence({ steps: [{ value: 1 }], prefix: "", scope: {}, outputs: {}, effects })).rejects.toThrow("suspended");
  });
});
