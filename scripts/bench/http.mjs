// `npm run bench -- http`: the `http` action against a Node HTTP server in
// this process on 127.0.0.1 (allowlisted for the Worker through
// OUTBOUND_ALLOWLIST by `vars()`), with workflows set up and runs started
// through the API.
//
// - `http_action_cost`: what an `http` action costs over a direct `fetch` of the same
//   server from inside workerd. Ours: a run of 50 `http` actions (GET of a
//   small JSON answer) in one job and a run of 50 no-op `pipe` actions,
//   dispatched back to back, each timed from sending the dispatch to the run
//   row's `finished_at`; the pair's difference divided by 50 is what the
//   `http` action adds over an action that does nothing, the run's own cost
//   (dispatch, claim, walking, mirroring each action's two records, the end)
//   cancelling out. The action rows' started_at→finished_at are not fair
//   to compare: the Worker's clock moves only across I/O and in millisecond
//   steps, so a `pipe` row reads ~0 ms whatever its recording costs while an
//   `http` row spans whatever I/O falls between its two stamps; the
//   difference of whole runs keeps all of both and is measured by Postgres's
//   clock over tens of milliseconds (the rows' means are reported beside it,
//   `*_action_row_mean_ms`).
//   Raw: a second, bare workerd (Miniflare with an inline script) fetching
//   the same URL 50 times in a row and reading each JSON body, timed inside
//   that Worker, divided by 50. Figure: p50 of ours per action, raw per
//   fetch, ratio ours/raw, and `added_ms` = ours − raw (what the guard, the
//   retry and auth machinery, the result shaping and its recording cost).
//   Ours and raw alternate, so load from elsewhere falls on both alike.
// - `oauth2_shared_exchange`: 50 runs whose `http` action uses the same `oauth2`
//   profile (its client secret a tenant secret set with POST /access/secrets,
//   read through an env reference given at activation), dispatched at once.
//   The token endpoint answers after TOKEN_DELAY_MS, so the runs meet while
//   the exchange is in flight (`started_during_exchange` counts the action
//   rows started before the token was answered). Figure: exchanges counted
//   at the token endpoint, which must be 1 (the suite fails otherwise, or
//   when a run did not succeed with the token), and the wall time from the
//   first dispatch to the last run's `finished_at`.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Miniflare } from "miniflare";
import { figure, round } from "../lib/bench-env.mjs";
import { percentile } from "../lib/percentile.mjs";

const CHAIN = 50;
const CHAIN_RUNS = Number(process.env.BENCH_HTTP_RUNS ?? 20);
const WARMUP = 3;
const CONCURRENT_RUNS = 50;
// Long enough for every run of the burst to ask for the token while the exchange is in flight.
const TOKEN_DELAY_MS = 200;
const TOKEN_LIFETIME_S = 3600;

const FINISH_POLL_MS = 5;
const RUN_WAIT_MS = 60_000;

const TRIGGER = "manual";
const JOB = "chain";
const SECRET_NAME = "BENCH_OAUTH_CLIENT_SECRET";
const ANSWER = JSON.stringify({ ok: true, items: [1, 2, 3], name: "bench" });

/** Epoch milliseconds with sub-millisecond precision, comparable to Postgres timestamps on the same host. */
const epochNow = () => performance.timeOrigin + performance.now();

/**
 * The server the Worker calls: GET /data answers ANSWER; POST /token is a
 * client-credentials token endpoint checking the client's Basic credentials;
 * GET /protected answers 200 to the token it issued and 401 otherwise.
 */
