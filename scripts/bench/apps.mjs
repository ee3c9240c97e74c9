// `npm run bench -- apps`: an app dashboard rendered for a bearer host
// (POST /apps/run/{integrationId} with the integration's app token), against
// the same work asked for piece by piece.
//
// The dashboard's page has four sources, each bound to a data_grid widget:
// three `$query` sources over BENCH_APPS_ROWS (100,000) entities of one type,
// seeded with COPY, and one `$http` source against a Node HTTP server in this
// process on 127.0.0.1 (let through the outbound guard by OUTBOUND_ALLOWLIST,
// set by `vars()`). The queries:
//   - `by_category`: eq on an indexed text attribute, limit 20;
//   - `by_price`: a 5% range of a sortable numeric attribute, sorted by it, limit 50;
//   - `by_title`: ilike `%word%` on a searchable attribute, limit 20.
// Their values come from the host's `context` and change every render. The
// spec's default policy grants `entity:read` on the type, so the app user
// (auto-created by the first warm-up render) may run them.
//
// Baseline, in the same run on the same machine: the same three queries as
// POST /entity/query as the bench tenant's API token, with include_count
// (a `$query` source always counts, capped, for the widget's total), one
// after the other, then the one GET of the local server by `fetch` from
// Node; the sum of the four is one baseline sample. Sequential, because the
// render's queries run one after the other too: the render resolves its
// widgets concurrently, but one request holds one database connection, on
// which statements run one at a time (only the `$http` fetch overlaps them).
// The four requests sent at once are timed beside it as
// `baseline_concurrent` (extra, no target); `baseline_<widget>` is the p50
// of each of the four parts of the sequential baseline.
//
// Every render must answer 200 with referenceData for the four widgets, the
// same ids as the baseline's answers and no ERROR notification; the suite
// fails otherwise. Render and baseline alternate which goes first.
// Targets: render p50 at most 1.3x the baseline's p50, p95 at most 1.5x the
// baseline's p95. Then, apart from the timed renders (the inspector's forced
// collections would slow them), renders run back to back for a few seconds
// while the Worker isolate's heap is sampled (scripts/lib/heap.mjs): its
// peak as found and live, against the idle isolate.
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { figure, round } from "../lib/bench-env.mjs";
import { copyFrom } from "../lib/pg-copy.mjs";
import { percentile } from "../lib/percentile.mjs";

const ROWS = Number(process.env.BENCH_APPS_ROWS ?? 100_000);
const RENDERS = Number(process.env.BENCH_APPS_RENDERS ?? 100);
const WARMUP = 10;
const HEAP_SAMPLING_MS = 4000;
const TARGET_P50_RATIO = 1.3;
const TARGET_P95_RATIO = 1.5;

const COPY_CHUNK = 10_000;
const CATEGORIES = 200;
const PRICE_MAX = 100_000;
const RANGE_WIDTH = PRICE_MAX / 20;
const WORDS = 2000;
const FEED_ROWS = 20;
const MIB = 1024 * 1024;

const TYPE = "BenchAppItem";
const PROVIDER = "host";
const COMPANY = "bench-co";
const schema = {
  type: "object",
  required: ["sku", "category", "price", "title"],
  properties: { sku: { type: "string" }, category: { type: "string" }, price: { type: "number" }, title: { type: "string" }, qty: { type: "integer" } },
};
const config = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["category"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
    { path: ["title"], type: "text", searchable: true },
  ],
};

// Reproducible data and request parameters from one seed.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "na", "pe", "ri", "so", "tu", "va", "we", "xi", "zo", "bra", "cle", "dro", "gri", "plu", "sta", "tre"];

