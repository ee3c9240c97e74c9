// `npm run bench -- runs`: the run orchestrator (the WorkflowRun Durable
// Object walking a run and mirroring every record into Postgres), with
// workflows set up and runs started through the API.
//
// - Per action: a run of 50 no-op `pipe` actions in one job, dispatched with
//   POST /workflows/wr, timed from sending the request to the run row's
//   `finished_at`, divided by 50; and a run of one such action, so the fixed
//   cost of a run (dispatch, kick, load, claim, end) and the marginal cost of
//   an action are told apart. Raw SQL: the rows such a run writes, written
//   from Node over one warm connection, statement for statement as the
//   mirror writes them (the run row, its claim, the job run twice, per
//   action an upsert of the action run with its log row for `running` and
//   again for `success`, the run's end). Ours also keeps every record in the
//   object's storage before mirroring it, and walks the definition; raw does
//   neither.
// - Many at once: 1,000 runs of a 5-action job dispatched 32 in flight,
//   waited for until every one is finished; runs/s from the first dispatch
//   to the last `finished_at`, Postgres backends polled from
//   `pg_stat_activity` throughout, and every run checked `success` with
//   all its action rows. Otherwise the figure still says what happened
//   (counts by status, refused dispatches, runs never finished) and the
//   suite fails once the last figure is measured. Raw SQL: the same rows for
//   1,000 runs, 32 in flight over the raw pool's 4 connections.
// - Event to first action: POST /entity/entities of a type with an event
//   trigger on `created`, timed until a poll every 2 ms sees the first
//   action run of that entity's run. Raw SQL: one statement inserting an
//   entity, its run, job run, first action run and log row, into a second type.
//
// Ours and raw alternate run by run in the sequential figures, so load from
// elsewhere on the machine falls on both alike.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { figure, round } from "../lib/bench-env.mjs";
import { percentile } from "../lib/percentile.mjs";

const CHAIN = 50;
const CHAIN_RUNS = Number(process.env.BENCH_RUNS_CHAIN_RUNS ?? 20);
const CHAIN_WARMUP = 3;
const BULK_RUNS = Number(process.env.BENCH_RUNS_BULK ?? 1000);
const BULK_ACTIONS = 5;
const IN_FLIGHT = 32;
const WRITES = Number(process.env.BENCH_RUNS_WRITES ?? 50);
const WRITE_WARMUP = 3;
// `BENCH_RUNS_ONLY=event_to_first_action` (figure names, comma-separated) measures only those figures.
const ONLY = process.env.BENCH_RUNS_ONLY?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);

const FINISH_POLL_MS = 5;
const ACTION_POLL_MS = 2;
const BULK_POLL_MS = 200;
const CONNECTIONS_POLL_MS = 50;
// A single run not finished by then is stuck, not slow.
const RUN_WAIT_MS = 30_000;
// The bulk phase gives up when no run finished for this long, or in all after the cap.
const BULK_STALL_MS = 30_000;
const BULK_CAP_MS = 180_000;

const TARGET_PER_ACTION_MS = 3;
const TARGET_EVENT_P50_MS = 50;

const TRIGGER = "manual";
const JOB = "chain";
const TYPE = "BenchRunOrder";
const RAW_TYPE = "RawRunOrder";

const entitySchema = { type: "object", required: ["code"], properties: { code: { type: "string" } } };
const entityConfig = { identifier_key: ["code"] };

/** Epoch milliseconds with sub-millisecond precision, comparable to Postgres timestamps on the same host. */
const epochNow = () => performance.timeOrigin + performance.now();

const pipes = (n) => Array.from({ length: n }, (_, i) => ({ name: "pipe", config: { value: i } }));

function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

/** Saves and activates a definition; answers its workflow id, version and triggers by key. */
async function activated(env, name, definition_json) {
  const { id } = (await env.api("POST", "/definition/workflows", { name, definition_json })).data;
  const activation = (await env.api("POST", `/workflows/${id}/activate`, {})).data;
  return { id, version: activation.version, triggers: Object.fromEntries(activation.triggers.map((t) => [t.id, t.trigger_id])) };
}

