// What a run's object admits from outside (runs/admission.ts), decided on
// plain values: awaitInput data, an httpCallback's callback, a cancel.
import { describe, expect, it } from "vitest";
import { admitDelivery, admitInput, cancellation } from "../../src/workflows/runs/admission";
import { closedRecords } from "../../src/workflows/engine/close";
import type { ActionRecord, Journal, RunDocument } from "../../src/workflows/engine/types";

const ref = { tenantId: "t-1", runId: "r-1" };
const doc = {
  runId: "r-1",
  tenantId: "t-1",
  workflowId: "w",
  workflowVersion: 1,
  definition: { jobs: [] },
  env: {},
  policyId: null,
  context: {},
} as unknown as RunDocument;
const NOW = 1_700_000_000_000;

const ask: ActionRecord = {
  key: "a/0",
  jobId: "a",
  stepId: "ask",
  name: "awaitInput",
  status: "waiting",
  attempt: 1,
  config: { schema: { type: "object", required: ["ok"] } },
  startedAt: 1,
};
const journalWith = (...actions: ActionRecord[]): Journal => ({ steps: {}, actions: Object.fromEntries(actions.map((a) => [a.key, a])) });

describe("admitInput", () => {
  it("takes data the waiting action's schema accepts: the action succeeds with it as its result", () => {
    expect(admitInput(doc, journalWith(ask), { status: "running" }, ref, "ask", { ok: true }, NOW)).toEqual({
      write: { ...ask, status: "success", result: { ok: true }, until: undefined, finishedAt: NOW },
    });
  });

  it("refuses data its schema does not accept with the problems", () => {
    const admitted = admitInput(doc, journalWith(ask), { status: "running" }, ref, "ask", {}, NOW);
    expect(admitted).toEqual({
      refused: {
        status: 422,
        code: "VALIDATION_FAILED",
        message: "The input for ask does not satisfy its schema",
        details: { errors: ["data.ok: is required"], validation_errors: ["data.ok: is required"] },
      },
    });
  });

  it("answers 404 for another tenant's run, a run never started here, or no such awaitInput", () => {
    const notFound = { refused: { status: 404, code: "NOT_FOUND", message: "Run r-1 has no awaitInput action ask", details: { step_id: "ask" } } };
    expect(admitInput(doc, journalWith(ask), { status: "running" }, { ...ref, tenantId: "t-2" }, "ask", {}, NOW)).toEqual(notFound);
    expect(admitInput(undefined, journalWith(), undefined, ref, "ask", {}, NOW)).toEqual(notFound);
    expect(admitInput(doc, journalWith({ ...ask, name: "pipe" }), { status: "running" }, ref, "ask", {}, NOW)).toEqual(notFound);
  });

  it("answers 409 with the action's status when it does not wait, or the run's when the run finished", () => {
    expect(admitInput(doc, journalWith({ ...ask, status: "success" }), { status: "running" }, ref, "ask", { ok: 1 }, NOW)).toEqual({
      refused: { status: 409, code: "CONFLICT", message: "Action ask of run r-1 is success, not waiting for input", details: { step_status: "success" } },
    });
    expect(admitInput(doc, journalWith(ask), { status: "cancelled" }, ref, "ask", { ok: 1 }, NOW)).toEqual({
      refused: { status: 409, code: "CONFLICT", message: "Action ask of run r-1 is cancelled, not waiting for input", details: { step_status: "cancelled" } },
    });
  });
});

