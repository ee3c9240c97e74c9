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
//
// Uploads: a BENCH_UPLOAD_MIB (25) MiB file posted as multipart/form-data to
// an app upload slot's link (POST /apps/upload/{integrationId}/{uploadId}),
// against the same bytes posted to POST /entity/temp-files as the raw body
// with X-Temp-File-Name (the service's plain temp-file upload), alternating,
// BENCH_UPLOAD_ROUNDS (5) of each after one warm-up each; throughput in MB/s
// (10^6 bytes) of the median, the ratio of the medians' times, and each
// upload's stored file checked by its size. The slots are minted as a
// render's createTempFileUploadUrl step mints them: a row per slot and its
// link signed with the Worker's MASTER_KEY (set by `vars()`). The heap is
// sampled over further uploads of each kind: their peaks beside the idle
// isolate's.
//
// Acting renders: scripts/bench/app-commands.mjs (an `actions` command
// upserting one entity and the page re-rendered, against the REST upsert
// and query).
//
// Paged grid (`paged`): a page `browse` of the same spec whose one data_grid
// reads a `$query` source with `paged: true` over all BENCH_APPS_ROWS
// entities of the type, rendered with the grid's state on its first page and
// on its last (pageSize 20), alternating, BENCH_APPS_PAGED_RENDERS (50) of
// each after 5 warm-ups of each, in two orders: the default (by id) and
// sorted by the sortable `attributes.price` descending. Each p50, and the
// ratio last / first (target at most 1.1: the source counts exactly, then
// reads a page past the middle from the end of the order). Every answer must
// carry the total ROWS and a full page; the last page's ids must equal the
// REST query's `page` at the same offset (checked once per order). Beside
// them, `rest_offset_last`: that REST query's p50 (plain OFFSET, capped
// count), which the reverse read avoids; and the REST keyset first page
// with an exact count (`rest_first_exact_count`) and without a count
// (`rest_first_no_count`): what the exact total costs.
//
// BENCH_APPS_CASES picks the cases, comma-separated: render, action,
// upload, paged (all four by default; without render or paged, no seeding).
import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { figure, round } from "../lib/bench-env.mjs";
import { copyFrom } from "../lib/pg-copy.mjs";
import { percentile } from "../lib/percentile.mjs";
import { runCommands } from "./app-commands.mjs";

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
const CASES = new Set((process.env.BENCH_APPS_CASES ?? "render,action,upload,paged").split(","));
const UPLOAD_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 25);
const UPLOAD_ROUNDS = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 5);
const UPLOAD_HEAP_ROUNDS = 3;
const PAGED_RENDERS = Number(process.env.BENCH_APPS_PAGED_RENDERS ?? 50);
const PAGED_WARMUP = 5;
const PAGED_SIZE = 20;
const TARGET_PAGED_RATIO = 1.1;
/** The Worker's MASTER_KEY, so the bench signs upload links as the service does. */
const MASTER_KEY = randomBytes(32).toString("hex");

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

