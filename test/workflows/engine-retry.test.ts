// Retrying a finished run in place: what each step's rerunPolicy keeps of the
// previous attempt's journal, and what a walk over the kept journal redoes.
import { describe, expect, it } from "vitest";
import { dependentsOf, journalForRedrive, journalForRetry } from "../../src/workflows/engine/retry";
import type { ActionDocument, ActionRecord, Effects, Journal, RunDocument, StepDocument } from "../../src/workflows/engine/types";
import { Walker } from "../../src/workflows/engine/walk";

const doc = (jobs: StepDocument[]): RunDocument => ({
  runId: "run-1",
  tenantId: "tenant-1",
  workflowId: "wf-1",
  workflowVersion: 1,
  definition: { jobs },
  env: {},
  policyId: null,
  context: {},
});

const pipe = (value: unknown, stepId: string): ActionDocument => ({ name: "pipe", stepId, config: { value } });
const action = (key: string, status: ActionRecord["status"], result?: unknown): ActionRecord => ({
  key,
  jobId: key.split("/")[0],
  name: "pipe",
  status,
  attempt: 1,
  result,
});

/** A previous attempt: `ok` succeeded, `skip` was skipped, `bad` failed (its error consumed), `never` did not start. */
const previous = (): Journal => ({
  steps: {
    ok: { status: "success", input: {}, output: { v: "old" }, startedAt: 1, finishedAt: 2 },
    skip: { status: "skipped", startedAt: 1, finishedAt: 1 },
    bad: { status: "error", input: {}, error: { status: 422, code: "UNPROCESSABLE_ENTITY", message: "x", details: {} }, consumed: true },
  },
  actions: {
    "ok/0": action("ok/0", "success", "old"),
    "ok/0.onSuccess.0": action("ok/0.onSuccess.0", "success", "side"),
    "bad/0": action("bad/0", "error"),
    // A step whose id starts like another's keeps only its own actions.
    "okay/0": action("okay/0", "success", "other"),
  },
});

const jobs = (policies: Partial<Record<"ok" | "skip" | "bad" | "never" | "okay", StepDocument["rerunPolicy"]>>): StepDocument[] => [
  { id: "ok", actions: [pipe("new", "v")], rerunPolicy: policies.ok },
  { id: "okay", actions: [pipe("new", "v")], rerunPolicy: policies.okay },
  { id: "skip", actions: [pipe("new", "v")], condition: "false", conditionPolicy: "continue", rerunPolicy: policies.skip },
  { id: "bad", actions: [pipe("new", "v")], errorPolicy: "continue", rerunPolicy: policies.bad },
  { id: "never", actions: [pipe("new", "v")], rerunPolicy: policies.never },
];