async function setUp(env, log) {
  const typeIds = {};
  for (const name of [TYPE, RAW_TYPE]) {
    typeIds[name] = (await env.api("POST", "/entity/entity-types", { name, schema: entitySchema, status: "active", config: entityConfig })).data.id;
  }
  const manual = { id: TRIGGER, webhook: { methods: ["POST"] } };
  const chain = (n) => ({ jobs: [{ id: JOB, actions: pipes(n) }], triggers: [manual] });
  const workflows = {
    chain: await activated(env, "bench-runs-chain", chain(CHAIN)),
    single: await activated(env, "bench-runs-single", chain(1)),
    bulk: await activated(env, "bench-runs-bulk", chain(BULK_ACTIONS)),
    event: await activated(env, "bench-runs-event", {
      jobs: [{ id: JOB, actions: pipes(1) }],
      triggers: [{ id: "created", source: { entityTypeId: typeIds[TYPE], eventAction: "created" } }],
    }),
  };
  log(`[bench] runs: workflows of ${CHAIN}, 1 and ${BULK_ACTIONS} pipe actions (dispatched) and 1 (event-triggered), activated`);
  return { typeIds, workflows };
}

/** POST /workflows/wr; answers the run id and when the request was sent (epoch ms). */
async function dispatch(env, workflow) {
  const sentAt = epochNow();
  const { data } = await env.api("POST", "/workflows/wr", { workflow_id: workflow.id, trigger_id: TRIGGER, input: {} });
  return { runId: data.workflow_run.id, sentAt };
}

const RUN_TIMES = `status, extract(epoch FROM created_at)::float8 * 1000 AS created, extract(epoch FROM started_at)::float8 * 1000 AS started,
                   extract(epoch FROM finished_at)::float8 * 1000 AS finished`;

/** Polls the run row until it is finished; answers its status and times (epoch ms). */
async function awaitFinished(client, runId) {
  const deadline = performance.now() + RUN_WAIT_MS;
  for (;;) {
    const { rows } = await client.query(`SELECT ${RUN_TIMES} FROM workflow_runs WHERE id = $1`, [runId]);
    const row = rows[0];
    if (row && row.status !== "pending" && row.status !== "running") return row;
    if (performance.now() > deadline) throw new Error(`run ${runId} is still ${row?.status ?? "missing"} after ${RUN_WAIT_MS} ms`);
    await sleep(FINISH_POLL_MS);
  }
}

/** Every run `success`, its one job run `success` with `actions` action runs `success` and two log rows each. */
async function checkRuns(env, runIds, actions) {
  const { rows } = await env.pool.query(
    `SELECT r.status, j.status AS job_status,
            (SELECT count(*)::int FROM workflow_action_runs a WHERE a.job_run_id = j.id AND a.status = 'success') AS actions,
            (SELECT count(*)::int FROM workflow_action_log l WHERE l.job_run_id = j.id) AS logs
       FROM workflow_runs r LEFT JOIN workflow_job_runs j ON j.run_id = r.id
      WHERE r.id = ANY($1::uuid[])`,
    [runIds],
  );
  const wrong = rows.filter((r) => r.status !== "success" || r.job_status !== "success" || r.actions !== actions || r.logs !== 2 * actions);
  if (rows.length !== runIds.length || wrong.length) {
    throw new Error(`expected ${runIds.length} successful runs of ${actions} actions each; found ${rows.length}, wrong: ${JSON.stringify(wrong.slice(0, 5))}`);
  }
}

