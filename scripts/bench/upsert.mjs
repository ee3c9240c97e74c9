// `npm run bench -- upsert`: 100,000 rows of a 5-attribute type (2 indexed
// attributes, a 1-attribute key) upserted in one request, first as inserts
// then as replaces, against raw `INSERT ... SELECT FROM unnest(...) ON
// CONFLICT` in batches of 1000 from Node on the same database.
//
// The timed requests run unobserved. Memory is measured on requests of their
// own (the same rows into a third type, inserts then replaces), because the
// heap probe forces a full collection in the Worker every 250 ms, which
// slows the request it watches.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { figure, round } from "../lib/bench-env.mjs";

const ROWS = Number(process.env.BENCH_UPSERT_ROWS ?? 100_000);
const RAW_BATCH = 1000;

const schema = {
  type: "object",
  required: ["sku", "title", "price"],
  properties: {
    sku: { type: "string" },
    title: { type: "string" },
    price: { type: "number" },
    qty: { type: "integer" },
    category: { type: "string" },
  },
};

const config = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["category"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
  ],
};

function makeRows(version) {
  return Array.from({ length: ROWS }, (_, i) => ({
    name: `Product ${i}`,
    attributes: { sku: `SKU-${i}`, title: `Title ${i} v${version}`, price: (i % 1000) + version / 10, qty: i % 50, category: `cat-${i % 200}` },
  }));
}

/**
 * CPU time (ms) of this process and everything under it: the bridge and the
 * raw client here, workerd, Postgres and its backends (a backend that exited
 * is in its parent's cutime/cstime). On a shared machine wall time swings
 * with the others' load; CPU time much less, so the figures also carry
 * `cpu_ms`, `raw_cpu_ms` and `cpu_ratio` (Linux only, else null), and
 * `cpu_split`/`raw_cpu_split`: the same time by process name (postgres:
 * the backends and the postmaster; workerd: the Worker and its queue
 * consumer; node: this process, the bridge and the raw client in it).
 */
function treeCpu() {
  if (!existsSync("/proc/self/stat")) return null;
  const tick = 10; // ms per clock tick (USER_HZ 100)
  const procs = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      procs.set(Number(name), { comm, ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * tick });
    } catch {
      // exited while listed
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of procs) if (!mine.has(pid) && mine.has(p.ppid)) mine.add(pid), (grew = true);
  }
  const split = {};
  let total = 0;
  for (const pid of mine) {
    const p = procs.get(pid);
    if (!p) continue;
    total += p.cpu;
    split[p.comm] = (split[p.comm] ?? 0) + p.cpu;
  }
  return { total, split };
}