const SYLLABLES = [
  "ba",
  "ce",
  "di",
  "fo",
  "gu",
  "ha",
  "je",
  "ki",
  "lo",
  "mu",
  "na",
  "pe",
  "ri",
  "so",
  "tu",
  "va",
  "we",
  "xi",
  "zo",
  "bra",
  "cle",
  "dro",
  "gri",
  "plu",
  "sta",
  "tre",
];

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
  return { OUTBOUND_ALLOWLIST: new URL(feed.origin).host, MASTER_KEY };
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
              byCategory: {
                $query: { typeName: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: "{{ context.category }}" }, limit: 20 },
              },
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
            layout: [
              ["by_category", "by_price"],
              ["by_title", "feed"],
            ],
          },
          browse: {
            dataSources: { all: { $query: { typeName: TYPE, paged: true } } },
            widgets: { grid: grid("all") },
            layout: [["grid"]],
          },
        },
      },
    },
    providers: {
      [PROVIDER]: {
        auth: { type: "bearer" },
        autoCreateUsers: true,
        identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
        upload: "canvasFileUpload",
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
  return { integrationId: integration.id, activationId: integration.activation_id, token: raw_token };
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
      throw new Error(
        `round ${round}: widget ${w} got ${rendered[w].length} rows [${rendered[w].slice(0, 3)}...], the baseline ${rest[w].length} [${rest[w].slice(0, 3)}...]`,
      );
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

/** An upload slot of `app`'s integration for the bench tenant's user, and its signed link (gateway/capability.ts). */
async function mintSlot(env, app) {
  const id = crypto.randomUUID();
  const expires = Math.floor(Date.now() / 1000) + 1800;
  await env.pool.query(
    `INSERT INTO app_upload_slots (id, tenant_id, integration_id, activation_id, user_id, provider, type, name, max_file_size, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'canvasFileUpload', 'file', $7, to_timestamp($8))`,
    [id, env.tenant.tenant_id, app.integrationId, app.activationId, env.tenant.user_id, PROVIDER, 25 * MIB, expires],
  );
  const signature = createHmac("sha256", `capability:${MASTER_KEY}`).update(`app-upload\n${env.tenant.tenant_id}\n${id}\n${expires}`).digest("base64url");
  return {
    id,
    url: `${env.base}/apps/upload/${app.integrationId}/${id}?${new URLSearchParams({ tenant: env.tenant.tenant_id, expires: String(expires), signature })}`,
  };
}

const BOUNDARY = "----benchboundary";

function multipartOf(bytes) {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  return Buffer.concat([head, bytes, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

/** One upload through the upload route; answers the ms and the stored temp file's id. */
async function appUpload(env, app, body) {
  const slot = await mintSlot(env, app);
  const started = performance.now();
  const res = await fetch(slot.url, { method: "POST", body, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200 || JSON.parse(text).uploadId !== slot.id) throw new Error(`upload answered ${res.status} ${text.slice(0, 300)}`);
  return { ms, id: slot.id };
}

/** The same bytes as a plain temp file: the raw body, its length declared. */
async function tempFileUpload(env, bytes) {
  const started = performance.now();
  const res = await fetch(`${env.base}/entity/temp-files`, {
    method: "POST",
    body: bytes,
    headers: { Authorization: env.auth, "Content-Type": "application/octet-stream", "X-Temp-File-Name": "bench.bin" },
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 201) throw new Error(`temp-file upload answered ${res.status} ${text.slice(0, 300)}`);
  return { ms, id: JSON.parse(text).data.id };
}

async function storedSize(env, id) {
  const { rows } = await env.pool.query("SELECT size FROM temp_files WHERE id = $1", [id]);
  return rows[0]?.size;
}

/** Heap peaks while `work` runs `rounds` times back to back. */
async function uploadHeap(env, rounds, work) {
  env.heap.start(50);
  let peaks;
  try {
    for (let i = 0; i < rounds; i++) await work();
  } finally {
    peaks = env.heap.stop();
  }
  return peaks;
}

async function uploadFigures(env, app, log) {
  const bytes = randomBytes(UPLOAD_MIB * MIB);
  const body = multipartOf(bytes);
  const ours = [];
  const base = [];
  log(`[bench] apps: ${UPLOAD_MIB} MiB uploads, 1 warm-up and ${UPLOAD_ROUNDS} measured of each kind`);
  const kinds = { ours: () => appUpload(env, app, body), base: () => tempFileUpload(env, bytes) };
  for (let r = 0; r <= UPLOAD_ROUNDS; r++) {
    const got = {};
    for (const kind of r % 2 === 0 ? ["ours", "base"] : ["base", "ours"]) got[kind] = await kinds[kind]();
    for (const { id } of Object.values(got))
      if ((await storedSize(env, id)) !== bytes.length) throw new Error(`temp file ${id} does not hold ${bytes.length} bytes`);
    if (r === 0) continue;
    ours.push(got.ours.ms);
    base.push(got.base.ms);
  }
  const mbps = (ms) => round(bytes.length / 1e6 / (ms / 1000), 1);
  const p50 = percentile(sorted(ours), 50);
  const baseP50 = percentile(sorted(base), 50);
  env.heap.start();
  for (let i = 0; i < 4; i++) {
    await (await fetch(`${env.base}/healthz`)).arrayBuffer();
    await sleep(300);
  }
  const idle = env.heap.stop();
  log(`[bench] apps: heap sampled over ${UPLOAD_HEAP_ROUNDS} uploads of each kind`);
  const ourPeak = await uploadHeap(env, UPLOAD_HEAP_ROUNDS, kinds.ours);
  const basePeak = await uploadHeap(env, UPLOAD_HEAP_ROUNDS, kinds.base);
  return [
    figure("upload_throughput", mbps(p50), "MB/s", mbps(baseP50), round(p50 / baseP50), {
      ms: round(p50, 0),
      baseline_ms: round(baseP50, 0),
      mib: UPLOAD_MIB,
      rounds: ours.length,
    }),
    figure(
      "upload_memory_peak",
      mib(ourPeak.usedWithBuffers),
      "MiB",
      mib(basePeak.usedWithBuffers),
      round(ourPeak.usedWithBuffers / basePeak.usedWithBuffers),
      {
        live_mib: mib(ourPeak.liveWithBuffers),
        baseline_live_mib: mib(basePeak.liveWithBuffers),
        idle_mib: mib(idle.liveWithBuffers),
        uploads: UPLOAD_HEAP_ROUNDS,
      },
    ),
  ];
}

/** The renders against their baseline, then the heap while renders run back to back. */
async function renderFigures(env, app, words, log) {
  const random = mulberry32(3);
  const rounds = WARMUP + RENDERS;
  const params = Array.from({ length: rounds + 1000 }, () => {
    const priceFrom = Math.floor(random() * (PRICE_MAX - RANGE_WIDTH));
    return {
      category: `cat-${Math.floor(random() * CATEGORIES)}`,
      priceFrom,
      priceTo: priceFrom + RANGE_WIDTH,
      word: words[Math.floor(random() * words.length)],
    };
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
}

/** Renders the `browse` page with its grid on `page`; answers the ms, the ids and the total, after checking the answer. */
async function renderPaged(env, app, page, sorting) {
  const started = performance.now();
  const res = await fetch(`${env.base}/apps/run/${app.integrationId}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${app.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      user: "u-1",
      company: COMPANY,
      state: { page: "browse", widgets: { grid: { data_grid: { page, pageSize: PAGED_SIZE, sorting } } } },
    }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`paged render answered ${res.status} ${text.slice(0, 500)}`);
  const { data } = JSON.parse(text);
  if (data.notifications.length) throw new Error(`paged render notified ${JSON.stringify(data.notifications)}`);
  const ref = data.referenceData.grid;
  if (!ref || ref.total !== ROWS) throw new Error(`paged render answered ${JSON.stringify(ref)?.slice(0, 300)}, expected the total ${ROWS}`);
  const full = page * PAGED_SIZE <= ROWS ? PAGED_SIZE : ROWS % PAGED_SIZE;
  if (ref.rows.length !== full) throw new Error(`page ${page} answered ${ref.rows.length} rows, expected ${full}`);
  return { ms, ids: ref.rows.map((r) => r.id) };
}

/** The REST query at the last page's offset (plain OFFSET); answers the ms and the ids. */
async function restPage(env, page, sort, more = {}) {
  const started = performance.now();
  const res = await env.api("POST", "/entity/query", { type_name: TYPE, page, limit: PAGED_SIZE, ...(sort && { sort }), ...more });
  return { ms: performance.now() - started, ids: res.data.map((e) => e.id) };
}

/** The paged grid's first and last page, alternating, in each order. */
async function pagedFigures(env, app, log) {
  const last = Math.ceil(ROWS / PAGED_SIZE);
  const orders = {
    id: { sorting: undefined, sort: undefined },
    price_desc: { sorting: [{ id: "attributes.price", desc: true }], sort: [{ path: ["attributes", "price"], direction: "desc" }] },
  };
  const figures = [];
  for (const [name, order] of Object.entries(orders)) {
    const lastIds = (await renderPaged(env, app, last, order.sorting)).ids;
    const restIds = (await restPage(env, last, order.sort)).ids;
    if (lastIds.join(",") !== restIds.join(",")) throw new Error(`order ${name}: the last page's ids differ from the REST query's at the same offset`);
    log(`[bench] apps: paged grid by ${name}: ${PAGED_WARMUP} warm-up and ${PAGED_RENDERS} measured renders of page 1 and of page ${last}`);
    const first = [];
    const lastMs = [];
    const rest = [];
    const restCounted = [];
    const restUncounted = [];
    for (let r = 0; r < PAGED_WARMUP + PAGED_RENDERS; r++) {
      const pair = r % 2 === 0 ? [1, last] : [last, 1];
      const got = {};
      for (const page of pair) got[page] = (await renderPaged(env, app, page, order.sorting)).ms;
      const offset = (await restPage(env, last, order.sort)).ms;
      const counted = (await restPage(env, undefined, order.sort, { include_count: true, count_strategy: "exact" })).ms;
      const uncounted = (await restPage(env, undefined, order.sort)).ms;
      if (r < PAGED_WARMUP) continue;
      first.push(got[1]);
      lastMs.push(got[last]);
      rest.push(offset);
      restCounted.push(counted);
      restUncounted.push(uncounted);
    }
    const p50First = percentile(sorted(first), 50);
    const p50Last = percentile(sorted(lastMs), 50);
    const ratio = p50Last / p50First;
    figures.push(
      figure(`paged_${name}_first_p50`, round(p50First), "ms", null, null, {
        rows: ROWS,
        page_size: PAGED_SIZE,
        rest_first_exact_count: round(percentile(sorted(restCounted), 50)),
        rest_first_no_count: round(percentile(sorted(restUncounted), 50)),
        renders: first.length,
      }),
      figure(`paged_${name}_last_p50`, round(p50Last), "ms", round(p50First), round(ratio), {
        target_ratio: TARGET_PAGED_RATIO,
        meets_target: ratio <= TARGET_PAGED_RATIO,
        page: last,
        rest_offset_last: round(percentile(sorted(rest), 50)),
        renders: lastMs.length,
      }),
    );
    for (const f of figures.slice(-2)) log(`[bench] apps: ${JSON.stringify(f)}`);
  }
  return figures;
}

export async function run(env, log) {
  try {
    const { data: type } = await env.api("POST", "/entity/entity-types", { name: TYPE, schema, status: "active", config });
    const words = vocabulary(mulberry32(2));
    if (CASES.has("render") || CASES.has("paged")) {
      log(`[bench] apps: seeding ${ROWS} rows with COPY`);
      const seeded = await seed(env.pool, env.tenant.tenant_id, type.id, words);
      log(`[bench] apps: seeded in ${round(seeded.ms / 1000, 1)} s (${seeded.indexes} type indexes rebuilt)`);
    }
    const app = await setupApp(env);
    const figures = [];
    if (CASES.has("render")) figures.push(...(await renderFigures(env, app, words, log)));
    if (CASES.has("paged")) figures.push(...(await pagedFigures(env, app, log)));
    if (CASES.has("action")) figures.push(...(await runCommands(env, log)));
    if (CASES.has("upload")) {
      figures.push(...(await uploadFigures(env, app, log)));
      for (const f of figures.slice(-2)) log(`[bench] apps: ${JSON.stringify(f)}`);
    }
    return figures;
  } finally {
    await feed.close();
  }
}