// The mirror's statements (src/workflows/runs/orchestrator.ts), for the raw side.
const TOUCH_RUN = `UPDATE workflow_runs SET updated_at = now() WHERE id = $2 AND tenant_id = $1`;
const CLAIM = `WITH moved AS (
    UPDATE workflow_runs SET status = 'running', updated_at = now(),
           started_at = CASE WHEN status = 'pending' THEN now() ELSE started_at END
     WHERE id = $1 AND tenant_id = $2 AND status IN ('pending', 'running')
     RETURNING status)
  SELECT coalesce((SELECT status FROM moved), (SELECT status FROM workflow_runs WHERE id = $1 AND tenant_id = $2)) AS status`;
const STEP = `WITH job AS (
    INSERT INTO workflow_job_runs (tenant_id, run_id, job_id, status, error, output, started_at, finished_at)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::timestamptz, $8::timestamptz)
    ON CONFLICT (run_id, job_id) DO UPDATE
       SET status = excluded.status, error = excluded.error, output = excluded.output,
           started_at = excluded.started_at, finished_at = excluded.finished_at)
  ${TOUCH_RUN}`;
const ACTION = `WITH job AS (SELECT id FROM workflow_job_runs WHERE run_id = $2 AND job_id = $3),
  prev AS (SELECT a.status FROM workflow_action_runs a JOIN job ON a.job_run_id = job.id WHERE a.position = $4),
  action AS (
    INSERT INTO workflow_action_runs (tenant_id, job_run_id, position, step_id, name, status, error, attempts, detail, started_at, finished_at)
    SELECT $1::uuid, job.id, $4::int, $5::text, $6::text, $7::text, $8::jsonb, $9::int, $10::jsonb, $11::timestamptz, $12::timestamptz FROM job
    ON CONFLICT (job_run_id, position) DO UPDATE
       SET step_id = excluded.step_id, name = excluded.name, status = excluded.status, error = excluded.error,
           attempts = excluded.attempts, detail = excluded.detail, started_at = excluded.started_at, finished_at = excluded.finished_at
    RETURNING job_run_id),
  logged AS (
    INSERT INTO workflow_action_log (tenant_id, job_run_id, step_id, name, status, error)
    SELECT $1::uuid, action.job_run_id, $5::text, $6::text, $7::text, $8::jsonb FROM action
     WHERE NOT EXISTS (SELECT 1 FROM prev WHERE prev.status = $7))
  ${TOUCH_RUN}`;
const OUTCOME = `UPDATE workflow_runs SET status = $3, outputs = $4::jsonb, error = $5::jsonb, finished_at = now(), updated_at = now()
   WHERE id = $1 AND tenant_id = $2 AND status IN ('pending', 'running')`;

/**
 * The rows a dispatched run of `actions` pipes writes, written raw over
 * `client`, statement for statement; answers the elapsed ms and the run id.
 */
async function rawRun(client, tenantId, workflow, actions) {
  const runId = randomUUID();
  const iso = () => new Date().toISOString();
  const started = performance.now();
  await client.query(
    `INSERT INTO workflow_runs (id, tenant_id, workflow_id, workflow_version, trigger_id, trigger_key, trigger_type, context)
     VALUES ($1, $2, $3, $4, $5, $6, 'webhook', $7)`,
    [
      runId,
      tenantId,
      workflow.id,
      workflow.version,
      workflow.triggers[TRIGGER],
      TRIGGER,
      JSON.stringify({ input: {}, trigger: { id: TRIGGER, type: "webhook" }, run: { id: runId } }),
    ],
  );
  await client.query(CLAIM, [runId, tenantId]);
  const jobStarted = iso();
  await client.query(STEP, [tenantId, runId, JOB, "running", null, null, jobStarted, null]);
  for (let i = 0; i < actions; i++) {
    const at = iso();
    await client.query(ACTION, [tenantId, runId, JOB, i, null, "pipe", "running", null, 1, null, at, null]);
    await client.query(ACTION, [tenantId, runId, JOB, i, null, "pipe", "success", null, 1, null, at, iso()]);
  }
  // The outputs the walker answers: a job's actions without a stepId bind nothing.
  await client.query(STEP, [tenantId, runId, JOB, "success", null, "{}", jobStarted, iso()]);
  await client.query(OUTCOME, [runId, tenantId, "success", JSON.stringify({ [JOB]: {} }), null]);
  return { ms: performance.now() - started, runId };
}