/** `after - before` per process name, as `name:ms` pairs. */
function splitText(before, after) {
  return Object.entries(after.split)
    .map(([name, ms]) => [name, ms - (before.split[name] ?? 0)])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name}:${ms}`)
    .join(",");
}

/**
 * Waits until the queue consumer has delivered every event of earlier
 * requests, so a timed phase does not share the machine with their delivery.
 */
async function drained(env, log) {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const {
      rows: [{ n }],
    } = await env.pool.query("SELECT count(*)::int AS n FROM event_outbox WHERE tenant_id = $1", [env.tenant.tenant_id]);
    if (n === 0) return;
    if (Date.now() > deadline) return log(`[bench] ${n} events still undelivered; timing anyway`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Wall and CPU time of `fn`. */
async function measured(fn) {
  const cpu0 = treeCpu();
  const started = performance.now();
  const result = await fn();
  const ms = performance.now() - started;
  const cpu1 = treeCpu();
  return { ms, cpuMs: cpu0 === null ? null : cpu1.total - cpu0.total, cpuSplit: cpu0 === null ? null : splitText(cpu0, cpu1), result };
}

async function rawUpsert(pool, tenantId, typeId, rows) {
  const client = await pool.connect();
  try {
    const started = performance.now();
    for (let i = 0; i < rows.length; i += RAW_BATCH) {
      const batch = rows.slice(i, i + RAW_BATCH);
      await client.query(
        `INSERT INTO entities AS e (tenant_id, type_id, name, attributes, identifier_key)
         SELECT $1, $2, n, a, k FROM unnest($3::text[], $4::jsonb[], $5::text[]) AS x(n, a, k)
         ON CONFLICT (tenant_id, type_id, identifier_key) WHERE deleted_at IS NULL
         DO UPDATE SET name = EXCLUDED.name, attributes = EXCLUDED.attributes, updated_at = now()`,
        [tenantId, typeId, batch.map((r) => r.name), batch.map((r) => JSON.stringify(r.attributes)), batch.map((r) => r.attributes.sku)],
      );
    }
    return performance.now() - started;
  } finally {
    client.release();
  }
}

async function oursUpsert(env, typeName, rows, { watchHeap = false } = {}) {
  const body = JSON.stringify({ type_name: typeName, data: rows });
  if (watchHeap) env.heap.start();
  const started = performance.now();
  const res = await env.api("POST", "/entity/entities/upsert", body);
  const ms = performance.now() - started;
  const peaks = watchHeap ? env.heap.stop() : null;
  return { ms, result: res.data, peaks, bodyBytes: body.length };
}

export async function run(env, log) {
  for (const name of ["BenchProduct", "RawProduct", "MemoryProduct"]) {
    await env.api("POST", "/entity/entity-types", { name, schema, status: "active", config });
  }
  const {
    rows: [raw],
  } = await env.pool.query("SELECT id FROM entity_types WHERE name = 'RawProduct' AND tenant_id = $1", [env.tenant.tenant_id]);

  const inserts = makeRows(1);
  const replaces = makeRows(2);
  const figures = [];
  const peaks = [];

  for (const [phase, rows, expect] of [
    ["insert", inserts, "created"],
    ["replace", replaces, "updated"],
  ]) {
    await drained(env, log);
    log(`[bench] upsert ${phase}: raw SQL, ${ROWS} rows`);
    const rawRun = await measured(() => rawUpsert(env.pool, env.tenant.tenant_id, raw.id, rows));
    const rawMs = rawRun.result;
    await drained(env, log);
    log(`[bench] upsert ${phase}: service, ${ROWS} rows`);
    // The body is built before the clock starts, as in oursUpsert.
    const body = JSON.stringify({ type_name: "BenchProduct", data: rows });
    const oursRun = await measured(() => env.api("POST", "/entity/entities/upsert", body));
    const ours = { ms: oursRun.ms, result: oursRun.result.data, bodyBytes: body.length };
    if (ours.result[expect] !== ROWS) throw new Error(`expected ${ROWS} ${expect}, got ${JSON.stringify({ ...ours.result, ids: undefined })}`);
    log(`[bench] upsert ${phase}: service, ${ROWS} rows, heap watched`);
    const watched = await oursUpsert(env, "MemoryProduct", rows, { watchHeap: true });
    if (watched.result[expect] !== ROWS) throw new Error(`expected ${ROWS} ${expect} in the memory pass`);
    peaks.push({ ...watched.peaks, body: watched.bodyBytes });
    const oursRate = ROWS / (ours.ms / 1000);
    const rawRate = ROWS / (rawMs / 1000);
    figures.push(
      figure(`upsert_${phase}`, round(oursRate, 0), "rows/s", round(rawRate, 0), round(ours.ms / rawMs), {
        ms: round(ours.ms, 0),
        raw_ms: round(rawMs, 0),
        body_mib: round(ours.bodyBytes / 1048576),
        cpu_ms: round(oursRun.cpuMs, 0),
        raw_cpu_ms: round(rawRun.cpuMs, 0),
        cpu_ratio: oursRun.cpuMs === null ? null : round(oursRun.cpuMs / rawRun.cpuMs),
        cpu_split: oursRun.cpuSplit,
        raw_cpu_split: rawRun.cpuSplit,
      }),
    );
  }
  const mib = (bytes) => round(bytes / 1048576, 1);
  // The request body sits outside the JS heap (an ArrayBuffer), once.
  const bodyMib = mib(Math.max(...peaks.map((p) => p.body)));
  figures.push(
    figure("upsert_worker_memory_peak", round(mib(Math.max(...peaks.map((p) => p.live))) + bodyMib, 1), "MiB", null, null, {
      live_heap_mib: mib(Math.max(...peaks.map((p) => p.live))),
      body_mib: bodyMib,
      heap_with_garbage_mib: mib(Math.max(...peaks.map((p) => p.used))),
      limit_mib: 128,
      rows: ROWS,
    }),
  );
  return figures;
}