describe("admitDelivery", () => {
  const waiting: ActionRecord = { key: "a/0", jobId: "a", name: "httpCallback", status: "waiting", attempt: 2, until: NOW + 60_000, detail: { iteration: 2 } };

  it("takes a callback for the waiting attempt: kept on the record, due at once", () => {
    expect(admitDelivery(doc, waiting, { status: "running" }, ref, "a/0", 2, { body: 1 }, NOW)).toEqual({
      write: { ...waiting, delivered: { body: 1 }, until: NOW },
    });
  });

  it("refuses an earlier attempt's callback as superseded, a second one as answered, and any once the run finished", () => {
    const statusOf = (rec: ActionRecord, attempt: number, state: { status: "running" | "success" }) => {
      const admitted = admitDelivery(doc, rec, state, ref, "a/0", attempt, {}, NOW);
      return "refused" in admitted ? [admitted.refused.status, admitted.refused.details.step_status] : "taken";
    };
    expect(statusOf(waiting, 1, { status: "running" })).toEqual([409, "superseded"]);
    expect(statusOf({ ...waiting, delivered: {} }, 2, { status: "running" })).toEqual([409, "answered"]);
    expect(statusOf({ ...waiting, status: "error" }, 2, { status: "running" })).toEqual([409, "error"]);
    expect(statusOf(waiting, 2, { status: "success" })).toEqual([409, "success"]);
  });

  it("after a resend (a crash), waits on the callback URL of the attempt it repeated, which the resend sent again", () => {
    const resent: ActionRecord = { ...waiting, attempt: 3, detail: { iteration: 2, deadline: NOW + 60_000, awaiting: true } };
    expect(admitDelivery(doc, resent, { status: "running" }, ref, "a/0", 2, { body: 1 }, NOW)).toEqual({
      write: { ...resent, delivered: { body: 1 }, until: NOW },
    });
    const later = admitDelivery(doc, resent, { status: "running" }, ref, "a/0", 3, {}, NOW);
    expect("refused" in later && later.refused.details.step_status).toBe("superseded");
  });

  it("answers 404 for an unknown action or another tenant's run", () => {
    const notFound = { refused: { status: 404, code: "NOT_FOUND", message: "Run r-1 has no action a/0", details: {} } };
    expect(admitDelivery(doc, undefined, { status: "running" }, ref, "a/0", 2, {}, NOW)).toEqual(notFound);
    expect(admitDelivery(doc, waiting, { status: "running" }, { ...ref, tenantId: "t-2" }, "a/0", 2, {}, NOW)).toEqual(notFound);
  });
});

describe("cancellation", () => {
  const jobs = [
    {
      id: "a",
      actions: [
        { stepId: "ask", name: "awaitInput" },
        { stepId: "after", name: "pipe" },
      ],
    },
    { id: "b", actions: [{ name: "pipe" }] },
    { id: "c", dependencies: ["a"], actions: [{ name: "pipe" }] },
  ];
  const cancelDoc = { ...doc, definition: { jobs } } as unknown as RunDocument;

  it("cancels the run, closes what is open, and records what never started as skipped because the run ended", () => {
    const journal: Journal = {
      steps: { a: { status: "waiting", startedAt: 1 }, b: { status: "success", startedAt: 1, finishedAt: 2 } },
      actions: { "a/0": ask, "b/0": { key: "b/0", jobId: "b", name: "pipe", status: "success", attempt: 1 } },
    };
    expect(cancellation(cancelDoc, journal, NOW)).toEqual({
      state: { status: "cancelled" },
      steps: [
        ["a", { status: "cancelled", startedAt: 1, finishedAt: NOW }],
        ["c", { status: "skipped", skippedReason: "run_ended", finishedAt: NOW }],
      ],
      actions: [
        { ...ask, status: "cancelled", until: undefined, finishedAt: NOW },
        { key: "a/1", jobId: "a", stepId: "after", name: "pipe", status: "skipped", skippedReason: "run_ended", attempt: 0, finishedAt: NOW },
      ],
    });
  });

  it("leaves a finished run's records alone, and a run never loaded has nothing to close", () => {
    const done: Journal = {
      steps: Object.fromEntries(jobs.map((j) => [j.id, { status: "success" as const, startedAt: 1, finishedAt: 2 }])),
      actions: {},
    };
    expect(closedRecords(jobs as RunDocument["definition"]["jobs"], done, NOW)).toEqual({ steps: [], actions: [] });
    expect(cancellation(undefined, { steps: {}, actions: {} }, NOW)).toEqual({ state: { status: "cancelled" }, steps: [], actions: [] });
  });
});