/** Runs `task(i)` for i < total with `width` calls in flight; answers each call's answer. */
async function inFlight(total, width, task) {
  let next = 0;
  const answers = [];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < total) answers.push(await task(next++));
    }),
  );
  return answers;
}

async function perActionFigure(env, log, setup) {
  const tenantId = env.tenant.tenant_id;
  const poller = await env.pool.connect();
  const writer = await env.pool.connect();
  const ours = { [CHAIN]: [], 1: [] };
  const raw = { [CHAIN]: [], 1: [] };
  const phases = { dispatch: [], start: [], walk: [] };
  const runIds = { [CHAIN]: [], 1: [] };
  log(`[bench] runs: ${CHAIN_RUNS} dispatched runs of ${CHAIN} actions and of 1, each against raw SQL (after ${CHAIN_WARMUP} warm-ups)`);
  const before = await backends(poller);
  let after;
  try {
    for (let i = 0; i < CHAIN_WARMUP + CHAIN_RUNS; i++) {
      const measured = i >= CHAIN_WARMUP;
      const oursOf = (workflow, n) => async () => {
        const { runId, sentAt } = await dispatch(env, workflow);
        const row = await awaitFinished(poller, runId);
        runIds[n].push(runId);
        if (!measured) return;
        ours[n].push(row.finished - sentAt);
        if (n !== CHAIN) return;
        phases.dispatch.push(row.created - sentAt);
        phases.start.push(row.started - row.created);
        phases.walk.push(row.finished - row.started);
      };
      const rawOf = (workflow, n) => async () => {
        const { ms } = await rawRun(writer, tenantId, workflow, n);
        if (measured) raw[n].push(ms);
      };
      const steps = [
        oursOf(setup.workflows.chain, CHAIN),
        rawOf(setup.workflows.chain, CHAIN),
        oursOf(setup.workflows.single, 1),
        rawOf(setup.workflows.single, 1),
      ];
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]();
    }
    after = await backends(poller);
  } finally {
    poller.release();
    writer.release();
  }
  await checkRuns(env, runIds[CHAIN], CHAIN);
  await checkRuns(env, runIds[1], 1);

  const chain = stats(ours[CHAIN]);
  const single = stats(ours[1]);
  const rawChain = stats(raw[CHAIN]);
  const rawSingle = stats(raw[1]);
  const perAction = chain.p50 / CHAIN;
  const rawPerAction = rawChain.p50 / CHAIN;
  return figure("run_per_action", round(perAction), "ms", round(rawPerAction), round(perAction / rawPerAction), {
    p95: round(chain.p95 / CHAIN),
    raw_p95: round(rawChain.p95 / CHAIN),
    // What one more action costs, the run's fixed cost taken out.
    marginal_ms: round((chain.p50 - single.p50) / (CHAIN - 1)),
    raw_marginal_ms: round((rawChain.p50 - rawSingle.p50) / (CHAIN - 1)),
    run_ms: round(chain.p50),
    raw_run_ms: round(rawChain.p50),
    single_run_ms: round(single.p50),
    raw_single_run_ms: round(rawSingle.p50),
    // Where the 50-action run's time goes: request to row, row to claim, claim to end.
    dispatch_p50: round(stats(phases.dispatch).p50),
    start_p50: round(stats(phases.start).p50),
    walk_p50: round(stats(phases.walk).p50),
    // Every run above has finished: backends beyond the bridge's warm ones are connections still held.
    backends_before: before.total,
    backends_after: after.total,
    target_ms: TARGET_PER_ACTION_MS,
    meets_target: perAction <= TARGET_PER_ACTION_MS,
    actions: CHAIN,
    runs: CHAIN_RUNS,
  });
}

