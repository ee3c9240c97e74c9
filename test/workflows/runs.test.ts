// The runs API: listing with filters and both kinds of paging, the whole
// record with job runs and action detail, cancel and retry as conditional
// moves, and the schedules list. Runs are created the production way
// (runFor + startRun, as every trigger path does) but without the kick that
// follows, so they stay `pending` and the statuses and job rows a list or
// record test needs are set directly. Cancel and retry also use runs their
// objects really walk: dispatched, waiting in awaitInput, or finished.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database, tenantDb } from "../../src/db/client";
import { startRun } from "../../src/workflows/runs/start";
import { runFor, type FiringTrigger } from "../../src/workflows/triggers/fire";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { activeWorkflow, minimalDefinition } from "./fixture";
import { alarmOf, dispatched, runRecord } from "./orchestrator-support";
import { roleToken } from "../access/fixture";

const RUN_KEYS = [
  "id",
  "workflow_id",
  "workflow_version",
  "trigger",
  "test",
  "status",
  "attempt",
  "entity_id",
  "context",
  "outputs",
  "error",
  "errors_continued",
  "created_at",
  "started_at",
  "finished_at",
];

/** A job that waits in awaitInput until input is posted: its run stays `running`. */
const WAITING_JOBS = [{ id: "a", actions: [{ stepId: "ask", name: "awaitInput", config: {} }] }];

/** An activated workflow with the manual trigger of minimalDefinition (its jobs `jobs` when given), as the firing paths read it. */
async function manualWorkflow(t: TenantCreds, jobs?: object[]): Promise<FiringTrigger> {
  const { id, activation } = await activeWorkflow(t, minimalDefinition(jobs && { jobs }));
  const trigger = activation.triggers.find((tr) => tr.id === "manual")!;
  return {
    id: trigger.trigger_id,
    key: "manual",
    type: "webhook",
    workflowId: id,
    workflowVersion: activation.version,
    definition: { id: "manual", webhook: { methods: ["POST"] } },
  };
}

/**
 * Starts one run per input through runFor and startRun, then pins each
 * run's created_at to a second of its own (the first the oldest), so the
 * newest-first order is known.
 */
async function startRuns(
  t: TenantCreds,
  trigger: FiringTrigger,
  inputs: { input: unknown; entityId?: string }[],
  base = "2026-03-01T10:00:00Z",
): Promise<string[]> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  const ids: string[] = [];
  try {
    for (const facts of inputs) {
      const run = (await runFor(trigger, facts))!;
      ids.push((await tenantDb(db, t.tenantId).tx((sql) => startRun(sql, t.tenantId, run))).id);
    }
  } finally {
    await db.close();
  }
  await systemQuery(
    `UPDATE workflow_runs r SET created_at = $2::timestamptz + (x.n - 1) * interval '1 second'
       FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, n) WHERE r.id = x.id`,
    [ids, base],
  );
  return ids;
}

const setStatus = (ids: string[], status: string, more = "") =>
  systemQuery(`UPDATE workflow_runs SET status = $2${more} WHERE id = ANY($1::uuid[])`, [ids, status]);

const runRows = (tenantId: string) =>
  systemQuery("SELECT id, status, attempt, finished_at, error, updated_at FROM workflow_runs WHERE tenant_id = $1 ORDER BY id", [tenantId]);

const list = (t: TenantCreds, query = "", path = "/workflows/runs/workflows") => call("GET", `${path}${query && `?${query}`}`, { auth: t.auth });

function ids(res: { status: number; json: any; text: string }): string[] {
  expect(res.status, res.text).toBe(200);
  return res.json.data.map((r: { id: string }) => r.id);
}

