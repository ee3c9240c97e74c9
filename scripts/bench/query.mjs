// `npm run bench -- query`: POST /entity/query on 1,000,000 entities of one
// type (BENCH_QUERY_ROWS), seeded with COPY, against the same SQL written by
// hand and run over one warm connection from Node on the same database (the
// Neon driver through the same local WebSocket bridge the Worker uses, so
// both sides pay the same transport).
//
// Every figure is p50/p95 over BENCH_QUERY_REQUESTS requests (fewer only for a
// figure that overruns its time budget, see FIGURE_BUDGET_MS). The figures are
// measured round-robin, ours and raw back to back (alternating which goes
// first), so load from elsewhere on the machine falls on all of them alike.
// `floor` (an `id` lookup against the raw primary-key lookup) is what any
// request pays before the query engine does anything: gateway, auth, a
// database connection per request. The other figures also report
// marginal_ratio = (ours - our floor) / (raw - raw floor), the engine's own cost.
// Every answer is checked against raw SQL's, so both sides do the same work.
// Two figures are POST /entity/query/aggregate over every row (a count by an
// indexed text attribute of 20 values; a numeric sum by month of created_at,
// spread over two years) against their raw GROUP BY twins; their target is a
// marginal ratio of 1.25, with no latency target (they read the whole type).
// Then shared-query.mjs shares the type with a second tenant and measures two
// of the shapes as that tenant against the same requests by the owner.
import { performance } from "node:perf_hooks";
import { figure, round } from "../lib/bench-env.mjs";
import { copyFrom } from "../lib/pg-copy.mjs";
import { percentile } from "../lib/percentile.mjs";
import { sharedFigures } from "./shared-query.mjs";

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_QUERY_REQUESTS ?? 200);
const WARMUP = 20;
const ROUNDS = WARMUP + REQUESTS;
const LIMIT = 100;
// Where a capped count stops (docs/query.md).
const COUNT_CAP = 10_000;
const COPY_BATCH = 50_000;
const COPY_CHUNK = 5_000;
const CATEGORIES = 1000;
const PRICE_MAX = 100_000;
// 5% of the rows: at 1,000,000 past COUNT_CAP.
const RANGE_WIDTH = PRICE_MAX / 20;
const WORDS = 5000;
const FUZZY_THRESHOLD = 0.6;
// Page 5,000 at 1,000,000 rows; halfway through smaller development sets.
const DEEP_PAGE = Math.min(5000, Math.floor(ROWS / LIMIT / 2));
// The cursor is bound to the query's type, filter and sort, not its limit, so
// the walk to the deep page takes big steps and then page-sized ones.
const WALK_LIMIT = 1000;
// A figure far outside every target (seconds a request, as with a plan that
// scans the table) would hold the run for hours at 200 requests. Once it has
// spent its budget (warm-up included) it stops at MIN_REQUESTS, and its line
// says how many requests it got.
const FIGURE_BUDGET_MS = 120_000;
const MIN_REQUESTS = 5;

const TARGET_FLOOR_MS = 10;
const TARGET_MARGINAL_RATIO = 1.5;
const TARGET_MARGINAL_SLACK_MS = 1;
const TARGET_QUERY_MS = 50;
const TARGET_DEEP_OVER_FIRST = 1.2;
const TARGET_AGGREGATE_MARGINAL_RATIO = 1.25;
// Regions and creation times follow from the row number (no draw from the
// seeded sequence, so every other attribute is what it was before they were
// added). A month bucket of an indexed timestamptz attribute would measure
// platform_timestamptz (a plpgsql cast with an exception block, about 20 µs a
// row) more than the aggregate; created_at is a column.
const REGIONS = 20;
const CREATED_FROM = Date.UTC(2024, 0, 1);
const CREATED_SPAN_S = 730 * 86_400;

