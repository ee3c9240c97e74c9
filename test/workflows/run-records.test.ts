// Records that explain a run, read through the runs API: each action's
// resolved config, result (cut past 64 KiB) and skip reason, each job's input
// and skip reason, the errors `errorPolicy: continue` consumed, an http
// failure naming its status, values computed from secrets masked whole, and
// the `http` action's Idempotency-Key.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";
import { fireDue, putTenantSecret, rowsHolding, runActions } from "./outbound-support";

const post = (t: TenantCreds, id: string, action: "cancel" | "retry") => call("POST", `/workflows/runs/workflows/${id}/${action}`, { auth: t.auth });

const jobOf = (run: any, id: string) => run.job_runs.find((j: { job_id: string }) => j.job_id === id);

describe("run records: configs, results, inputs, skip reasons, errors continued", () => {
  it("records each action's resolved config and result, each job's input, why what was skipped did not run, and counts the errors continued", async () => {
    const t = await createTenant();
    const s = await scenario({ "/missing": [{ status: 404, json: { error: "no such order" } }] });
    const wf = await manualWorkflow(t, [
      {
        id: "a",
        input: { n: "{{ context.input.n }}", url: "{{ context.input.url }}" },
        actions: [
          { stepId: "never", name: "pipe", if: "input.n > 100", config: { value: 1 } },
          { stepId: "double", name: "pipe", config: { value: { twice: "{{ input.n * 2 }}", label: "n={{ input.n }}" } } },
          { stepId: "lookup", name: "http", errorPolicy: "continue", config: { url: "{{ input.url }}", maxRetries: 0 } },
        ],
      },
      { id: "off", condition: "context.input.n > 100", conditionPolicy: "continue", actions: [{ name: "pipe", config: { value: 0 } }] },
      {
        id: "strict",
        dependencies: ["a"],
        errorPolicy: "continue",
        actions: [{ stepId: "fails", name: "pipe", errorWhen: "result = 'bad'", config: { value: "bad" } }],
      },
    ]);
    const runId = await dispatched(t, wf.id, { n: 7, url: s.url("/missing") });
    const run = await runRecord(t, runId);
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run.errors_continued).toBe(2);

    const a = jobOf(run, "a");
    expect([a.status, a.skipped_reason, a.input]).toEqual(["success", null, { n: 7, url: s.url("/missing") }]);
    expect(a.action_runs.map((x: any) => [x.step_id, x.status, x.skipped_reason])).toEqual([
      ["never", "skipped", "if_false"],
      ["double", "success", null],
      ["lookup", "error", null],
    ]);
    const [never, double, lookup] = a.action_runs;
    expect([never.config, never.result, never.result_truncated, never.attempts]).toEqual([null, null, false, 0]);
    expect([double.config, double.result, double.result_truncated]).toEqual([{ value: { twice: 14, label: "n=7" } }, { twice: 14, label: "n=7" }, false]);
    expect(lookup.config).toEqual({ url: s.url("/missing"), maxRetries: 0 });
    expect(lookup.result).toMatchObject({ status: 404, body: { error: "no such order" } });
    expect(lookup.error.message).toBe("Action lookup: errorWhen holds for its result (HTTP 404)");

    const off = jobOf(run, "off");
    expect([off.status, off.skipped_reason, off.input, off.action_runs]).toEqual(["skipped", "condition_false", null, []]);
    const strict = jobOf(run, "strict");
    expect([strict.status, strict.skipped_reason, strict.input, strict.error.message]).toEqual([
      "error",
      null,
      {},
      "Action fails: errorWhen holds for its result",
    ]);
    expect([strict.action_runs[0].result, strict.action_runs[0].status]).toEqual(["bad", "error"]);

    // The list row carries the count too.
    const listed = await call("GET", `/workflows/runs/workflows?workflow_id=${wf.id}`, { auth: t.auth });
    expect(listed.json.data.map((r: any) => [r.id, r.errors_continued])).toEqual([[runId, 2]]);
  });

  it("a run with no error consumed counts 0", async () => {
    const t = await createTenant();
    const { run } = await runActions(t, [{ stepId: "p", name: "pipe", config: { value: 1 } }]);
    expect([run.status, run.errors_continued]).toEqual(["success", 0]);
  });

  it("shows a result whose JSON text is over 64 KiB as the first 64 KiB of that text, never half a character, while the job's output keeps it whole", async () => {
    const t = await createTenant();
    // 40,000 two-byte characters: the JSON text is 80,002 bytes, and byte 65,536 is the first half of one.
    const { run } = await runActions(t, [{ stepId: "big", name: "pipe", config: { value: '{{ $pad("", 40000, "é") }}' } }]);
    expect(run.status).toBe("success");
    const big = run.job_runs[0].action_runs[0];
    expect(big.result_truncated).toBe(true);
    expect(big.result).toBe(`"${"é".repeat(32_767)}`);
    expect(new TextEncoder().encode(big.result).byteLength).toBe(65_535);
    expect(run.outputs.call.big).toBe("é".repeat(40_000));

    const { run: small } = await runActions(t, [{ stepId: "fits", name: "pipe", config: { value: '{{ $pad("", 30000, "a") }}' } }]);
    expect([small.job_runs[0].action_runs[0].result_truncated, small.job_runs[0].action_runs[0].result]).toEqual([false, "a".repeat(30_000)]);
  });

  it("records a job the run ended before it started as skipped (run_ended), and the rest of a job a cancel cut short", async () => {
    const t = await createTenant();
    const aborting = await manualWorkflow(t, [
      { id: "stop", condition: "false", conditionPolicy: "abort", actions: [{ name: "pipe", config: { value: 1 } }] },
      { id: "later", dependencies: ["stop"], actions: [{ name: "pipe", config: { value: 2 } }] },
    ]);
    const aborted = await runRecord(t, await dispatched(t, aborting.id));
    expect(aborted.status).toBe("success");
    expect(aborted.job_runs.map((j: any) => [j.job_id, j.status, j.skipped_reason, j.started_at, j.action_runs])).toEqual([
      ["stop", "skipped", "condition_false", expect.any(String), []],
      ["later", "skipped", "run_ended", null, []],
    ]);

    const waiting = await manualWorkflow(t, [
      {
        id: "ask",
        actions: [
          { stepId: "wait", name: "awaitInput", config: {} },
          { stepId: "then", name: "pipe", config: { value: 1 } },
        ],
      },
      { id: "after", dependencies: ["ask"], actions: [{ name: "pipe", config: { value: 2 } }] },
    ]);
    const runId = await dispatched(t, waiting.id);
    const res = await post(t, runId, "cancel");
    expect(res.status, res.text).toBe(200);
    const cancelled = await runRecord(t, runId);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.job_runs.map((j: any) => [j.job_id, j.status, j.skipped_reason])).toEqual([
      ["ask", "cancelled", null],
      ["after", "skipped", "run_ended"],
    ]);
    expect(jobOf(cancelled, "ask").action_runs.map((x: any) => [x.step_id, x.status, x.skipped_reason, x.attempts])).toEqual([
      ["wait", "cancelled", null, 1],
      ["then", "skipped", "run_ended", 0],
    ]);
    expect(cancelled.errors_continued).toBe(0);
  });
});