describe("GET /workflows/runs/workflows", () => {
  it("answers run records without job runs, newest first, in the list envelope", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const [older, newer] = await startRuns(t, trigger, [{ input: { n: 1 } }, { input: { n: 2 } }]);
    const res = await list(t);
    expect(ids(res)).toEqual([newer, older]);
    expect(res.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });
    expect(res.json.next_cursor).toBeUndefined();
    const row = res.json.data[1];
    expect(Object.keys(row)).toEqual(RUN_KEYS);
    expect(row).toEqual({
      id: older,
      workflow_id: trigger.workflowId,
      workflow_version: 1,
      trigger: { id: "manual", type: "webhook" },
      test: false,
      status: "pending",
      attempt: 0,
      entity_id: null,
      context: { input: { n: 1 }, trigger: { id: "manual", type: "webhook" }, run: { id: older } },
      outputs: null,
      error: null,
      errors_continued: 0,
      created_at: "2026-03-01T10:00:00Z",
      started_at: null,
      finished_at: null,
    });
    // GET /workflows/runs is the same operation.
    expect((await list(t, "", "/workflows/runs")).json).toEqual(res.json);
  });

  it("lists a run started by direct dispatch, as the dispatch answered it, once its object walked it", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t, [
      { id: "a", input: { via: "{{ context.input.via }}" }, actions: [{ stepId: "echo", name: "pipe", config: { value: "{{ input.via }}" } }] },
    ]);
    const run = await dispatched(t, trigger.workflowId, { via: "wr" });
    const res = await list(t, `workflow_id=${trigger.workflowId}`);
    expect(ids(res)).toEqual([run]);
    expect(res.json.data[0]).toMatchObject({
      status: "success",
      attempt: 0,
      trigger: { id: "manual", type: "webhook" },
      context: { input: { via: "wr" }, run: { id: run } },
      outputs: { a: { echo: "wr" } },
      error: null,
    });
    expect(res.json.data[0].finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  it("is described in the OpenAPI document under both paths, with its permission", async () => {
    const { json } = await call("GET", "/openapi.json");
    for (const path of ["/workflows/runs/workflows", "/workflows/runs"]) {
      const op = json.paths[path].get;
      expect(op["x-permission"]).toBe("workflow:read");
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["cursor", "entity_id", "limit", "page", "status_in", "workflow_id"]);
    }
    expect(json.paths["/workflows/runs/workflows/{id}/cancel"].post["x-permission"]).toBe("workflow:update");
    expect(json.paths["/workflows/schedules"].get["x-permission"]).toBe("workflow:read");
  });

  it("filters by workflow_id, status_in and entity_id, alone and together", async () => {
    const t = await createTenant();
    const first = await manualWorkflow(t);
    const second = await manualWorkflow(t);
    const entity = crypto.randomUUID();
    const [a1, a2, a3] = await startRuns(t, first, [{ input: 1 }, { input: 2, entityId: entity }, { input: 3, entityId: entity }]);
    const [b1, b2] = await startRuns(t, second, [{ input: 4, entityId: entity }, { input: 5 }], "2026-03-02T10:00:00Z");
    await setStatus([a2, b1], "success", ", started_at = now(), finished_at = now()");
    await setStatus([a3], "error");

    expect(ids(await list(t, `workflow_id=${first.workflowId}`))).toEqual([a3, a2, a1]);
    expect(ids(await list(t, `workflow_id=${second.workflowId}`))).toEqual([b2, b1]);
    expect(ids(await list(t, "status_in=success"))).toEqual([b1, a2]);
    expect(ids(await list(t, "status_in=success,error"))).toEqual([b1, a3, a2]);
    expect(ids(await list(t, "status_in=pending&status_in=error"))).toEqual([b2, a3, a1]);
    expect(ids(await list(t, `entity_id=${entity}`))).toEqual([b1, a3, a2]);
    const both = await list(t, `workflow_id=${first.workflowId}&entity_id=${entity}&status_in=error`);
    expect(ids(both)).toEqual([a3]);
    expect(both.json.data[0].entity_id).toBe(entity);
    expect(both.json.pagination.total).toBe(1);
    expect(ids(await list(t, `entity_id=${crypto.randomUUID()}`))).toEqual([]);
    expect(ids(await list(t, "status_in=timeout"))).toEqual([]);
  });

  it("pages by page number and by next_cursor alike, with the same pagination", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const runs = (
      await startRuns(
        t,
        trigger,
        [1, 2, 3, 4, 5].map((n) => ({ input: n })),
      )
    ).reverse();

    const byPage = [];
    for (const page of [1, 2, 3]) {
      const res = await list(t, `limit=2&page=${page}`);
      expect(res.json.pagination).toEqual({ page, limit: 2, total: 5, total_pages: 3 });
      byPage.push(...ids(res));
    }
    expect(byPage).toEqual(runs);

    const first = await list(t, "limit=2");
    expect(ids(first)).toEqual(runs.slice(0, 2));
    expect(typeof first.json.next_cursor).toBe("string");
    const second = await list(t, `limit=2&cursor=${first.json.next_cursor}`);
    expect(ids(second)).toEqual(runs.slice(2, 4));
    expect(second.json.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    const third = await list(t, `limit=2&cursor=${second.json.next_cursor}`);
    expect(ids(third)).toEqual(runs.slice(4));
    expect(third.json.pagination).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3 });
    expect(third.json.next_cursor).toBeUndefined();

    // A run started after the first page was read does not shift the cursor's pages.
    await startRuns(t, trigger, [{ input: 6 }], "2026-03-05T00:00:00Z");
    expect(ids(await list(t, `limit=2&cursor=${first.json.next_cursor}`))).toEqual(runs.slice(2, 4));
  });

  it("a full last page has a next_cursor that answers an empty page; equal created_at orders by id", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const runs = await startRuns(
      t,
      trigger,
      [1, 2, 3, 4].map((n) => ({ input: n })),
    );
    await systemQuery("UPDATE workflow_runs SET created_at = '2026-03-01T10:00:00Z' WHERE id = ANY($1::uuid[])", [runs]);
    const expected = [...runs].sort().reverse();
    const first = await list(t, "limit=2");
    const second = await list(t, `limit=2&cursor=${first.json.next_cursor}`);
    expect([...ids(first), ...ids(second)]).toEqual(expected);
    const third = await list(t, `limit=2&cursor=${second.json.next_cursor}`);
    expect(ids(third)).toEqual([]);
    expect(third.json.pagination).toEqual({ page: 3, limit: 2, total: 4, total_pages: 2 });
    expect(third.json.next_cursor).toBeUndefined();
  });

  it("a cursor continues only the query it came from", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    await startRuns(
      t,
      trigger,
      [1, 2, 3].map((n) => ({ input: n })),
    );
    const { json } = await list(t, "limit=2");
    for (const query of [
      `limit=3&cursor=${json.next_cursor}`,
      `limit=2&status_in=pending&cursor=${json.next_cursor}`,
      `limit=2&cursor=${json.next_cursor}x`,
      "cursor=abc.def",
    ]) {
      expect(expectError(await list(t, query), 422, "VALIDATION_FAILED").details.errors, query).toEqual([
        "cursor: is invalid or does not belong to this query",
      ]);
    }
    const both = expectError(await list(t, `limit=2&page=2&cursor=${json.next_cursor}`), 422, "VALIDATION_FAILED");
    expect(both.details.errors).toEqual(["cursor: cannot be combined with page"]);
  });

  it("refuses bad query parameters with the parameter named, and reads nothing of another tenant", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const trigger = await manualWorkflow(other);
    await startRuns(other, trigger, [{ input: 1 }]);
    const cases: [string, string][] = [
      ["status_in=done", "status_in[0]"],
      ["status_in=pending,waiting", "status_in[1]"],
      ["status_in=", "status_in"],
      ["workflow_id=abc", "workflow_id"],
      ["entity_id=3F2504E0-4F89-11D3-9A0C-0305E82C3301", "entity_id"],
      ["entity_id=%ED%A0%80", "entity_id"],
      ["limit=1001", "limit"],
      ["limit=0", "limit"],
      ["page=0", "page"],
      ["page=x", "page"],
      ["foo=1", "foo"],
      ["cursor=a%00b", "cursor"],
    ];
    for (const [query, path] of cases) {
      const err = expectError(await list(t, query), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors[0], query).toMatch(new RegExp(`^${path.replace(/[[\]]/g, "\\$&")}: `));
    }
    expect(ids(await list(t, `workflow_id=${trigger.workflowId}`))).toEqual([]);
    expect((await list(t)).json.pagination.total).toBe(0);
  });

  it("needs workflow:read; /engine is the alias", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: 1 }]);
    const reader = await roleToken(t.auth, ["workflow:read"]);
    const none = await roleToken(t.auth, ["entity:read"]);
    expect(ids(await call("GET", "/workflows/runs/workflows", { auth: reader.auth }))).toEqual([run]);
    expect(expectError(await call("GET", "/workflows/runs", { auth: none.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "workflow",
      action: "read",
    });
    expect(ids(await call("GET", "/engine/runs/workflows", { auth: t.auth }))).toEqual([run]);
  });
});

