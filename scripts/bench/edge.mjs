// `npm run bench -- edge`: the service with its database far away. A TCP
// proxy (scripts/lib/latency-proxy.mjs) sits between the Worker and the
// WebSocket bridge to Postgres, holds each chunk BENCH_EDGE_DELAY_MS (20) in
// each direction (a 40 ms round trip, a short continental distance) and
// counts round trips: a client write that follows the server's answer.
//
// Each operation runs BENCH_EDGE_SAMPLES (15) times with no delay, then as
// often at the delay, after 3 warm-ups at each. Figures, one per operation:
// `value` its p50 at the delay (ms), `trips` the median round trips of one
// request at the delay, `trips_at_0` the same with no delay, `p50_at_0`, and
// `ratio` = p50 at the delay / (trips x round trip + p50 at 0): 1.0 when
// the distance costs exactly its round trips, more when waits pile up
// elsewhere (a timer, a queue, a connection set up twice).
//
// Work a request leaves behind (the events a write sends, the run a
// dispatch or a webhook starts) reaches the database through the same proxy:
// before each request the bench waits for the proxy to be quiet for
// QUIET_MS, so a request's count holds its own trips only.
//
// Operations: GET /healthz; an entity read by id with a PAT and with a JWT;
// an indexed eq query; a single create; a PATCH of one attribute; a delete
// (of entities made for it at set-up); a 10-row upsert; a webhook's 202;
// a dispatch's 202; a render of three independent `$query` sources; an app
// action (a button's `notify`, then the page rendered again).
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { figure, round } from "../lib/bench-env.mjs";
import { startLatencyProxy } from "../lib/latency-proxy.mjs";
import { percentile } from "../lib/percentile.mjs";

const DELAY_MS = Number(process.env.BENCH_EDGE_DELAY_MS ?? 20);
const SAMPLES = Number(process.env.BENCH_EDGE_SAMPLES ?? 15);
const WARMUP = 3;
const QUIET_MS = 150;
const QUIET_MAX_MS = 10_000;
const TYPE = "EdgeItem";
const ROWS = 200;
const PROVIDER = "host";
const COMPANY = "edge-co";

let proxy;