describe("journalForRetry", () => {
  it("continue keeps a step that succeeded or was skipped, with its own actions; one that failed runs again", () => {
    const { journal, abort } = journalForRetry(doc(jobs({ ok: "continue", skip: "continue", bad: "continue" })), previous());
    expect(abort).toBe(false);
    expect(journal).toStrictEqual({
      steps: { ok: previous().steps.ok, skip: previous().steps.skip },
      actions: {
        "ok/0": previous().actions["ok/0"],
        "ok/0.onSuccess.0": previous().actions["ok/0.onSuccess.0"],
        "bad/0": { key: "bad/0", jobId: "bad", stepId: undefined, name: "pipe", status: "pending", attempt: 1 },
      },
    });
  });

  it("allow (the default) forgets the step and what its actions did, keeping only their attempt counts", () => {
    const prior = previous();
    prior.actions["ok/0"] = { ...prior.actions["ok/0"], attempt: 3, detail: { child_run_id: "c1" }, config: { value: 1 } };
    expect(journalForRetry(doc(jobs({ ok: "allow" })), prior)).toStrictEqual({
      journal: {
        steps: {},
        actions: {
          "ok/0": { key: "ok/0", jobId: "ok", stepId: undefined, name: "pipe", status: "pending", attempt: 3 },
          "ok/0.onSuccess.0": { key: "ok/0.onSuccess.0", jobId: "ok", stepId: undefined, name: "pipe", status: "pending", attempt: 1 },
          "bad/0": { key: "bad/0", jobId: "bad", stepId: undefined, name: "pipe", status: "pending", attempt: 1 },
        },
      },
      abort: false,
    });
  });

  it("abort on a step that ran before aborts the retry; on one that never ran it does not", () => {
    expect(journalForRetry(doc(jobs({ ok: "continue", bad: "abort" })), previous()).abort).toBe(true);
    expect(journalForRetry(doc(jobs({ skip: "abort" })), previous()).abort).toBe(true);
    const never = journalForRetry(doc(jobs({ never: "abort", ok: "continue" })), previous());
    expect(never.abort).toBe(false);
    expect(Object.keys(never.journal.steps)).toEqual(["ok"]);
  });

  it("a walk over the kept journal reuses the kept outputs and runs only the forgotten steps, under new idempotency keys", async () => {
    const executed: string[] = [];
    const effects: Effects = {
      now: () => 10,
      recordStep: async () => undefined,
      recordAction: async () => undefined,
      execute: async (inv) => {
        executed.push(inv.idempotencyKey);
        return { kind: "success", result: (inv.config as { value: unknown }).value };
      },
      schema: async () => undefined,
    };
    const definition = jobs({ ok: "continue", skip: "continue", bad: "continue" });
    const { journal } = journalForRetry(doc(definition), previous());
    const result = await new Walker(doc(definition), journal, effects).walk();
    // bad/0 ran as attempt 1 before: its second run is attempt 2, never a replay of the first.
    expect(executed.sort()).toEqual(["run-1:bad/0:2", "run-1:never/0:1", "run-1:okay/0:1"]);
    expect(result).toEqual({ status: "success", outputs: { ok: { v: "old" }, okay: { v: "new" }, bad: { v: "new" }, never: { v: "new" } } });
  });
});

describe("journalForRedrive", () => {
  const graph: StepDocument[] = [
    { id: "ok", actions: [pipe("new", "v")], rerunPolicy: "abort" },
    { id: "skip", dependencies: ["ok"], actions: [pipe("new", "v")], rerunPolicy: "continue" },
    { id: "bad", dependencies: ["skip"], actions: [pipe("new", "v")] },
    { id: "okay", actions: [pipe("new", "v")] },
    { id: "never", dependencies: ["okay", "bad"], actions: [pipe("new", "v")] },
  ];

  it("finds a step's dependents through every path, and only those", () => {
    expect([...dependentsOf(graph, "skip")].sort()).toEqual(["bad", "never", "skip"]);
    expect([...dependentsOf(graph, "okay")].sort()).toEqual(["never", "okay"]);
    expect([...dependentsOf(graph, "never")]).toEqual(["never"]);
  });

  it("forgets the step and its dependents whatever their rerunPolicy, and keeps every other record as it is", () => {
    expect(journalForRedrive(doc(graph), previous(), "skip")).toStrictEqual({
      steps: { ok: previous().steps.ok },
      actions: {
        "ok/0": previous().actions["ok/0"],
        "ok/0.onSuccess.0": previous().actions["ok/0.onSuccess.0"],
        "bad/0": { key: "bad/0", jobId: "bad", stepId: undefined, name: "pipe", status: "pending", attempt: 1 },
      },
    });
    // From the first step: its rerunPolicy abort does not abort a redrive, and every step downstream goes too.
    const all = journalForRedrive(doc(graph), previous(), "ok");
    expect(all.steps).toStrictEqual({});
    expect(Object.values(all.actions).map((a) => [a.key, a.status])).toEqual([
      ["ok/0", "pending"],
      ["ok/0.onSuccess.0", "pending"],
      ["bad/0", "pending"],
    ]);
  });
});