describe("GET /workflows/runs/workflows/{id}", () => {
  it("answers the run with its job runs, action runs and action log, in order", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: { order: 7 } }]);
    const failure = { status: 502, code: "BAD_REQUEST", message: "upstream said no", details: { code: "HTTP_STATUS" } };
    await setStatus(
      [run],
      "error",
      `, started_at = '2026-03-01T10:00:01.5Z', finished_at = '2026-03-01T10:00:03.123456Z', outputs = '{"a":{"x":1}}', error = '{"message":"job b failed"}'`,
    );
    const [jobA, jobB] = await systemQuery<{ id: string }>(
      `INSERT INTO workflow_job_runs (tenant_id, run_id, job_id, status, output, error, started_at, finished_at, created_at) VALUES
         ($1, $2, 'a', 'success', '{"x":1}', NULL, '2026-03-01T10:00:01.5Z', '2026-03-01T10:00:02Z', '2026-03-01T10:00:01Z'),
         ($1, $2, 'b', 'error', NULL, $3, '2026-03-01T10:00:02Z', '2026-03-01T10:00:03Z', '2026-03-01T10:00:02Z')
       RETURNING id`,
      [t.tenantId, run, JSON.stringify(failure)],
    );
    const actions = await systemQuery<{ id: string }>(
      `INSERT INTO workflow_action_runs (tenant_id, job_run_id, position, step_id, name, status, error, attempts, started_at, finished_at) VALUES
         ($1, $2, 1, 'second', 'pipe', 'success', NULL, 1, '2026-03-01T10:00:01.75Z', '2026-03-01T10:00:02Z'),
         ($1, $2, 0, 'first', 'pipe', 'success', NULL, 1, '2026-03-01T10:00:01.5Z', '2026-03-01T10:00:01.75Z'),
         ($1, $3, 0, NULL, 'http', 'error', $4, 3, '2026-03-01T10:00:02Z', '2026-03-01T10:00:03Z')
       RETURNING id`,
      [t.tenantId, jobA.id, jobB.id, JSON.stringify(failure)],
    );
    await systemQuery(
      `INSERT INTO workflow_action_log (tenant_id, job_run_id, step_id, name, status, error, at) VALUES
         ($1, $2, NULL, 'http', 'running', NULL, '2026-03-01T10:00:02Z'),
         ($1, $2, NULL, 'http', 'error', $3, '2026-03-01T10:00:03Z')`,
      [t.tenantId, jobB.id, JSON.stringify(failure)],
    );

    const res = await call("GET", `/workflows/runs/workflows/${run}`, { auth: t.auth });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json.data)).toEqual([...RUN_KEYS, "job_runs"]);
    expect(res.json.data).toMatchObject({
      id: run,
      status: "error",
      outputs: { a: { x: 1 } },
      error: { message: "job b failed" },
      context: { input: { order: 7 } },
      started_at: "2026-03-01T10:00:01.5Z",
      finished_at: "2026-03-01T10:00:03.123456Z",
    });
    expect(res.json.data.job_runs).toEqual([
      {
        id: jobA.id,
        job_id: "a",
        status: "success",
        skipped_reason: null,
        error: null,
        input: null,
        output: { x: 1 },
        started_at: "2026-03-01T10:00:01.5Z",
        finished_at: "2026-03-01T10:00:02Z",
        action_runs: [
          {
            id: actions[1].id,
            step_id: "first",
            name: "pipe",
            status: "success",
            skipped_reason: null,
            error: null,
            attempts: 1,
            config: null,
            result: null,
            result_truncated: false,
            started_at: "2026-03-01T10:00:01.5Z",
            finished_at: "2026-03-01T10:00:01.75Z",
          },
          {
            id: actions[0].id,
            step_id: "second",
            name: "pipe",
            status: "success",
            skipped_reason: null,
            error: null,
            attempts: 1,
            config: null,
            result: null,
            result_truncated: false,
            started_at: "2026-03-01T10:00:01.75Z",
            finished_at: "2026-03-01T10:00:02Z",
          },
        ],
        action_log: [],
      },
      {
        id: jobB.id,
        job_id: "b",
        status: "error",
        skipped_reason: null,
        error: failure,
        input: null,
        output: null,
        started_at: "2026-03-01T10:00:02Z",
        finished_at: "2026-03-01T10:00:03Z",
        action_runs: [
          {
            id: actions[2].id,
            step_id: null,
            name: "http",
            status: "error",
            skipped_reason: null,
            error: failure,
            attempts: 3,
            config: null,
            result: null,
            result_truncated: false,
            started_at: "2026-03-01T10:00:02Z",
            finished_at: "2026-03-01T10:00:03Z",
          },
        ],
        action_log: [
          { step_id: null, name: "http", status: "running", error: null, at: "2026-03-01T10:00:02Z" },
          { step_id: null, name: "http", status: "error", error: failure, at: "2026-03-01T10:00:03Z" },
        ],
      },
    ]);
    expect(Object.keys(res.json.data.job_runs[0])).toEqual([
      "id",
      "job_id",
      "status",
      "skipped_reason",
      "error",
      "input",
      "output",
      "started_at",
      "finished_at",
      "action_runs",
      "action_log",
    ]);
    expect(Object.keys(res.json.data.job_runs[0].action_runs[0])).toEqual([
      "id",
      "step_id",
      "name",
      "status",
      "skipped_reason",
      "error",
      "attempts",
      "config",
      "result",
      "result_truncated",
      "started_at",
      "finished_at",
    ]);
  });

  it("a run without job runs has an empty job_runs; unknown, other tenants' and malformed ids are refused", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: null }]);
    const res = await call("GET", `/workflows/runs/workflows/${run}`, { auth: t.auth });
    expect(res.json.data.job_runs).toEqual([]);
    expect(res.json.data.context.input).toBeNull();
    expectError(await call("GET", `/workflows/runs/workflows/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/workflows/runs/workflows/${run}`, { auth: other.auth }), 404, "NOT_FOUND");
    expect(expectError(await call("GET", "/workflows/runs/workflows/nope", { auth: t.auth }), 422, "VALIDATION_FAILED").details.errors).toEqual([
      "id: must be a UUID",
    ]);
    expectError(await call("GET", "/workflows/runs/workflows/%00", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("POST /workflows/runs/workflows/{id}/cancel and /retry", () => {
  const post = (t: TenantCreds, id: string, action: "cancel" | "retry") => call("POST", `/workflows/runs/workflows/${id}/${action}`, { auth: t.auth });

  it("cancels a pending run once: 200 cancelled with finished_at, then 409 naming cancelled", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: 1 }]);
    const res = await post(t, run, "cancel");
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ id: run, status: "cancelled", attempt: 0, started_at: null, job_runs: [] });
    expect(res.json.data.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const [row] = await systemQuery("SELECT status, finished_at FROM workflow_runs WHERE id = $1", [run]);
    expect(row.status).toBe("cancelled");
    const before = await runRows(t.tenantId);
    const again = expectError(await post(t, run, "cancel"), 409, "CONFLICT");
    expect(again.details.run_status).toBe("cancelled");
    expect(again.message).toContain("is cancelled");
    expect(await runRows(t.tenantId)).toEqual(before);
  });

  it("cancels a running run, its waiting job and action too; a finished one is 409 with its status and unchanged", async () => {
    const t = await createTenant();
    const waiting = await manualWorkflow(t, WAITING_JOBS);
    const finishing = await manualWorkflow(t);
    const running = await dispatched(t, waiting.workflowId);
    const done = await dispatched(t, finishing.workflowId);
    const before = await runRecord(t, running);
    expect([before.status, before.job_runs[0].status, before.job_runs[0].action_runs[0].status]).toEqual(["running", "waiting", "waiting"]);
    expect((await runRecord(t, done)).status).toBe("success");

    const res = await post(t, running, "cancel");
    expect(res.status, res.text).toBe(200);
    expect([res.json.data.status, res.json.data.job_runs[0].status, res.json.data.job_runs[0].action_runs[0].status]).toEqual([
      "cancelled",
      "cancelled",
      "cancelled",
    ]);
    const rows = await runRows(t.tenantId);
    expect(expectError(await post(t, done, "cancel"), 409, "CONFLICT").details.run_status).toBe("success");
    expect(expectError(await post(t, running, "cancel"), 409, "CONFLICT").details.run_status).toBe("cancelled");
    expect(await runRows(t.tenantId)).toEqual(rows);
  });

  it("retries a cancelled run in place: attempt 1, finished_at and error cleared, walked again; a pending or running run is 409", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t, WAITING_JOBS);
    const [run] = await startRuns(t, trigger, [{ input: 1 }]);
    const running = await dispatched(t, trigger.workflowId, 2);
    expect(expectError(await post(t, run, "retry"), 409, "CONFLICT").details.run_status).toBe("pending");
    expect(expectError(await post(t, running, "retry"), 409, "CONFLICT").details.run_status).toBe("running");

    expect((await post(t, run, "cancel")).status).toBe(200);
    await systemQuery(`UPDATE workflow_runs SET error = '{"message":"stopped"}' WHERE id = $1`, [run]);
    const res = await post(t, run, "retry");
    expect(res.status, res.text).toBe(200);
    // Back to pending, then its object walked it as far as it goes: into the awaitInput.
    expect(res.json.data).toMatchObject({
      id: run,
      status: "running",
      attempt: 1,
      finished_at: null,
      error: null,
      outputs: null,
      created_at: "2026-03-01T10:00:00Z",
    });
    expect(res.json.data.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(res.json.data.context).toEqual({ input: 1, trigger: { id: "manual", type: "webhook" }, run: { id: run } });
    expect(res.json.data.job_runs.map((j: any) => [j.job_id, j.status, j.action_runs.map((a: any) => [a.step_id, a.status])])).toEqual([
      ["a", "waiting", [["ask", "waiting"]]],
    ]);
    expect(expectError(await post(t, run, "retry"), 409, "CONFLICT").details.run_status).toBe("running");
    // The list and the record agree on the new state.
    expect((await list(t, "status_in=running")).json.data.map((r: any) => [r.id, r.attempt]).sort()).toEqual(
      [
        [run, 1],
        [running, 0],
      ].sort(),
    );
  });

  it("retries every finished status, counting attempts; job runs stay, a `continue` job's result is reused and an `allow` job runs again", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t, [
      {
        id: "kept",
        rerunPolicy: "continue",
        input: { n: "{{ context.input.n }}" },
        actions: [{ stepId: "one", name: "pipe", config: { value: "{{ input.n }}" } }],
      },
      {
        id: "again",
        dependencies: ["kept"],
        input: { n: "{{ outputs.kept.one }}" },
        actions: [{ stepId: "two", name: "pipe", config: { value: "{{ input.n + 1 }}" } }],
      },
    ]);
    const run = await dispatched(t, trigger.workflowId, { n: 1 });
    const first = await runRecord(t, run);
    expect([first.status, first.outputs]).toEqual(["success", { kept: { one: 1 }, again: { two: 2 } }]);
    const jobRuns = first.job_runs.map((j: { id: string; job_id: string }) => [j.job_id, j.id]);
    let attempt = 0;
    for (const status of ["success", "error", "cancelled", "skipped", "timeout"]) {
      await setStatus([run], status, ", finished_at = now()");
      const res = await post(t, run, "retry");
      expect(res.status, `${status}: ${res.text}`).toBe(200);
      attempt += 1;
      expect(res.json.data, status).toMatchObject({ status: "success", attempt, error: null, outputs: { kept: { one: 1 }, again: { two: 2 } } });
      const jobs = res.json.data.job_runs;
      expect(jobs.map((j: { id: string; job_id: string }) => [j.job_id, j.id])).toEqual(jobRuns);
      // Each attempt of `two` is an attempt of its own: its idempotency key is never reused.
      expect(jobs.map((j: any) => [j.job_id, j.action_runs[0].attempts, j.action_log.length])).toEqual([
        ["kept", 1, 2],
        ["again", attempt + 1, 2 * (attempt + 1)],
      ]);
    }
    expect(attempt).toBe(5);
  });

  it("two racing cancels, and two racing retries, move the run once", async () => {
    const t = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: 1 }]);
    // The run starts in an hour (as a cron run with an offset), so the retried run stays pending.
    const [{ not_before }] = await systemQuery<{ not_before: string | Date }>(
      `UPDATE workflow_runs SET not_before = now() + interval '1 hour' WHERE id = $1 RETURNING not_before`,
      [run],
    );
    const cancels = await Promise.all([post(t, run, "cancel"), post(t, run, "cancel")]);
    expect(cancels.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(cancels.find((r) => r.status === 409)!.json.error.details.run_status).toBe("cancelled");
    const retries = await Promise.all([post(t, run, "retry"), post(t, run, "retry")]);
    expect(retries.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(retries.find((r) => r.status === 409)!.json.error.details.run_status).toBe("pending");
    const [row] = await systemQuery("SELECT status, attempt, started_at FROM workflow_runs WHERE id = $1", [run]);
    expect(row).toEqual({ status: "pending", attempt: 1, started_at: null });
    // The winning retry told the run's object, which now waits for the start time.
    expect(await alarmOf(run)).toBe(new Date(not_before).getTime());
  });

  it("unknown, other tenants' and malformed ids change nothing; workflow:read alone may not move a run", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const trigger = await manualWorkflow(t);
    const [run] = await startRuns(t, trigger, [{ input: 1 }]);
    const before = await runRows(t.tenantId);
    for (const action of ["cancel", "retry"] as const) {
      expectError(await post(t, crypto.randomUUID(), action), 404, "NOT_FOUND");
      expectError(await post(other, run, action), 404, "NOT_FOUND");
      expect(expectError(await post(t, "1234", action), 422, "VALIDATION_FAILED").details.errors).toEqual(["id: must be a UUID"]);
      const reader = await roleToken(t.auth, ["workflow:read"]);
      const refused = expectError(await call("POST", `/workflows/runs/workflows/${run}/${action}`, { auth: reader.auth }), 403, "FORBIDDEN");
      expect(refused.details).toMatchObject({ resource: "workflow", action: "update" });
    }
    expect(await runRows(t.tenantId)).toEqual(before);
    expect(before[0].status).toBe("pending");
  });
});