describe("mirroring: a job's running record rides with its first action's", () => {
  const logOf = (job: any) => job.action_log.map((l: any) => [l.step_id, l.status]);

  it("every job and action row and log entry is written once, in order, with jobs walked side by side", async () => {
    const t = await createTenant();
    const wf = await manualWorkflow(t, [
      {
        id: "a",
        actions: [
          { stepId: "x", name: "pipe", config: { value: 1 } },
          { stepId: "y", name: "pipe", config: { value: 2 } },
        ],
      },
      {
        id: "b",
        actions: [
          { stepId: "z", name: "pipe", if: "false", config: { value: 3 } },
          { stepId: "w", name: "pipe", config: { value: 4 } },
        ],
      },
      { id: "c", dependencies: ["a", "b"], actions: [{ stepId: "v", name: "pipe", config: { value: 5 } }] },
    ]);
    const run = await runRecord(t, await dispatched(t, wf.id));
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run.job_runs.map((j: any) => [j.job_id, j.status, typeof j.started_at, typeof j.finished_at])).toEqual([
      ["a", "success", "string", "string"],
      ["b", "success", "string", "string"],
      ["c", "success", "string", "string"],
    ]);
    expect(logOf(jobOf(run, "a"))).toEqual([
      ["x", "running"],
      ["x", "success"],
      ["y", "running"],
      ["y", "success"],
    ]);
    expect(logOf(jobOf(run, "b"))).toEqual([
      ["z", "skipped"],
      ["w", "running"],
      ["w", "success"],
    ]);
    expect(logOf(jobOf(run, "c"))).toEqual([
      ["v", "running"],
      ["v", "success"],
    ]);
    expect(jobOf(run, "c").action_runs.map((x: any) => [x.step_id, x.status, x.result])).toEqual([["v", "success", 5]]);
  });

  it("a job whose first action takes long shows running, with that action running, while it runs", async () => {
    const t = await createTenant();
    const s = await scenario({ "/slow": [{ delayMs: 1500, json: { ok: true } }] });
    const wf = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "get", name: "http", config: { url: s.url("/slow"), maxRetries: 0 } }] }]);
    const res = await call("POST", "/workflows/wr", { auth: t.auth, body: { workflow_id: wf.id, trigger_id: "manual", input: {} } });
    expect(res.status, res.text).toBe(202);
    const runId = res.json.data.workflow_run.id as string;
    let during: any;
    for (let i = 0; i < 100 && !during?.job_runs[0]?.action_runs.length; i++) {
      await new Promise((r) => setTimeout(r, 20));
      during = await runRecord(t, runId);
    }
    const job = during.job_runs[0];
    expect([during.status, job.status, job.action_runs.map((x: any) => [x.step_id, x.status]), logOf(job)]).toEqual([
      "running",
      "running",
      [["get", "running"]],
      [["get", "running"]],
    ]);
    expect((await s.requests()).length).toBeLessThanOrEqual(1);

    // A second start waits behind the walk the route's kick began.
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const after = await runRecord(t, runId);
    expect([after.status, after.job_runs[0].status, logOf(after.job_runs[0])]).toEqual([
      "success",
      "success",
      [
        ["get", "running"],
        ["get", "success"],
      ],
    ]);
  });
});