const TYPE = "BenchQueryItem";
const schema = {
  type: "object",
  required: ["sku", "category", "price", "title", "maker"],
  properties: {
    sku: { type: "string" },
    category: { type: "string" },
    price: { type: "number" },
    title: { type: "string" },
    maker: { type: "string" },
    qty: { type: "integer" },
    status: { type: "string" },
    region: { type: "string" },
  },
};
const config = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["category"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
    { path: ["title"], type: "text", searchable: true },
    // Fuzzy matching is for short values such as names: a two-word name with
    // a typo stays above the 0.6 similarity threshold.
    { path: ["maker"], type: "text", searchable: true },
    { path: ["region"], type: "text" },
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

// Made-up words of two or three syllables: varied enough that trigrams are
// spread as in real text, and some accented so unaccent does real work.
const ONSETS = [
  "b",
  "c",
  "d",
  "f",
  "g",
  "h",
  "j",
  "k",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "w",
  "z",
  "br",
  "cl",
  "dr",
  "gr",
  "pl",
  "st",
  "tr",
  "ch",
  "sh",
  "th",
];
const VOWELS = ["a", "e", "i", "o", "u", "y", "ai", "ou", "é", "ö"];
const CODAS = ["", "", "", "n", "r", "s", "l", "m", "t", "x"];

function vocabulary(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words = new Set();
  while (words.size < WORDS) {
    const n = 2 + Math.floor(random() * 2);
    words.add(Array.from({ length: n }, () => pick(ONSETS) + pick(VOWELS) + pick(CODAS)).join(""));
  }
  return [...words];
}

const STATUSES = ["new", "active", "paused", "retired"];

const capitalized = (s) => s[0].toUpperCase() + s.slice(1);

/**
 * One COPY text-format line per entity. Every value here is generated and
 * never holds a tab, newline or backslash, so none needs escaping.
 */
function rowLine(i, random, words, tenantId, typeId) {
  const pick = () => words[Math.floor(random() * words.length)];
  const sku = `SKU-${String(i).padStart(7, "0")}`;
  const attributes = {
    sku,
    category: `cat-${Math.floor(random() * CATEGORIES)}`,
    price: Math.floor(random() * PRICE_MAX * 100) / 100,
    title: capitalized(`${pick()} ${pick()} ${pick()}`),
    maker: `${capitalized(pick())} ${capitalized(pick())}`,
    qty: Math.floor(random() * 500),
    status: STATUSES[Math.floor(random() * STATUSES.length)],
    region: `region-${String(i % REGIONS).padStart(2, "0")}`,
  };
  const createdAt = new Date(CREATED_FROM + ((i * 2_654_435_761) % CREATED_SPAN_S) * 1000).toISOString();
  return `${tenantId}\t${typeId}\tItem ${i}\t${JSON.stringify(attributes)}\t${sku}\t${createdAt}\n`;
}

/** Batch `b` of the rows as COPY data, from its own seed so batches can be made in any order. */
function batchChunks(b, words, tenantId, typeId) {
  const random = mulberry32(1000 + b);
  const end = Math.min(ROWS, (b + 1) * COPY_BATCH);
  const chunks = [];
  for (let from = b * COPY_BATCH; from < end; from += COPY_CHUNK) {
    let text = "";
    for (let i = from; i < Math.min(end, from + COPY_CHUNK); i++) text += rowLine(i, random, words, tenantId, typeId);
    chunks.push(Buffer.from(text));
  }
  return { chunks, rows: end - b * COPY_BATCH };
}

/**
 * COPY the rows in on two connections at once (one generates while the other
 * loads). The type's own indexes are dropped first and rebuilt from their
 * exact definitions after: one sorted build is several times faster than a
 * million index insertions, and the result is the index the service made.
 */
async function seed(pool, tenantId, typeId, words, log) {
  const started = performance.now();
  const { rows: indexes } = await pool.query(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def
     FROM pg_index WHERE indrelid = 'entities'::regclass AND pg_get_expr(indpred, indrelid) LIKE '%' || $1 || '%'`,
    [typeId],
  );
  for (const { name } of indexes) await pool.query(`DROP INDEX ${name}`);

  const batches = Math.ceil(ROWS / COPY_BATCH);
  let nextBatch = 0;
  let copied = 0;
  async function loader() {
    const client = await pool.connect();
    try {
      while (nextBatch < batches) {
        const { chunks, rows } = batchChunks(nextBatch++, words, tenantId, typeId);
        const n = await copyFrom(client, "COPY entities (tenant_id, type_id, name, attributes, identifier_key, created_at) FROM STDIN", chunks);
        if (n !== rows) throw new Error(`COPY wrote ${n} rows, expected ${rows}`);
        copied += n;
        log(`[bench] query: copied ${copied} of ${ROWS} rows (${round((performance.now() - started) / 1000, 1)} s)`);
      }
    } finally {
      client.release();
    }
  }
  await Promise.all([loader(), loader()]);
  const copyMs = performance.now() - started;

  // Two builds at a time, one per core (CREATE INDEX takes a lock that does not exclude another).
  const pending = [...indexes];
  async function builder() {
    const client = await pool.connect();
    try {
      await client.query("SET maintenance_work_mem = '256MB'");
      while (pending.length) await client.query(pending.shift().def);
    } finally {
      client.release();
    }
  }
  await Promise.all([builder(), builder()]);
  const indexMs = performance.now() - started - copyMs;
  // VACUUM as well as ANALYZE: autovacuum would otherwise start on the fresh
  // rows in the middle of the measurements, and the visibility map it sets is
  // what a table in service has.
  await pool.query("VACUUM (ANALYZE) entities");
  return { copyMs, indexMs, totalMs: performance.now() - started, indexes: indexes.length };
}

/** A typo in the middle of `s` (two letters swapped), as a person searching would make. */
function typo(s) {
  const i = Math.floor(s.length / 2);
  return s.slice(0, i - 1) + s[i] + s[i - 1] + s.slice(i + 1);
}

function sameAnswer(name, round, ours, raw) {
  const a = ours.ids.join(",");
  const b = raw.ids.join(",");
  if (a !== b)
    throw new Error(
      `${name} round ${round}: service answered ${ours.ids.length} rows [${ours.ids.slice(0, 3)}...], raw SQL ${raw.ids.length} [${raw.ids.slice(0, 3)}...]`,
    );
  if (raw.count !== undefined && ours.count !== raw.count) throw new Error(`${name} round ${round}: service counted ${ours.count}, raw SQL ${raw.count}`);
}

/** The cursor of page `page` (of `LIMIT` rows, by id), by walking there once. */
async function cursorOfPage(env, page, log) {
  const before = (page - 1) * LIMIT;
  const steps = [...Array(Math.floor(before / WALK_LIMIT)).fill(WALK_LIMIT), ...Array((before % WALK_LIMIT) / LIMIT).fill(LIMIT)];
  let cursor;
  const started = performance.now();
  for (const [i, limit] of steps.entries()) {
    const res = await env.api("POST", "/entity/query", { type_name: TYPE, limit, ...(cursor ? { cursor } : {}) });
    if (res.data.length !== limit || !res.next_cursor) throw new Error(`walk to page ${page}: step ${i} answered ${res.data.length} rows`);
    cursor = res.next_cursor;
  }
  log(`[bench] query: walked to page ${page} in ${steps.length} requests (${round((performance.now() - started) / 1000, 1)} s)`);
  return cursor;
}

export async function run(env, log) {
  const tenantId = env.tenant.tenant_id;
  const { data: type } = await env.api("POST", "/entity/entity-types", { name: TYPE, schema, status: "active", config });
  const words = vocabulary(mulberry32(2));

  log(`[bench] query: seeding ${ROWS} rows with COPY`);
  const seeded = await seed(env.pool, tenantId, type.id, words, log);
  log(
    `[bench] query: seeded in ${round(seeded.totalMs / 1000, 1)} s: COPY ${round(seeded.copyMs / 1000, 1)} s, ` +
      `${seeded.indexes} type indexes rebuilt ${round(seeded.indexMs / 1000, 1)} s, VACUUM ANALYZE the rest`,
  );

  const client = await env.pool.connect();
  try {
    // The raw side sets the fuzzy threshold once for its session, as a
    // hand-written app on a warm connection would.
    await client.query(`SET pg_trgm.similarity_threshold = ${FUZZY_THRESHOLD}`);
    const raw = (text, params = []) => client.query(text, [tenantId, type.id, ...params]).then((r) => r.rows);

    const COLS = "e.id, e.name, e.type_id, e.attributes, e.identifier_key, e.created_at, e.updated_at, e.deleted_at";
    const LIVE = "FROM entities e WHERE e.tenant_id = $1 AND e.type_id = $2 AND e.deleted_at IS NULL";
    // The expressions of the type's indexes, so the planner can use them.
    const CATEGORY = "(e.attributes #>> '{category}')";
    const PRICE = "platform_numeric(e.attributes #>> '{price}')";
    const TITLE = "platform_unaccent(e.attributes #>> '{title}')";
    const MAKER = "platform_unaccent(e.attributes #>> '{maker}')";
    const REGION = "(e.attributes #>> '{region}')";

    const sample = await raw(`SELECT e.id, e.attributes #>> '{maker}' AS maker ${LIVE} ORDER BY random() LIMIT ${ROUNDS}`);
    const idOf = (i) => sample[i % sample.length].id;
    const fuzzyTerm = (i) => typo(sample[i % sample.length].maker);
    const categoryOf = (i) => `cat-${(i * 7919) % CATEGORIES}`;
    const wordOf = (i) => words[(i * 7919) % words.length];
    const priceRandom = mulberry32(3);
    const priceStarts = Array.from({ length: ROUNDS }, () => Math.floor(priceRandom() * (PRICE_MAX - RANGE_WIDTH)));
    const priceFrom = (i) => priceStarts[i];

    const deepCursor = await cursorOfPage(env, DEEP_PAGE, log);
    const [{ id: deepAfter }] = await raw(`SELECT e.id ${LIVE} ORDER BY e.id OFFSET ${(DEEP_PAGE - 1) * LIMIT - 1} LIMIT 1`);

    const ids = (rows) => ({ ids: rows.map((r) => r.id) });
    const rangeFilter = (i) => ({
      operator: "and",
      filters: [
        { operator: "gte", path: ["attributes", "price"], value: priceFrom(i) },
        { operator: "lt", path: ["attributes", "price"], value: priceFrom(i) + RANGE_WIDTH },
      ],
    });
    const rangeBody = (i) => ({ type_name: TYPE, filter: rangeFilter(i), sort: [{ path: ["attributes", "price"], direction: "asc" }], limit: LIMIT });
    const RANGE_WHERE = `${LIVE} AND ${PRICE} >= $3 AND ${PRICE} < $4`;
    const rangePage = (i) => raw(`SELECT ${COLS} ${RANGE_WHERE} ORDER BY ${PRICE}, e.id LIMIT ${LIMIT}`, [priceFrom(i), priceFrom(i) + RANGE_WIDTH]);

    /** A page of entities, as sameAnswer compares it. */
    const pageAnswer = (res) => ({ ids: res.data.map((e) => e.id), count: res.count });
    /** Group rows as `key|value` lines: instants as ISO text, sums as numbers (numeric text on the raw side). */
    const groupLines = (rows) => ({
      ids: rows.map(([key, value]) => `${key instanceof Date || /^\d{4}-/.test(key) ? new Date(key).toISOString() : key}|${Number(value)}`),
    });

    /** name, the request body of round i, and the same work in raw SQL; `path` and `answer` for another route than POST /entity/query. */
    const figures = [
      {
        name: "floor",
        ours: (i) => ({ type_name: TYPE, filter: { operator: "eq", path: ["id"], value: idOf(i) } }),
        raw: async (i) => ids(await raw(`SELECT ${COLS} ${LIVE} AND e.id = $3`, [idOf(i)])),
      },
      {
        name: "eq_indexed_text",
        ours: (i) => ({ type_name: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value: categoryOf(i) }, limit: LIMIT }),
        raw: async (i) => ids(await raw(`SELECT ${COLS} ${LIVE} AND ${CATEGORY} = $3 ORDER BY e.id LIMIT ${LIMIT}`, [categoryOf(i)])),
      },
      {
        name: "range_sorted_numeric",
        ours: rangeBody,
        raw: async (i) => ids(await rangePage(i)),
      },
      {
        name: "ilike_searchable",
        ours: (i) => ({ type_name: TYPE, filter: { operator: "ilike", path: ["attributes", "title"], value: `%${wordOf(i)}%` }, limit: LIMIT }),
        raw: async (i) => ids(await raw(`SELECT ${COLS} ${LIVE} AND ${TITLE} ILIKE platform_unaccent($3) ORDER BY e.id LIMIT ${LIMIT}`, [`%${wordOf(i)}%`])),
      },
      {
        name: "keyset_page_1",
        ours: () => ({ type_name: TYPE, limit: LIMIT }),
        raw: async () => ids(await raw(`SELECT ${COLS} ${LIVE} ORDER BY e.id LIMIT ${LIMIT}`)),
      },
      {
        name: `keyset_page_${DEEP_PAGE}`,
        ours: () => ({ type_name: TYPE, limit: LIMIT, cursor: deepCursor }),
        raw: async () => ids(await raw(`SELECT ${COLS} ${LIVE} AND e.id > $3 ORDER BY e.id LIMIT ${LIMIT}`, [deepAfter])),
      },
      {
        name: "count_capped",
        ours: (i) => ({ ...rangeBody(i), include_count: true, count_strategy: "capped" }),
        raw: async (i) => {
          const page = ids(await rangePage(i));
          const [{ n }] = await raw(`SELECT count(*) AS n FROM (SELECT 1 ${RANGE_WHERE} LIMIT ${COUNT_CAP}) s`, [priceFrom(i), priceFrom(i) + RANGE_WIDTH]);
          return { ...page, count: Number(n) };
        },
      },
      {
        name: "count_estimate",
        ours: (i) => ({ ...rangeBody(i), include_count: true, count_strategy: "estimate" }),
        raw: async (i) => {
          const page = ids(await rangePage(i));
          const [{ "QUERY PLAN": plan }] = await raw(`EXPLAIN (FORMAT JSON) SELECT ${COLS} ${RANGE_WHERE}`, [priceFrom(i), priceFrom(i) + RANGE_WIDTH]);
          return { ...page, count: Math.round(plan[0].Plan["Plan Rows"]) };
        },
      },
      {
        name: "fuzzy_searchable",
        ours: (i) => ({ type_name: TYPE, filter: { operator: "fuzzy", path: ["attributes", "maker"], value: fuzzyTerm(i) }, limit: LIMIT }),
        raw: async (i) =>
          ids(
            await raw(
              `SELECT ${COLS} ${LIVE} AND ${MAKER} % platform_unaccent($3) AND similarity(${MAKER}, platform_unaccent($3)) >= ${FUZZY_THRESHOLD}::real ORDER BY e.id LIMIT ${LIMIT}`,
              [fuzzyTerm(i)],
            ),
          ),
      },
      {
        name: "aggregate_count_by_text",
        aggregate: true,
        path: "/entity/query/aggregate",
        ours: () => ({ type_name: TYPE, group_by: [["attributes", "region"]], aggregates: [{ fn: "count", as: "n" }] }),
        answer: (res) => groupLines(res.data.map((g) => [g.group["attributes.region"], g.n])),
        raw: async () => groupLines((await raw(`SELECT ${REGION} AS g, count(*) AS n ${LIVE} GROUP BY 1 ORDER BY 1 LIMIT ${LIMIT}`)).map((r) => [r.g, r.n])),
      },
      {
        name: "aggregate_sum_by_month",
        aggregate: true,
        path: "/entity/query/aggregate",
        ours: () => ({
          type_name: TYPE,
          group_by: [{ path: ["created_at"], bucket: "month", as: "month" }],
          aggregates: [{ fn: "sum", path: ["attributes", "price"], as: "revenue" }],
        }),
        answer: (res) => groupLines(res.data.map((g) => [g.group.month, g.revenue])),
        raw: async () =>
          groupLines(
            (await raw(`SELECT date_trunc('month', e.created_at, 'UTC') AS g, sum(${PRICE}) AS s ${LIVE} GROUP BY 1 ORDER BY 1 LIMIT ${LIMIT}`)).map((r) => [
              r.g,
              r.s,
            ]),
          ),
      },
    ];

    const state = new Map(figures.map((f) => [f.name, { warm: 0, ours: [], raw: [], spent: 0, hits: 0 }]));
    log(`[bench] query: ${figures.length} figures, ${WARMUP} warm-up and ${REQUESTS} measured requests each, round-robin`);
    for (let r = 0; ; r++) {
      let ran = 0;
      for (const f of figures) {
        const st = state.get(f.name);
        const over = st.spent > FIGURE_BUDGET_MS;
        const warming = st.warm < WARMUP && !over;
        if (!warming && st.ours.length >= (over ? MIN_REQUESTS : REQUESTS)) continue;
        ran++;
        const timeOurs = async () => {
          const started = performance.now();
          const res = await env.api("POST", f.path ?? "/entity/query", f.ours(r));
          return [performance.now() - started, (f.answer ?? pageAnswer)(res)];
        };
        const timeRaw = async () => {
          const started = performance.now();
          const answer = await f.raw(r);
          return [performance.now() - started, answer];
        };
        let ours, theirs;
        if (r % 2 === 0) {
          ours = await timeOurs();
          theirs = await timeRaw();
        } else {
          theirs = await timeRaw();
          ours = await timeOurs();
        }
        sameAnswer(f.name, r, ours[1], theirs[1]);
        if (ours[1].ids.length) st.hits++;
        st.spent += ours[0] + theirs[0];
        if (warming) st.warm++;
        else {
          st.ours.push(ours[0]);
          st.raw.push(theirs[0]);
        }
      }
      if (!ran) break;
      if ((r + 1) % 50 === 0) log(`[bench] query: round ${r + 1}`);
    }
    for (const [name, st] of state) {
      if (st.hits === 0) throw new Error(`${name}: no request found any row, so it measured nothing`);
      if (st.ours.length < REQUESTS) log(`[bench] query: ${name} over its ${FIGURE_BUDGET_MS / 1000} s budget, measured ${st.ours.length} requests`);
    }

    const stats = new Map(
      [...state].map(([name, st]) => {
        const o = [...st.ours].sort((a, b) => a - b);
        const w = [...st.raw].sort((a, b) => a - b);
        return [name, { p50: percentile(o, 50), p95: percentile(o, 95), rawP50: percentile(w, 50), rawP95: percentile(w, 95), requests: o.length }];
      }),
    );
    const floor = stats.get("floor");
    const out = [];
    for (const f of figures) {
      const s = stats.get(f.name);
      const isFloor = f.name === "floor";
      const marginal = isFloor ? null : s.p50 - floor.p50;
      const rawMarginal = isFloor ? null : s.rawP50 - floor.rawP50;
      // A raw marginal at or below zero (noise on a query as cheap as the floor) has no meaningful ratio.
      const marginalRatio = isFloor || rawMarginal <= 0 ? null : marginal / rawMarginal;
      const withinRatio = (target) => (marginalRatio !== null && marginalRatio <= target) || marginal - rawMarginal <= TARGET_MARGINAL_SLACK_MS;
      const meets = isFloor
        ? s.p50 <= TARGET_FLOOR_MS
        : f.aggregate
          ? withinRatio(TARGET_AGGREGATE_MARGINAL_RATIO)
          : s.p50 <= TARGET_QUERY_MS && withinRatio(TARGET_MARGINAL_RATIO);
      out.push(
        figure(f.name, round(s.p50), "ms", round(s.rawP50), round(s.p50 / s.rawP50), {
          marginal_ratio: round(marginalRatio),
          marginal_ms: round(marginal),
          raw_marginal_ms: round(rawMarginal),
          p95: round(s.p95),
          raw_p95: round(s.rawP95),
          meets_target: meets,
          requests: s.requests,
          rows: ROWS,
        }),
      );
    }
    const first = stats.get("keyset_page_1");
    const deep = stats.get(`keyset_page_${DEEP_PAGE}`);
    const deepOverFirst = deep.p50 / first.p50;
    out.push(
      figure("keyset_deep_over_first", round(deepOverFirst), "x", round(deep.rawP50 / first.rawP50), null, {
        marginal_ratio: null,
        marginal_ms: null,
        raw_marginal_ms: null,
        page: DEEP_PAGE,
        meets_target: deepOverFirst <= TARGET_DEEP_OVER_FIRST,
        requests: Math.min(first.requests, deep.requests),
        rows: ROWS,
      }),
    );
    const shapes = [
      {
        name: "eq_sorted",
        body: (i) => ({
          type_name: TYPE,
          filter: { operator: "eq", path: ["attributes", "category"], value: categoryOf(i) },
          sort: [{ path: ["attributes", "price"], direction: "asc" }],
          limit: LIMIT,
        }),
      },
      { name: "page_1", body: () => ({ type_name: TYPE, limit: LIMIT }) },
    ];
    out.push(...(await sharedFigures(env, { typeId: type.id, shapes, warmup: WARMUP, requests: REQUESTS, rows: ROWS }, log)));
    return out;
  } finally {
    client.release();
  }
}