describe("GET /workflows/schedules", () => {
  it("lists each cron trigger's schedule with the trigger's state, filtered by workflow_id and paged", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const nightly = await activeWorkflow(
      t,
      minimalDefinition({
        triggers: [
          { id: "nightly", cron: "0 3 * * *" },
          { id: "manual", webhook: { methods: ["POST"] } },
        ],
      }),
    );
    const hourly = await activeWorkflow(t, minimalDefinition({ triggers: [{ id: "hourly", cron: "15 * * * *" }] }));
    await activeWorkflow(other, minimalDefinition({ triggers: [{ id: "theirs", cron: "* * * * *" }] }));
    const nightlyTrigger = nightly.activation.triggers.find((tr) => tr.id === "nightly")!.trigger_id;
    const hourlyTrigger = hourly.activation.triggers[0].trigger_id;
    const stored = await systemQuery("SELECT id, trigger_id, next_run_at FROM cron_schedules WHERE tenant_id = $1", [t.tenantId]);
    const scheduleOf = (triggerId: string) => stored.find((s) => s.trigger_id === triggerId)!;

    const all = await call("GET", "/workflows/schedules", { auth: t.auth });
    expect(all.status, all.text).toBe(200);
    expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });
    expect(all.json.data.map((s: { trigger_id: string }) => s.trigger_id)).toEqual([nightlyTrigger, hourlyTrigger]);
    const row = all.json.data[0];
    expect(Object.keys(row)).toEqual(["id", "workflow_id", "trigger_id", "cron", "next_run_at", "last_run_at", "enabled"]);
    expect(row).toEqual({
      id: scheduleOf(nightlyTrigger).id,
      workflow_id: nightly.id,
      trigger_id: nightlyTrigger,
      cron: "0 3 * * *",
      next_run_at: scheduleOf(nightlyTrigger).next_run_at,
      last_run_at: null,
      enabled: true,
    });
    expect(row.next_run_at).toMatch(/T03:00:00Z$/);

    expect((await call("PUT", `/workflows/${nightly.id}/triggers/nightly/disable`, { auth: t.auth })).status).toBe(200);
    const filtered = await call("GET", `/workflows/schedules?workflow_id=${nightly.id}`, { auth: t.auth });
    expect(filtered.json.data.map((s: { enabled: boolean; cron: string }) => [s.cron, s.enabled])).toEqual([["0 3 * * *", false]]);

    const second = await call("GET", "/workflows/schedules?limit=1&page=2", { auth: t.auth });
    expect(second.json.data.map((s: { trigger_id: string }) => s.trigger_id)).toEqual([hourlyTrigger]);
    expect(second.json.pagination).toEqual({ page: 2, limit: 1, total: 2, total_pages: 2 });
    expect((await call("GET", `/workflows/schedules?workflow_id=${crypto.randomUUID()}`, { auth: t.auth })).json.data).toEqual([]);
  });

  it("refuses bad query parameters", async () => {
    const t = await createTenant();
    for (const [query, path] of [
      ["workflow_id=x", "workflow_id"],
      ["limit=5000", "limit"],
      ["cron=1", "cron"],
    ]) {
      const err = expectError(await call("GET", `/workflows/schedules?${query}`, { auth: t.auth }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors[0], query).toMatch(new RegExp(`^${path}: `));
    }
  });
});