describe("values computed from secrets", () => {
  const SECRET = "tok-secret-123456";

  it("are masked whole in job inputs, action configs and results, outputs and every stored row, while the request carries the real value", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "TOKEN", SECRET);
    const s = await scenario({ "/hook": [{ status: 200, json: { ok: true } }] });
    const { runId, run } = await runActions(
      t,
      [
        { stepId: "derive", name: "pipe", config: { value: { head: "{{ $substring(input.upper, 0, 9) }}", shown: "{{ input.plain }}" } } },
        {
          stepId: "send",
          name: "http",
          config: { url: s.url("/hook"), method: "POST", headers: { "X-Sig": "{{ $lowercase(input.upper) & '!' }}" }, body: { plain: "{{ input.plain }}" } },
        },
      ],
      {
        configEnv: { TOKEN: null },
        env: { TOKEN: "{{ secrets.tenant.TOKEN }}" },
        input: { upper: "{{ $uppercase(config.env.TOKEN) }}", plain: "visible-value" },
      },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    const [seen] = await s.requests();
    expect(seen.headers["x-sig"]).toBe(`${SECRET}!`);

    const job = run.job_runs[0];
    expect(job.input).toEqual({ upper: "***", plain: "visible-value" });
    const [derive, send] = job.action_runs;
    expect([derive.config, derive.result]).toEqual([{ value: { head: "***", shown: "visible-value" } }, { head: "***", shown: "visible-value" }]);
    expect(send.config).toEqual({ url: s.url("/hook"), method: "POST", headers: { "X-Sig": "***" }, body: { plain: "visible-value" } });
    expect(run.outputs.call.derive).toEqual({ head: "***", shown: "visible-value" });
    for (const needle of [SECRET, SECRET.toUpperCase(), SECRET.toUpperCase().slice(0, 9), `${SECRET}!`])
      expect(await rowsHolding([runId], needle), needle).toEqual([]);
  });

  it("stay masked in a later walk, and in the error of an action that fails on one", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "TOKEN", SECRET);
    const { runId, run } = await runActions(
      t,
      [
        { stepId: "wait", name: "awaitInput", config: {} },
        { stepId: "check", name: "pipe", errorWhen: "true", config: { value: "{{ input.upper }}" } },
      ],
      { configEnv: { TOKEN: null }, env: { TOKEN: "{{ secrets.tenant.TOKEN }}" }, input: { upper: "{{ $uppercase(config.env.TOKEN) }}" } },
    );
    expect(run.status).toBe("running");
    // The input arrives in a call of its own: the walk that reads the computed value is not the one that computed it.
    const res = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "wait", data: {} } });
    expect(res.status, res.text).toBe(200);
    const done = await runRecord(t, runId);
    expect(done.status).toBe("error");
    const check = done.job_runs[0].action_runs[1];
    expect([check.config, check.result, check.error.details.result]).toEqual([{ value: "***" }, "***", "***"]);
    expect(await rowsHolding([runId], SECRET.toUpperCase())).toEqual([]);
  });
});

describe("http: Idempotency-Key", () => {
  it("is <run id>:<job id>:<action path> on every attempt and again on a run retry; GET and HEAD send none, a header the config sets wins", async () => {
    const t = await createTenant();
    const s = await scenario({ "/write": [{ status: 503 }, { status: 200, json: { ok: 1 } }], "/read": [{ status: 200, json: {} }] });
    const { runId } = await runActions(t, [
      { stepId: "write", name: "http", config: { url: s.url("/write"), method: "POST", body: { a: 1 }, maxRetries: 1, initialRetryDelayMs: 1000 } },
      { name: "http", config: { url: s.url("/write"), method: "PUT", body: "x" } },
      { name: "http", config: { url: s.url("/read") } },
      { name: "http", config: { url: s.url("/read"), method: "HEAD" } },
      { name: "http", config: { url: s.url("/write"), method: "DELETE", headers: { "idempotency-key": "mine" } } },
    ]);
    const run = await fireDue(t, runId);
    expect(run.status, JSON.stringify(run)).toBe("success");
    const keys = (await s.requests()).map((r) => [r.method, r.headers["idempotency-key"] ?? null]);
    const expected = [
      ["POST", `${runId}:call:write`],
      ["POST", `${runId}:call:write`],
      ["PUT", `${runId}:call:1`],
      ["GET", null],
      ["HEAD", null],
      ["DELETE", "mine"],
    ];
    expect(keys).toEqual(expected);

    const retried = await post(t, runId, "retry");
    expect([retried.status, retried.json.data?.status]).toEqual([200, "success"]);
    const again = (await s.requests()).slice(expected.length).map((r) => [r.method, r.headers["idempotency-key"] ?? null]);
    expect(again).toEqual(expected.slice(1));
  });
});