function vocabulary(random) {
  const words = new Set();
  while (words.size < WORDS) {
    const n = 2 + Math.floor(random() * 2);
    words.add(Array.from({ length: n }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(""));
  }
  return [...words];
}

/** COPY data for every row, in chunks. Generated values hold no tab, newline or backslash. */
function copyChunks(tenantId, typeId, words) {
  const random = mulberry32(1);
  const pick = () => words[Math.floor(random() * words.length)];
  const chunks = [];
  for (let from = 0; from < ROWS; from += COPY_CHUNK) {
    let text = "";
    for (let i = from; i < Math.min(ROWS, from + COPY_CHUNK); i++) {
      const sku = `SKU-${String(i).padStart(6, "0")}`;
      const attributes = {
        sku,
        category: `cat-${Math.floor(random() * CATEGORIES)}`,
        price: Math.floor(random() * PRICE_MAX * 100) / 100,
        title: `${pick()} ${pick()} ${pick()}`,
        qty: Math.floor(random() * 500),
      };
      text += `${tenantId}\t${typeId}\tItem ${i}\t${JSON.stringify(attributes)}\t${sku}\n`;
    }
    chunks.push(Buffer.from(text));
  }
  return chunks;
}

/** COPY the rows in with the type's own indexes dropped, then rebuild them from their exact definitions (as query.mjs does). */
async function seed(pool, tenantId, typeId, words) {
  const started = performance.now();
  const { rows: indexes } = await pool.query(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def
     FROM pg_index WHERE indrelid = 'entities'::regclass AND pg_get_expr(indpred, indrelid) LIKE '%' || $1 || '%'`,
    [typeId],
  );
  for (const { name } of indexes) await pool.query(`DROP INDEX ${name}`);
  const client = await pool.connect();
  try {
    const n = await copyFrom(client, "COPY entities (tenant_id, type_id, name, attributes, identifier_key) FROM STDIN", copyChunks(tenantId, typeId, words));
    if (n !== ROWS) throw new Error(`COPY wrote ${n} rows, expected ${ROWS}`);
    await client.query("SET maintenance_work_mem = '256MB'");
    for (const { def } of indexes) await client.query(def);
  } finally {
    client.release();
  }
  await pool.query("VACUUM (ANALYZE) entities");
  return { ms: performance.now() - started, indexes: indexes.length };
}

/** The server the `$http` source calls: GET /feed?q=<word> answers FEED_ROWS small rows under `items`. */
function startFeed() {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const url = new URL(req.url, "http://feed");
      if (req.method !== "GET" || url.pathname !== "/feed") {
        res.writeHead(404).end();
        return;
      }
      state.requests++;
      const q = url.searchParams.get("q") ?? "";
      const body = JSON.stringify({ items: Array.from({ length: FEED_ROWS }, (_, i) => ({ id: `${q}-${i}`, label: `${q} news ${i}`, score: i * 3 })) });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      resolve({ origin, state, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

let feed;

/** Starts the feed server before the Worker, so the Worker is started with it allowlisted. */
export async function vars() {
  feed = await startFeed();
  return { OUTBOUND_ALLOWLIST: new URL(feed.origin).host };
}

/** The three queries as REST bodies for the round's parameters (`p`); the spec writes the same ones with `{{ context.* }}`. */
const queries = {
  by_category: (p) => ({ type_name: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: p.category }, limit: 20 }),
  by_price: (p) => ({
    type_name: TYPE,
    filter: {
      operator: "and",
      filters: [
        { operator: "gte", path: ["attributes", "price"], value: p.priceFrom },
        { operator: "lt", path: ["attributes", "price"], value: p.priceTo },
      ],
    },
    sort: [{ path: ["attributes", "price"], direction: "asc" }],
    limit: 50,
  }),
  by_title: (p) => ({ type_name: TYPE, filter: { operator: "ilike", path: ["attributes", "title"], value: `%${p.word}%` }, limit: 20 }),
};

function specDocument() {
  const grid = (dataSource) => ({ widgetComponent: "data_grid", dataSource });
  return {
    dashboards: {
      main: {
        name: "Main",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: {
              byCategory: { $query: { typeName: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: "{{ context.category }}" }, limit: 20 } },
              byPrice: {
                $query: {
                  typeName: TYPE,
                  filter: {
                    operator: "and",
                    filters: [
                      { operator: "gte", path: ["attributes", "price"], value: "{{ context.priceFrom }}" },
                      { operator: "lt", path: ["attributes", "price"], value: "{{ context.priceTo }}" },
                    ],
                  },
                  sort: [{ path: ["attributes", "price"], direction: "asc" }],
                  limit: 50,
                },
              },
              byTitle: { $query: { typeName: TYPE, filter: { operator: "ilike", path: ["attributes", "title"], value: "%{{ context.word }}%" }, limit: 20 } },
              feed: { $http: { url: `${feed.origin}/feed`, query: { q: "{{ context.word }}" }, rowsPath: "items" } },
            },
            widgets: { by_category: grid("byCategory"), by_price: grid("byPrice"), by_title: grid("byTitle"), feed: grid("feed") },
            layout: [["by_category", "by_price"], ["by_title", "feed"]],
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

/** Publishes and activates the spec, registers the host's company, and mints the integration's app token. */
async function setupApp(env) {
  const spec = (await env.api("POST", "/definition/specs", { name: "Bench desk", spec_document: specDocument() })).data;
  await env.api("PUT", `/apps/${spec.id}/config`, { config: {} });
  const company = (await env.api("POST", "/access/external-companies", { provider: PROVIDER, external_id: COMPANY })).data;
  const integration = (await env.api("POST", `/apps/${spec.id}/integrations`, { external_company_id: company.id })).data;
  const { raw_token } = await env.api("PUT", `/apps/${spec.id}/integrations/${integration.id}/token`);
  return { integrationId: integration.id, token: raw_token };
}

const WIDGETS = ["by_category", "by_price", "by_title", "feed"];

/** Renders once for `p`; answers the elapsed ms and the ids of each widget's rows, after checking the answer. */
async function render(env, app, p) {
  const started = performance.now();
  const res = await fetch(`${env.base}/apps/run/${app.integrationId}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${app.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ user: "u-1", company: COMPANY, context: p }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`render answered ${res.status} ${text.slice(0, 500)}`);
  const { data } = JSON.parse(text);
  const errors = data.notifications.filter((n) => n.level === "ERROR");
  if (errors.length) throw new Error(`render notified ${JSON.stringify(errors)}`);
  const ids = {};
  for (const w of WIDGETS) {
    const ref = data.referenceData[w];
    if (!ref || !Array.isArray(ref.rows)) throw new Error(`render answered no referenceData for ${w}: ${JSON.stringify(data.referenceData).slice(0, 300)}`);
    ids[w] = ref.rows.map((r) => r.id);
  }
  return { ms, ids };
}

async function restQuery(env, body) {
  const res = await env.api("POST", "/entity/query", { ...body, include_count: true });
  return res.data.map((e) => e.id);
}

async function directFetch(p) {
  const res = await fetch(`${feed.origin}/feed?q=${encodeURIComponent(p.word)}`);
  if (res.status !== 200) throw new Error(`the feed answered ${res.status}`);
  return (await res.json()).items.map((r) => r.id);
}

/** The baseline: the three queries one after the other, then the fetch; answers the sum, each part's ms and the ids. */
async function baseline(env, p) {
  const started = performance.now();
  const ids = {};
  const parts = {};
  let at = started;
  const lap = (name) => {
    const now = performance.now();
    parts[name] = now - at;
    at = now;
  };
  for (const [name, body] of Object.entries(queries)) {
    ids[name] = await restQuery(env, body(p));
    lap(name);
  }
  ids.feed = await directFetch(p);
  lap("feed");
  return { ms: performance.now() - started, parts, ids };
}

/** The same four requests sent at once. */
async function concurrentBaseline(env, p) {
  const started = performance.now();
  await Promise.all([...Object.values(queries).map((body) => restQuery(env, body(p))), directFetch(p)]);
  return performance.now() - started;
}

function sameRows(round, rendered, rest) {
  for (const w of WIDGETS) {
    if (rendered[w].join(",") !== rest[w].join(",")) {
      throw new Error(`round ${round}: widget ${w} got ${rendered[w].length} rows [${rendered[w].slice(0, 3)}...], the baseline ${rest[w].length} [${rest[w].slice(0, 3)}...]`);
    }
  }
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const mib = (bytes) => round(bytes / MIB, 1);

async function heapFigure(env, app, paramsOf, log) {
  // An idle isolate answers a collection only when it next runs a task, so a few cheap requests give it some.
  env.heap.start();
  for (let i = 0; i < 4; i++) {
    await (await fetch(`${env.base}/healthz`)).arrayBuffer();
    await sleep(300);
  }
  const idle = env.heap.stop();
  log(`[bench] apps: renders back to back for ${HEAP_SAMPLING_MS / 1000} s, heap sampled`);
  env.heap.start(50);
  const until = performance.now() + HEAP_SAMPLING_MS;
  let renders = 0;
  let peaks;
  try {
    while (performance.now() < until) await render(env, app, paramsOf(renders++));
  } finally {
    peaks = env.heap.stop();
  }
  return figure("render_memory_peak", mib(peaks.usedWithBuffers), "MiB", null, null, {
    live_mib: mib(peaks.liveWithBuffers),
    js_heap_mib: mib(peaks.used),
    js_heap_live_mib: mib(peaks.live),
    idle_mib: mib(idle.liveWithBuffers),
    renders,
  });
}

export async function run(env, log) {
  try {
    const { data: type } = await env.api("POST", "/entity/entity-types", { name: TYPE, schema, status: "active", config });
    const words = vocabulary(mulberry32(2));
    log(`[bench] apps: seeding ${ROWS} rows with COPY`);
    const seeded = await seed(env.pool, env.tenant.tenant_id, type.id, words);
    log(`[bench] apps: seeded in ${round(seeded.ms / 1000, 1)} s (${seeded.indexes} type indexes rebuilt)`);
    const app = await setupApp(env);

    const random = mulberry32(3);
    const rounds = WARMUP + RENDERS;
    const params = Array.from({ length: rounds + 1000 }, () => {
      const priceFrom = Math.floor(random() * (PRICE_MAX - RANGE_WIDTH));
      return { category: `cat-${Math.floor(random() * CATEGORIES)}`, priceFrom, priceTo: priceFrom + RANGE_WIDTH, word: words[Math.floor(random() * words.length)] };
    });
    const paramsOf = (i) => params[i % params.length];

    const ours = [];
    const base = [];
    const concurrent = [];
    const parts = Object.fromEntries(WIDGETS.map((w) => [w, []]));
    const found = Object.fromEntries(WIDGETS.map((w) => [w, 0]));
    const feedBefore = feed.state.requests;
    log(`[bench] apps: ${WARMUP} warm-up and ${RENDERS} measured renders, each against its baseline`);
    for (let r = 0; r < rounds; r++) {
      const p = paramsOf(r);
      let rendered, rest;
      if (r % 2 === 0) {
        rendered = await render(env, app, p);
        rest = await baseline(env, p);
      } else {
        rest = await baseline(env, p);
        rendered = await render(env, app, p);
      }
      const together = await concurrentBaseline(env, p);
      sameRows(r, rendered.ids, rest.ids);
      for (const w of WIDGETS) if (rendered.ids[w].length) found[w]++;
      if (r < WARMUP) continue;
      ours.push(rendered.ms);
      base.push(rest.ms);
      for (const w of WIDGETS) parts[w].push(rest.parts[w]);
      concurrent.push(together);
      if ((r + 1) % 50 === 0) log(`[bench] apps: round ${r + 1}`);
    }
    for (const [w, n] of Object.entries(found)) if (n === 0) throw new Error(`widget ${w} never got a row, so it measured nothing`);
    // Each round: one render, one baseline and one concurrent baseline each fetch the feed once.
    if (feed.state.requests - feedBefore !== rounds * 3) throw new Error(`the feed saw ${feed.state.requests - feedBefore} requests, expected ${rounds * 3}`);

    const o = sorted(ours);
    const b = sorted(base);
    const c = sorted(concurrent);
    const p50 = percentile(o, 50);
    const p95 = percentile(o, 95);
    const baseP50 = percentile(b, 50);
    const baseP95 = percentile(b, 95);
    const figures = [
      figure("render_p50", round(p50), "ms", round(baseP50), round(p50 / baseP50), {
        target_ratio: TARGET_P50_RATIO,
        meets_target: p50 / baseP50 <= TARGET_P50_RATIO,
        baseline_concurrent: round(percentile(c, 50)),
        ...Object.fromEntries(WIDGETS.map((w) => [`baseline_${w}`, round(percentile(sorted(parts[w]), 50))])),
        renders: o.length,
        rows: ROWS,
      }),
      figure("render_p95", round(p95), "ms", round(baseP95), round(p95 / baseP95), {
        target_ratio: TARGET_P95_RATIO,
        meets_target: p95 / baseP95 <= TARGET_P95_RATIO,
        baseline_concurrent: round(percentile(c, 95)),
        renders: o.length,
        rows: ROWS,
      }),
    ];
    for (const f of figures) log(`[bench] apps: ${JSON.stringify(f)}`);
    figures.push(await heapFigure(env, app, (i) => paramsOf(rounds + i), log));
    log(`[bench] apps: ${JSON.stringify(figures[2])}`);
    return figures;
  } finally {
    await feed.close();
  }
}