/** Postgres client backends now: all (the bridge keeps up to 32 idle ones warm), and those not idle. */
async function backends(client) {
  const { rows } = await client.query(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE state <> 'idle')::int AS busy FROM pg_stat_activity WHERE backend_type = 'client backend'`,
  );
  return rows[0];
}

/** Samples Postgres client backends until `stop()`; answers the peaks. */
function watchConnections(client) {
  let running = true;
  const peak = { total: 0, busy: 0 };
  const done = (async () => {
    while (running) {
      const now = await backends(client);
      peak.total = Math.max(peak.total, now.total);
      peak.busy = Math.max(peak.busy, now.busy);
      await sleep(CONNECTIONS_POLL_MS);
    }
  })();
  return async () => {
    running = false;
    await done;
    return peak;
  };
}

/** Polls until every run is finished, or none finished for BULK_STALL_MS; answers the counts by status. */
async function awaitAll(client, runIds) {
  const started = performance.now();
  let open = Infinity;
  let progressAt = started;
  for (;;) {
    const { rows } = await client.query(`SELECT status, count(*)::int AS n FROM workflow_runs WHERE id = ANY($1::uuid[]) GROUP BY status`, [runIds]);
    const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    counts.missing = runIds.length - rows.reduce((sum, r) => sum + r.n, 0);
    const stillOpen = (counts.pending ?? 0) + (counts.running ?? 0);
    if (stillOpen < open) {
      open = stillOpen;
      progressAt = performance.now();
    }
    const now = performance.now();
    if (stillOpen === 0 || now - progressAt > BULK_STALL_MS || now - started > BULK_CAP_MS) return counts;
    await sleep(BULK_POLL_MS);
  }
}

/**
 * A dispatch that is refused (an HTTP error) is counted, not thrown: the
 * figure says how many runs started, finished and how, and `failures` gets
 * a line when not every run succeeded.
 */
async function bulkFigure(env, log, setup, failures) {
  const tenantId = env.tenant.tenant_id;
  const watcher = await env.pool.connect();
  const poller = await env.pool.connect();
  const stop = watchConnections(watcher);
  let counts;
  let peak;
  let ours;
  try {
    log(`[bench] runs: ${BULK_RUNS} runs of ${BULK_ACTIONS} actions dispatched ${IN_FLIGHT} in flight, until all are finished`);
    const firstSent = epochNow();
    const answers = await inFlight(BULK_RUNS, IN_FLIGHT, () => dispatch(env, setup.workflows.bulk).catch((e) => ({ refused: e.message })));
    const dispatchedMs = epochNow() - firstSent;
    const runIds = answers.filter((a) => a.runId).map((a) => a.runId);
    const refused = answers.filter((a) => a.refused);
    if (refused.length) log(`[bench] runs: ${refused.length} dispatches refused, the first: ${refused[0].refused}`);
    counts = { ...(await awaitAll(poller, runIds)), refused: refused.length };
    const { rows } = await env.pool.query(
      `SELECT max(extract(epoch FROM finished_at)::float8 * 1000) AS last,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at) * 1000) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - created_at) * 1000) AS p95
         FROM workflow_runs WHERE id = ANY($1::uuid[]) AND finished_at IS NOT NULL`,
      [runIds],
    );
    ours = { ms: rows[0].last - firstSent, dispatchedMs, latencyP50: Number(rows[0].p50), latencyP95: Number(rows[0].p95), runIds };
  } finally {
    // The sampling ends here whatever happened, so no query outlives the pool.
    peak = await stop();
    watcher.release();
    poller.release();
  }
  const allSuccess = (counts.success ?? 0) === BULK_RUNS;
  if (allSuccess) await checkRuns(env, ours.runIds, BULK_ACTIONS);
  else failures.push(`runs_at_once: expected ${BULK_RUNS} successful runs, found ${JSON.stringify(counts)}`);

  log(`[bench] runs: raw SQL, the same rows for ${BULK_RUNS} runs, ${IN_FLIGHT} in flight over the raw pool`);
  const rawStarted = performance.now();
  await inFlight(BULK_RUNS, IN_FLIGHT, async () => {
    const client = await env.pool.connect();
    try {
      await rawRun(client, tenantId, setup.workflows.bulk, BULK_ACTIONS);
    } finally {
      client.release();
    }
  });
  const rawMs = performance.now() - rawStarted;

  // Runs finished per second (of those that did), from the first dispatch to the last end.
  const finished = BULK_RUNS - counts.refused - counts.missing - (counts.pending ?? 0) - (counts.running ?? 0);
  return figure("runs_at_once", round(finished / (ours.ms / 1000), 0), "runs/s", round(BULK_RUNS / (rawMs / 1000), 0), round(ours.ms / rawMs), {
    seconds: round(ours.ms / 1000, 1),
    raw_seconds: round(rawMs / 1000, 1),
    dispatch_seconds: round(ours.dispatchedMs / 1000, 1),
    // Each run from its row's insert to its end, by the database's clock.
    run_p50: round(ours.latencyP50),
    run_p95: round(ours.latencyP95),
    peak_connections: peak.total,
    peak_busy_connections: peak.busy,
    raw_connections: 4,
    all_success: allSuccess,
    by_status: JSON.stringify(counts),
    in_flight: IN_FLIGHT,
    runs: BULK_RUNS,
    actions: BULK_ACTIONS,
  });
}

/** Polls until the first action run of `entityId`'s run is mirrored; answers the run, when it was seen and its started_at (epoch ms). */
async function awaitFirstAction(client, tenantId, entityId) {
  const deadline = performance.now() + RUN_WAIT_MS;
  for (;;) {
    const { rows } = await client.query(
      `SELECT r.id, extract(epoch FROM a.started_at)::float8 * 1000 AS started, extract(epoch FROM r.created_at)::float8 * 1000 AS created
         FROM workflow_runs r
         JOIN workflow_job_runs j ON j.run_id = r.id
         JOIN workflow_action_runs a ON a.job_run_id = j.id AND a.position = 0
        WHERE r.tenant_id = $1 AND r.entity_id = $2`,
      [tenantId, entityId],
    );
    if (rows.length) return { seen: epochNow(), runId: rows[0].id, started: rows[0].started, created: rows[0].created };
    if (performance.now() > deadline) throw new Error(`no first action for entity ${entityId} after ${RUN_WAIT_MS} ms`);
    await sleep(ACTION_POLL_MS);
  }
}

async function eventFigure(env, log, setup) {
  const tenantId = env.tenant.tenant_id;
  const workflow = setup.workflows.event;
  const poller = await env.pool.connect();
  const writer = await env.pool.connect();
  const seen = [];
  const started = [];
  const toRun = [];
  const rawTimes = [];
  const entityIds = [];
  const runIds = [];
  log(`[bench] runs: entity write -> first action started, ${WRITES} writes (after ${WRITE_WARMUP} warm-ups)`);
  try {
    for (let i = 0; i < WRITE_WARMUP + WRITES; i++) {
      const t0 = epochNow();
      const entity = (await env.api("POST", "/entity/entities", { type_name: TYPE, name: `Order ${i}`, attributes: { code: `O-${i}` } })).data;
      const first = await awaitFirstAction(poller, tenantId, entity.id);

      const id = randomUUID();
      const runId = randomUUID();
      const attributes = { code: `R-${i}` };
      const context = {
        input: {
          event: { id: randomUUID(), action: "created", occurred_at: new Date().toISOString() },
          entity: { id, name: `Order ${i}`, type: { id: setup.typeIds[RAW_TYPE], name: RAW_TYPE }, attributes, identifier_key: attributes.code },
        },
        trigger: { id: "created", type: "event" },
        run: { id: runId },
      };
      const r0 = performance.now();
      await writer.query(
        `WITH e AS (
           INSERT INTO entities (id, tenant_id, type_id, name, attributes, identifier_key) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id),
         r AS (
           INSERT INTO workflow_runs (id, tenant_id, workflow_id, workflow_version, trigger_id, trigger_key, trigger_type, context, entity_id, status, started_at)
           SELECT $7, $2, $8, $9, $10, 'created', 'event', $11, e.id, 'running', now() FROM e RETURNING id),
         j AS (
           INSERT INTO workflow_job_runs (tenant_id, run_id, job_id, status, started_at) SELECT $2, r.id, $12, 'running', now() FROM r RETURNING id),
         a AS (
           INSERT INTO workflow_action_runs (tenant_id, job_run_id, position, name, status, attempts, started_at)
           SELECT $2, j.id, 0, 'pipe', 'running', 1, now() FROM j RETURNING job_run_id)
         INSERT INTO workflow_action_log (tenant_id, job_run_id, name, status) SELECT $2, a.job_run_id, 'pipe', 'running' FROM a`,
        [
          id,
          tenantId,
          setup.typeIds[RAW_TYPE],
          `Order ${i}`,
          JSON.stringify(attributes),
          attributes.code,
          runId,
          workflow.id,
          workflow.version,
          workflow.triggers.created,
          JSON.stringify(context),
          JOB,
        ],
      );
      const r1 = performance.now();
      if (i < WRITE_WARMUP) continue;
      seen.push(first.seen - t0);
      started.push(first.started - t0);
      toRun.push(first.created - t0);
      rawTimes.push(r1 - r0);
      entityIds.push(entity.id);
      runIds.push(first.runId);
    }
    await awaitAll(poller, runIds);
  } finally {
    poller.release();
    writer.release();
  }

  // Exactly one run per entity, from the event trigger, and it went through.
  const { rows } = await env.pool.query(
    `SELECT r.entity_id, count(*)::int AS runs, bool_and(r.trigger_id = $3 AND r.status = 'success') AS ok
       FROM workflow_runs r WHERE r.tenant_id = $1 AND r.entity_id = ANY($2::uuid[]) GROUP BY r.entity_id`,
    [tenantId, entityIds, workflow.triggers.created],
  );
  const wrong = rows.filter((r) => r.runs !== 1 || !r.ok);
  if (rows.length !== entityIds.length || wrong.length) throw new Error(`expected one successful run per entity; wrong: ${JSON.stringify(wrong.slice(0, 5))}`);

  const s = stats(seen);
  const r = stats(rawTimes);
  const st = stats(started);
  const run = stats(toRun);
  return figure("event_to_first_action", round(s.p50), "ms", round(r.p50), round(s.p50 / r.p50), {
    p95: round(s.p95),
    raw_p95: round(r.p95),
    // The action run's own started_at (the object's clock) instead of when the poll saw it.
    started_p50: round(st.p50),
    started_p95: round(st.p95),
    // The write to the run row's insert: the event path's share.
    run_row_p50: round(run.p50),
    run_row_p95: round(run.p95),
    poll_ms: ACTION_POLL_MS,
    target_p50_ms: TARGET_EVENT_P50_MS,
    meets_target: s.p50 <= TARGET_EVENT_P50_MS,
    writes: seen.length,
  });
}

/**
 * Each figure is logged as it is measured, so one phase failing loses no
 * other's numbers; a bulk phase where not every run succeeded fails the
 * suite once the event figure is measured too.
 */
export async function run(env, log) {
  const setup = await setUp(env, log);
  const failures = [];
  const figures = [];
  const measures = { run_per_action: perActionFigure, runs_at_once: bulkFigure, event_to_first_action: eventFigure };
  for (const name of ONLY ?? []) if (!(name in measures)) throw new Error(`BENCH_RUNS_ONLY: no figure ${name}; figures: ${Object.keys(measures).join(", ")}`);
  for (const [name, measure] of Object.entries(measures)) {
    if (ONLY && !ONLY.includes(name)) continue;
    const f = await measure(env, log, setup, failures);
    log(`[bench] runs: ${JSON.stringify(f)}`);
    figures.push(f);
  }
  if (failures.length) throw new Error(failures.join("; "));
  return figures;
}