/** The proxy starts before the Worker, which is pointed at it. */
export async function vars() {
  proxy = await startLatencyProxy();
  return { NEON_WS_PROXY: `127.0.0.1:${proxy.port}` };
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function quiet() {
  const deadline = performance.now() + QUIET_MAX_MS;
  while (performance.now() - proxy.counters().lastActivity < QUIET_MS + 2 * DELAY_MS) {
    if (performance.now() > deadline) break;
    await sleep(QUIET_MS / 3);
  }
}

async function call(url, init, expected) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status} (expected ${expected}): ${text.slice(0, 400)}`);
  return text;
}

/** One request's ms and round trips, after the proxy went quiet. */
async function sample(op) {
  await quiet();
  const before = proxy.counters().trips;
  const started = performance.now();
  await op();
  const ms = performance.now() - started;
  return { ms, trips: proxy.counters().trips - before };
}

async function measure(op) {
  for (let i = 0; i < WARMUP; i++) await sample(op);
  const samples = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await sample(op));
  return { p50: median(samples.map((s) => s.ms)), trips: median(samples.map((s) => s.trips)) };
}

function specDocument() {
  const query = (value) => ({ $query: { typeName: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value }, limit: 20 } });
  const grid = (dataSource) => ({ widgetComponent: "data_grid", dataSource });
  return {
    dashboards: {
      main: {
        name: "Main",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: { a: query("cat-1"), b: query("cat-2"), c: query("cat-3") },
            widgets: {
              a: grid("a"),
              b: grid("b"),
              c: grid("c"),
              ping: { widgetComponent: "button", config: { label: "Ping" }, actionHandlers: { click: [{ kind: "notify", level: "INFO", message: "pong" }] } },
            },
            layout: [["a", "b", "c"], ["ping"]],
          },
        },
      },
    },
    providers: {
      [PROVIDER]: {
        auth: { type: "bearer" },
        autoCreateUsers: true,
        identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
      },
    },
    policies: { readers: { grants: [{ resource: "entity", actions: ["read"], resourceName: TYPE }] } },
    defaultPolicy: "readers",
  };
}

async function setup(env) {
  await env.api("POST", "/entity/entity-types", {
    name: TYPE,
    status: "active",
    schema: { type: "object", required: ["sku", "category"], properties: { sku: { type: "string" }, category: { type: "string" }, n: { type: "integer" } } },
    config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["category"], type: "text" }] },
  });
  const entities = Array.from({ length: ROWS }, (_, i) => ({ name: `Item ${i}`, attributes: { sku: `S-${i}`, category: `cat-${i % 10}`, n: i } }));
  await env.api("POST", "/entity/entities/upsert", { type_name: TYPE, data: entities });
  // One per delete the bench makes: warm-ups and samples, with no delay and at the delay.
  const doomed = 2 * (WARMUP + SAMPLES);
  await env.api("POST", "/entity/entities/upsert", {
    type_name: TYPE,
    data: Array.from({ length: doomed }, (_, i) => ({ name: `Doomed ${i}`, attributes: { sku: `D-${i}`, category: "doomed" } })),
  });
  const doomedIds = (
    await env.api("POST", "/entity/query", { type_name: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: "doomed" }, limit: doomed })
  ).data.map((e) => e.id);
  const one = (await env.api("POST", "/entity/query", { type_name: TYPE, filter: { operator: "eq", path: ["attributes", "sku"], value: "S-7" }, limit: 1 }))
    .data[0];
  const token = await (
    await fetch(`${env.base}/auth/token`, {
      method: "POST",
      headers: { Authorization: env.auth, "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials" }),
    })
  ).json();

  const workflow = (
    await env.api("POST", "/definition/workflows", {
      name: "edge-hook",
      definition_json: { jobs: [{ id: "j", actions: [{ name: "pipe", config: { value: 1 } }] }], triggers: [{ id: "hook", webhook: { methods: ["POST"] } }] },
    })
  ).data;
  const activation = (await env.api("POST", `/workflows/${workflow.id}/activate`, {})).data;
  const hookUrl = JSON.stringify(activation).match(/"webhook_url":"([^"]+)"/)?.[1];
  if (!hookUrl) throw new Error(`the activation answered no webhook_url: ${JSON.stringify(activation).slice(0, 400)}`);

  const spec = (await env.api("POST", "/definition/specs", { name: "Edge desk", spec_document: specDocument() })).data;
  await env.api("PUT", `/apps/${spec.id}/config`, { config: {} });
  const company = (await env.api("POST", "/access/external-companies", { provider: PROVIDER, external_id: COMPANY })).data;
  const integration = (await env.api("POST", `/apps/${spec.id}/integrations`, { external_company_id: company.id })).data;
  const { raw_token } = await env.api("PUT", `/apps/${spec.id}/integrations/${integration.id}/token`);
  return { entityId: one.id, doomedIds, jwt: token.access_token, workflowId: workflow.id, hookUrl, integrationId: integration.id, appToken: raw_token };
}

function operations(env, s) {
  const basic = { Authorization: env.auth, "Content-Type": "application/json" };
  const bearer = { Authorization: `Bearer ${s.jwt}`, "Content-Type": "application/json" };
  const app = { Authorization: `Bearer ${s.appToken}`, "Content-Type": "application/json" };
  const post =
    (path, body, headers = basic, expected = 200) =>
    () =>
      call(`${env.base}${path}`, { method: "POST", headers, body: JSON.stringify(body) }, expected);
  let n = 0;
  const render = (extra = {}) => {
    const text = post(`/apps/run/${s.integrationId}`, { user: "u-1", company: COMPANY, ...extra }, app);
    return async () => {
      const { data } = JSON.parse(await text());
      const errors = data.notifications.filter((x) => x.level === "ERROR");
      if (errors.length || data.referenceData.a?.rows?.length !== 20) throw new Error(`render answered ${JSON.stringify(data).slice(0, 400)}`);
    };
  };
  return {
    healthz: () => call(`${env.base}/healthz`, {}, 200),
    read_by_id_pat: () => call(`${env.base}/entity/entities/${s.entityId}`, { headers: basic }, 200),
    read_by_id_jwt: () => call(`${env.base}/entity/entities/${s.entityId}`, { headers: bearer }, 200),
    query_indexed_eq: post("/entity/query", { type_name: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: "cat-4" }, limit: 20 }),
    create: () => post("/entity/entities", { type_name: TYPE, name: "New", attributes: { sku: `new-${n++}`, category: "cat-new" } }, basic, 201)(),
    patch: () =>
      call(
        `${env.base}/entity/entities/${s.entityId}/attributes`,
        { method: "PATCH", headers: basic, body: JSON.stringify({ attributes: { n: 1000 + n++ } }) },
        200,
      ),
    delete: () => call(`${env.base}/entity/entities/${s.doomedIds.pop()}`, { method: "DELETE", headers: basic }, 200),
    upsert_10: () => {
      const round = n++;
      return post("/entity/entities/upsert", {
        type_name: TYPE,
        data: Array.from({ length: 10 }, (_, i) => ({ name: `U ${i}`, attributes: { sku: `S-${i}`, category: `cat-${i % 10}`, n: round } })),
      })();
    },
    webhook: () => call(s.hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }, 202),
    dispatch: post("/workflows/wr", { workflow_id: s.workflowId, trigger_id: "hook", input: {} }, basic, 202),
    render_3_queries: render(),
    app_action: render({ action: { widgetId: "ping", handler: "click" } }),
  };
}

export async function run(env, log) {
  const [host, port] = env.wsProxy.split(":");
  proxy.setUpstream(host, Number(port));
  try {
    const s = await setup(env);
    const figures = [];
    for (const [name, op] of Object.entries(operations(env, s))) {
      proxy.setDelay(0);
      const near = await measure(op);
      proxy.setDelay(DELAY_MS);
      const far = await measure(op);
      const rtt = 2 * DELAY_MS;
      const ratio = far.p50 / (far.trips * rtt + near.p50);
      log(`[bench] edge: ${name} ${round(near.p50, 1)} ms / ${near.trips} trips at 0, ${round(far.p50, 1)} ms / ${far.trips} trips at ${rtt} ms`);
      figures.push(
        figure(name, round(far.p50, 1), "ms", null, round(ratio), { trips: far.trips, trips_at_0: near.trips, p50_at_0: round(near.p50, 1), rtt_ms: rtt }),
      );
    }
    return figures;
  } finally {
    proxy.setDelay(0);
    await proxy.stop();
  }
}