function startTarget() {
  const client = { id: `bench-${randomUUID()}`, secret: randomBytes(24).toString("hex") };
  const state = { data: 0, exchanges: 0, exchangeAnsweredAt: null, protected: 0, refused: 0, token: null };
  const server = createServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    };
    req.resume();
    req.on("end", async () => {
      if (req.method === "GET" && req.url === "/data") {
        state.data++;
        return send(200, ANSWER);
      }
      if (req.method === "POST" && req.url === "/token") {
        state.exchanges++;
        const expected = `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString("base64")}`;
        if (req.headers.authorization !== expected) return send(401, JSON.stringify({ error: "invalid_client" }));
        await sleep(TOKEN_DELAY_MS);
        state.token = `tok-${randomUUID()}`;
        state.exchangeAnsweredAt = epochNow();
        return send(200, JSON.stringify({ access_token: state.token, token_type: "Bearer", expires_in: TOKEN_LIFETIME_S }));
      }
      if (req.method === "GET" && req.url === "/protected") {
        state.protected++;
        if (!state.token || req.headers.authorization !== `Bearer ${state.token}`) {
          state.refused++;
          return send(401, JSON.stringify({ error: "invalid_token" }));
        }
        return send(200, ANSWER);
      }
      send(404, "{}");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      resolve({ origin, client, state, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

let target;

/** Starts the target server before the Worker, so the Worker is started with it allowlisted. */
export async function vars() {
  target = await startTarget();
  return { OUTBOUND_ALLOWLIST: new URL(target.origin).host };
}

// The raw side: a bare Worker that fetches `url` `count` times in a row, reading each body, and answers the elapsed ms.
const DIRECT_FETCH_SCRIPT = `export default {
  async fetch(request) {
    const { url, count } = await request.json();
    const started = Date.now();
    for (let i = 0; i < count; i++) await (await fetch(url)).json();
    return Response.json({ ms: Date.now() - started });
  },
};`;

async function directFetcher() {
  const mf = new Miniflare({ modules: true, script: DIRECT_FETCH_SCRIPT, compatibilityDate: "2026-04-01", host: "127.0.0.1", port: 0 });
  const url = (await mf.ready).href;
  return {
    async batch(count) {
      const res = await fetch(url, { method: "POST", body: JSON.stringify({ url: `${target.origin}/data`, count }) });
      if (res.status !== 200) throw new Error(`direct fetch Worker answered ${res.status} ${await res.text()}`);
      return (await res.json()).ms;
    },
    stop: () => mf.dispose(),
  };
}

async function activated(env, name, definition_json, activation = {}) {
  const { id } = (await env.api("POST", "/definition/workflows", { name, definition_json })).data;
  await env.api("POST", `/workflows/${id}/activate`, activation);
  return { id };
}

async function dispatch(env, workflow) {
  const sentAt = epochNow();
  const { data } = await env.api("POST", "/workflows/wr", { workflow_id: workflow.id, trigger_id: TRIGGER, input: {} });
  return { runId: data.workflow_run.id, sentAt };
}

const RUN_TIMES = `status, error, extract(epoch FROM created_at)::float8 * 1000 AS created, extract(epoch FROM finished_at)::float8 * 1000 AS finished`;

async function awaitFinished(client, runId) {
  const deadline = performance.now() + RUN_WAIT_MS;
  for (;;) {
    const { rows } = await client.query(`SELECT ${RUN_TIMES} FROM workflow_runs WHERE id = $1`, [runId]);
    const row = rows[0];
    if (row && row.status !== "pending" && row.status !== "running") {
      if (row.status !== "success") throw new Error(`run ${runId} ended ${row.status}: ${JSON.stringify(row.error)}`);
      return row;
    }
    if (performance.now() > deadline) throw new Error(`run ${runId} is still ${row?.status ?? "missing"} after ${RUN_WAIT_MS} ms`);
    await sleep(FINISH_POLL_MS);
  }
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const p95 = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    95,
  );

async function addedCostFigure(env, log) {
  const manual = { id: TRIGGER, webhook: { methods: ["POST"] } };
  const chainOf = (action) => ({ jobs: [{ id: JOB, actions: Array.from({ length: CHAIN }, (_, i) => action(i)) }], triggers: [manual] });
  const httpChain = await activated(
    env,
    "bench-http-chain",
    chainOf(() => ({ name: "http", config: { url: `${target.origin}/data` } })),
  );
  const pipeChain = await activated(
    env,
    "bench-http-pipes",
    chainOf((i) => ({ name: "pipe", config: { value: i } })),
  );
  const direct = await directFetcher();
  const poller = await env.pool.connect();
  const http = [];
  const pipe = [];
  const added = [];
  const raw = [];
  log(
    `[bench] http: ${CHAIN_RUNS} runs of ${CHAIN} http actions and of ${CHAIN} pipes, and ${CHAIN_RUNS} batches of ${CHAIN} direct fetches (after ${WARMUP} warm-ups)`,
  );
  const requestsBefore = target.state.data;
  try {
    for (let i = 0; i < WARMUP + CHAIN_RUNS; i++) {
      const measured = i >= WARMUP;
      const pair = {};
      const runOf = (workflow, key) => async () => {
        const { runId, sentAt } = await dispatch(env, workflow);
        pair[key] = (await awaitFinished(poller, runId)).finished - sentAt;
      };
      const batch = async () => {
        const ms = await direct.batch(CHAIN);
        if (measured) raw.push(ms / CHAIN);
      };
      const steps = [runOf(httpChain, "http"), runOf(pipeChain, "pipe"), batch];
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]();
      if (!measured) continue;
      http.push(pair.http);
      pipe.push(pair.pipe);
      added.push((pair.http - pair.pipe) / CHAIN);
    }
  } finally {
    poller.release();
    await direct.stop();
  }
  // Every http action reached the server once (and the direct batches theirs).
  const expected = (WARMUP + CHAIN_RUNS) * CHAIN * 2;
  if (target.state.data - requestsBefore !== expected) throw new Error(`the server saw ${target.state.data - requestsBefore} GET /data, expected ${expected}`);

  // Inside the actions, by the Worker's clock (millisecond steps): what the run's records leave out of the difference.
  const { rows } = await env.pool.query(
    `SELECT a.name, avg(extract(epoch FROM a.finished_at - a.started_at) * 1000)::float8 AS ms
       FROM workflow_action_runs a JOIN workflow_job_runs j ON j.id = a.job_run_id JOIN workflow_runs r ON r.id = j.run_id
      WHERE r.workflow_id = ANY($1::uuid[]) GROUP BY a.name`,
    [[httpChain.id, pipeChain.id]],
  );
  const inside = Object.fromEntries(rows.map((r) => [r.name, r.ms]));
  const ours = median(added);
  const rawP50 = median(raw);
  return figure("http_action_cost", round(ours, 3), "ms", round(rawP50, 3), round(ours / rawP50), {
    added_ms: round(ours - rawP50, 3),
    p95: round(p95(added), 3),
    raw_p95: round(p95(raw), 3),
    http_run_ms: round(median(http)),
    pipe_run_ms: round(median(pipe)),
    http_action_row_mean_ms: round(inside.http, 3),
    pipe_action_row_mean_ms: round(inside.pipe, 3),
    actions: CHAIN,
    runs: CHAIN_RUNS,
  });
}

async function sharedTokenFigure(env, log) {
  await env.api("POST", "/access/secrets", { scope: "tenant", name: SECRET_NAME, value: target.client.secret });
  const workflow = await activated(
    env,
    "bench-http-oauth2",
    {
      config: { env: { CLIENT_SECRET: null } },
      auth: { svc: { type: "oauth2", tokenUrl: `${target.origin}/token`, clientId: target.client.id, clientSecret: "{{ config.env.CLIENT_SECRET }}" } },
      jobs: [{ id: JOB, actions: [{ name: "http", config: { url: `${target.origin}/protected`, auth: "svc" } }] }],
      triggers: [{ id: TRIGGER, webhook: { methods: ["POST"] } }],
    },
    { env: { CLIENT_SECRET: `{{ secrets.tenant.${SECRET_NAME} }}` } },
  );
  log(`[bench] http: ${CONCURRENT_RUNS} runs sharing one oauth2 profile, dispatched at once`);
  const firstSent = epochNow();
  const dispatched = await Promise.all(Array.from({ length: CONCURRENT_RUNS }, () => dispatch(env, workflow)));
  const runIds = dispatched.map((d) => d.runId);
  const poller = await env.pool.connect();
  const finished = [];
  try {
    for (const runId of runIds) finished.push(await awaitFinished(poller, runId));
  } finally {
    poller.release();
  }
  const { rows } = await env.pool.query(
    `SELECT count(*) FILTER (WHERE a.status = 'success')::int AS succeeded,
            count(*) FILTER (WHERE extract(epoch FROM a.started_at)::float8 * 1000 < $2)::int AS during
       FROM workflow_action_runs a JOIN workflow_job_runs j ON j.id = a.job_run_id WHERE j.run_id = ANY($1::uuid[])`,
    [runIds, target.state.exchangeAnsweredAt],
  );
  const last = Math.max(...finished.map((r) => r.finished));
  return figure("oauth2_shared_exchange", target.state.exchanges, "exchanges", null, null, {
    runs: CONCURRENT_RUNS,
    seconds: round((last - firstSent) / 1000, 2),
    dispatch_ms: round(Math.max(...dispatched.map((d) => d.sentAt)) - firstSent),
    actions_succeeded: rows[0].succeeded,
    started_during_exchange: rows[0].during,
    protected_requests: target.state.protected,
    refused_requests: target.state.refused,
    token_delay_ms: TOKEN_DELAY_MS,
    target_exchanges: 1,
    meets_target: target.state.exchanges === 1,
  });
}

/** Each figure is logged as it is measured; a shared exchange that was not exactly one fails the suite. */
export async function run(env, log) {
  try {
    const figures = [];
    for (const measure of [addedCostFigure, sharedTokenFigure]) {
      const f = await measure(env, log);
      log(`[bench] http: ${JSON.stringify(f)}`);
      figures.push(f);
    }
    const shared = figures[1];
    if (shared.value !== 1 || shared.actions_succeeded !== CONCURRENT_RUNS || shared.refused_requests !== 0) {
      throw new Error(`oauth2_shared_exchange: expected 1 exchange and ${CONCURRENT_RUNS} successful calls, found ${JSON.stringify(shared)}`);
    }
    return figures;
  } finally {
    await target.close();
  }
}
