// What a run can keep: an action's result at most 1 MiB, every record within
// the object's storage limit. Past either the run fails with a clear error
// and never loops on a write that cannot succeed.
import { describe, expect, it } from "vitest";
import { createTenant } from "../support/api";
import { alarmOf, dispatched, inObject, manualWorkflow, runRecord } from "./orchestrator-support";

/** A pipe whose result is a string of `n` characters, built inside the run. */
const big = (stepId: string, n: number) => ({ stepId, name: "pipe", config: { value: `{{ $pad('', ${n}, 'x') }}` } });

describe("run limits", () => {
  it("fails an action whose result is over 1 MiB, naming its size and the limit; one at the limit passes", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [
      { id: "a", actions: [{ ...big("fits", 1024 * 1024 - 2), errorPolicy: "continue" }, big("over", 1024 * 1024 - 1)], output: { n: 1 } },
    ]);
    const runId = await dispatched(t, wf.id);
    const run = await runRecord(t, runId);
    const [fits, over] = run.job_runs[0].action_runs;
    expect(fits.status).toBe("success");
    expect([run.status, over.status, over.error.status, over.error.code]).toEqual(["error", "error", 422, "UNPROCESSABLE_ENTITY"]);
    // The JSON of a string of n characters is n + 2 bytes.
    expect(over.error.details).toEqual({ size: 1024 * 1024 + 1, limit: 1024 * 1024 });
    expect(over.error.message).toMatch(/move large data as temp files/);
  });

  it("ends a run whose job output is too large to keep with a clear error, instead of resuming it forever", async () => {
    const t = await createTenant();
    const third = 1000 * 1000;
    const wf = await manualWorkflow(t, [{ id: "a", actions: [big("x", third), big("y", third), big("z", third)] }]);
    const runId = await dispatched(t, wf.id);
    const run = await runRecord(t, runId);
    expect(run.status).toBe("error");
    expect(run.error).toMatchObject({ status: 422, code: "UNPROCESSABLE_ENTITY" });
    expect(run.error.message).toMatch(/over the 2 MB a run may keep/);
    expect(run.job_runs[0].action_runs.map((a: { status: string }) => a.status)).toEqual(["success", "success", "success"]);
    expect(run.job_runs[0].status).toBe("cancelled");
    expect(await alarmOf(runId)).toBeNull();
    expect(await inObject(runId, async (_, state) => (await state.storage.get<{ status: string }>("state"))?.status)).toBe("error");
  });
});
