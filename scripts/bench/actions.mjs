// `npm run bench -- actions`: the data actions of a workflow run on large
// inputs, with the CSV and the bytes made here, uploaded as temp files
// (POST /entity/temp-files) and the workflows set up and started through
// the API. Each run's policy grants entity read, create and update.
//
// - `import_entities_from_csv`: importEntitiesFromCsv of 100,000 rows (a
//   100,000-row CSV temp file into a fresh type): rows/s from sending the
//   dispatch to the run row's `finished_at`. Raw: POST
//   /entity/entities/import of the same CSV into another fresh type, timed
//   from the request to its answer, measured first so the growth of the
//   entities table falls on ours; ratio = ours' time over the REST import's
//   (1.0 = the action costs what the route does; the action also reads the
//   file from storage and runs as a run). Every row is checked present
//   afterwards (count by SQL).
// - `transform_csv_stream`: transformCsvStream of the same 100,000 rows
//   through a JSONata mapping (rename, uppercase, arithmetic): rows/s,
//   dispatch to `finished_at`. Ratio against the same REST import, as the
//   issue asks: the time to read, map and write the file again over the
//   time to import it, so below 1.0 reshaping a file before importing it
//   costs less than the import itself. The output is read back: every row
//   there, the first row mapped right.
// - Both figures carry the raw-SQL context: COPY of the same 100,000 rows
//   (name, attributes, key) into a third type from Node over one connection,
//   as `copy_rows_per_s` and ours over it as `copy_ratio`.
// - `zip_round_trip_memory`: a 25 MiB temp file (64 KiB blocks, random and
//   CSV-like text alternating, so the zip stays within the 25 MiB a temp
//   file may hold) zipped by zipCompress and unzipped by zipDecompress in
//   one run, the extracted file checked byte for byte. The Worker's memory
//   is sampled through the V8 inspector (scripts/lib/heap.mjs) from dispatch
//   to the run's end, every 250 ms, each sample followed by a full
//   collection. The inspector lists one user isolate, `core:user:<name>`,
//   and the Durable Objects that execute the run's actions live in it:
//   nothing but the dispatch reaches the Worker while the run goes (its end
//   is polled in Postgres), yet the samples rise over the idle baseline
//   (`rise_mib`) with the bytes the actions hold. The figure is the peak as
//   found (garbage not yet collected) with the ArrayBuffer backing stores
//   added (the bytes in flight, outside the JS heap); it must stay under 128
//   MiB, or the suite fails. `live_mib` is the peak right after a
//   collection.
import { createHash, randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { figure, round } from "../lib/bench-env.mjs";
import { copyFrom } from "../lib/pg-copy.mjs";
import { productRows } from "../lib/product-rows.mjs";

const ROWS = Number(process.env.BENCH_ACTIONS_ROWS ?? 100_000);
const ZIP_MIB = 25;
const MAX_MEMORY_MIB = 128;

const POLL_MS = 50;
// A run not finished by then is stuck: the 100,000-row runs take well under a minute.
const RUN_WAIT_MS = 180_000;

const TRIGGER = "manual";
const JOB = "data";
const TYPES = { rest: "BenchImportRest", action: "BenchImportAction", raw: "BenchImportRaw" };

const schema = {
  type: "object",
  required: ["sku", "title", "price"],
  properties: { sku: { type: "string" }, title: { type: "string" }, price: { type: "number" }, qty: { type: "integer" }, category: { type: "string" } },
};
const typeConfig = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["category"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
  ],
};

// Every value a string, as the transform reads them; the output keeps the import's columns.
const MAPPING = `{ "name": name, "sku": sku, "title": $uppercase(title), "price": $string($number(price) * 2), "qty": qty, "category": "mapped-" & category }`;

const MIB = 1024 * 1024;
const mib = (bytes) => round(bytes / MIB, 1);
/** Epoch milliseconds with sub-millisecond precision, comparable to Postgres timestamps on the same host. */
const epochNow = () => performance.timeOrigin + performance.now();

/** ZIP_MIB of 64 KiB blocks, random and repeated CSV-like text alternating. */
function mixedBytes() {
  const block = 64 * 1024;
  const text = Buffer.alloc(block, "id,name,amount\r\n42,widget,19.99\r\n");
  const out = Buffer.alloc(ZIP_MIB * MIB);
  for (let at = 0, i = 0; at < out.length; at += block, i++) (i % 2 ? text : randomBytes(block)).copy(out, at);
  return out;
}

async function uploadTempFile(env, name, contentType, body) {
  const res = await fetch(`${env.base}/entity/temp-files`, {
    method: "POST",
    headers: { Authorization: env.auth, "X-Temp-File-Name": name, "Content-Type": contentType },
    body,
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`temp file upload answered ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.data;
}

async function downloadTempFile(env, id) {
  const res = await fetch(`${env.base}/entity/temp-files/${id}`, { headers: { Authorization: env.auth } });
  if (res.status !== 200) throw new Error(`temp file ${id} answered ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A workflow of one job of `actions`, started by hand, activated with `policyId`. */
async function workflowOf(env, name, actions, policyId) {
  const definition_json = { jobs: [{ id: JOB, actions }], triggers: [{ id: TRIGGER, webhook: { methods: ["POST"] } }] };
  const { id } = (await env.api("POST", "/definition/workflows", { name, definition_json })).data;
  await env.api("POST", `/workflows/${id}/activate`, { policy_id: policyId });
  return id;
}

/** Dispatches a run of `workflowId` and waits for its end; answers the ms from sending to `finished_at` and the run's outputs. */
async function timedRun(env, workflowId, input = {}) {
  const sentAt = epochNow();
  const { data } = await env.api("POST", "/workflows/wr", { workflow_id: workflowId, trigger_id: TRIGGER, input });
  const runId = data.workflow_run.id;
  const deadline = performance.now() + RUN_WAIT_MS;
  for (;;) {
    const { rows } = await env.pool.query(
      `SELECT status, error, outputs, extract(epoch FROM finished_at)::float8 * 1000 AS finished FROM workflow_runs WHERE id = $1`,
      [runId],
    );
    const row = rows[0];
    if (row && row.status !== "pending" && row.status !== "running") {
      if (row.status !== "success") throw new Error(`run ${runId} ended ${row.status}: ${JSON.stringify(row.error)}`);
      return { ms: row.finished - sentAt, outputs: row.outputs[JOB] };
    }
    if (performance.now() > deadline) throw new Error(`run ${runId} is still ${row?.status ?? "missing"} after ${RUN_WAIT_MS} ms`);
    await sleep(POLL_MS);
  }
}

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

async function liveEntities(env, typeId) {
  const { rows } = await env.pool.query(`SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND type_id = $2 AND deleted_at IS NULL`, [
    env.tenant.tenant_id,
    typeId,
  ]);
  return rows[0].n;
}

async function setUp(env) {
  const typeIds = {};
  for (const [key, name] of Object.entries(TYPES)) {
    typeIds[key] = (await env.api("POST", "/entity/entity-types", { name, schema, status: "active", config: typeConfig })).data.id;
  }
  const policyId = (
    await env.api("POST", "/access/policies", { name: "bench-actions", grants: [{ resource: "entity", actions: ["read", "create", "update"] }] })
  ).data.id;
  return { typeIds, policyId };
}

const perSecond = (ms) => round(ROWS / (ms / 1000), 0);

/** The CSV as a temp file, and the two baselines of the CSV figures: COPY of its rows and the REST import of it. */
async function csvBaselines(env, log, setup) {
  const { csv, copy } = productRows(ROWS);
  const file = await uploadTempFile(env, "rows.csv", "text/csv", csv);

  log(`[bench] actions: COPY in, ${ROWS} rows (raw SQL context)`);
  const client = await env.pool.connect();
  let copied;
  try {
    const lines = copy
      .split("\n")
      .filter(Boolean)
      .map((l) => `${env.tenant.tenant_id}\t${setup.typeIds.raw}\t${l}`);
    copied = await timed(() =>
      copyFrom(client, `COPY entities (tenant_id, type_id, name, attributes, identifier_key) FROM STDIN WITH (FORMAT text)`, [
        Buffer.from(lines.join("\n") + "\n"),
      ]),
    );
  } finally {
    client.release();
  }

  log(`[bench] actions: REST import, ${ROWS} rows`);
  const importConfig = encodeURIComponent(JSON.stringify({ entity_type_name: TYPES.rest }));
  const rest = await timed(async () => {
    const res = await fetch(`${env.base}/entity/entities/import`, {
      method: "POST",
      headers: { Authorization: env.auth, "Content-Type": "text/csv", "X-Import-Config": importConfig },
      body: csv,
    });
    const body = await res.json();
    if (res.status !== 200 || body.data.created !== ROWS) throw new Error(`REST import answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  });
  log(`[bench] actions: COPY ${round(copied.ms, 0)} ms, REST import ${round(rest.ms, 0)} ms`);
  return { file, copyMs: copied.ms, restMs: rest.ms };
}

/** What both CSV figures carry beside their own: the REST import and COPY of the same rows. */
function against(ms, base) {
  return { ms: round(ms, 0), rest_ms: round(base.restMs, 0), copy_rows_per_s: perSecond(base.copyMs), copy_ratio: round(ms / base.copyMs) };
}

async function importFigure(env, log, setup, base) {
  const workflow = await workflowOf(
    env,
    "bench-actions-import",
    [{ stepId: "imported", name: "importEntitiesFromCsv", config: { tempFileId: base.file.id, typeName: TYPES.action } }],
    setup.policyId,
  );
  log(`[bench] actions: importEntitiesFromCsv, ${ROWS} rows`);
  const imported = await timedRun(env, workflow);
  const present = await liveEntities(env, setup.typeIds.action);
  if (present !== ROWS) throw new Error(`importEntitiesFromCsv: expected ${ROWS} entities of ${TYPES.action}, found ${present}`);
  return figure("import_entities_from_csv", perSecond(imported.ms), "rows/s", perSecond(base.restMs), round(imported.ms / base.restMs), {
    ...against(imported.ms, base),
    rows_present: present,
    rows: ROWS,
  });
}

async function transformFigure(env, log, setup, base) {
  const workflow = await workflowOf(
    env,
    "bench-actions-transform",
    [{ stepId: "mapped", name: "transformCsvStream", config: { tempFileId: base.file.id, mapping: MAPPING } }],
    setup.policyId,
  );
  log(`[bench] actions: transformCsvStream, ${ROWS} rows`);
  const transformed = await timedRun(env, workflow);
  const out = (await downloadTempFile(env, transformed.outputs.mapped.temp_file_id)).toString("utf8").split(/\r?\n/).filter(Boolean);
  const expectedFirst = `Product 0,SKU-0,"TITLE 0, ""QUOTED""",1,0,mapped-cat-0`;
  if (out.length !== ROWS + 1 || out[1] !== expectedFirst) {
    throw new Error(
      `transformCsvStream: expected ${ROWS + 1} lines starting ${JSON.stringify(expectedFirst)}, found ${out.length}: ${JSON.stringify(out.slice(0, 2))}`,
    );
  }
  return figure("transform_csv_stream", perSecond(transformed.ms), "rows/s", perSecond(base.restMs), round(transformed.ms / base.restMs), {
    ...against(transformed.ms, base),
    output_bytes: transformed.outputs.mapped.size,
    rows: ROWS,
  });
}

async function zipFigure(env, log, setup, failures) {
  const bytes = mixedBytes();
  const checksum = createHash("sha256").update(bytes).digest("hex");
  const file = await uploadTempFile(env, "blob.bin", "application/octet-stream", bytes);
  const workflow = await workflowOf(
    env,
    "bench-actions-zip",
    [
      { stepId: "zipped", name: "zipCompress", config: { files: [{ tempFileId: file.id, path: "blob.bin" }] } },
      { stepId: "unzipped", name: "zipDecompress", config: { tempFileId: "{{ outputs.zipped.temp_file_id }}" } },
    ],
    setup.policyId,
  );
  // The idle baseline, the upload's garbage collected: an idle isolate answers a
  // collection only when it next runs a task, so a few cheap requests give it some.
  env.heap.start();
  for (let i = 0; i < 4; i++) {
    await (await fetch(`${env.base}/healthz`)).arrayBuffer();
    await sleep(300);
  }
  const idle = env.heap.stop();
  log(`[bench] actions: zip round trip of ${ZIP_MIB} MiB, memory sampled`);
  let peaks;
  env.heap.start();
  const run = await timedRun(env, workflow).finally(() => (peaks = env.heap.stop()));
  const extracted = run.outputs.unzipped.files;
  if (extracted.length !== 1 || extracted[0].path !== "blob.bin") throw new Error(`zipDecompress answered ${JSON.stringify(extracted)}`);
  const back = await downloadTempFile(env, extracted[0].temp_file_id);
  if (createHash("sha256").update(back).digest("hex") !== checksum) throw new Error(`the unzipped file differs from the ${ZIP_MIB} MiB input`);

  const peak = peaks.usedWithBuffers;
  if (peak >= MAX_MEMORY_MIB * MIB) failures.push(`zip_round_trip_memory: ${mib(peak)} MiB at the peak, the limit is ${MAX_MEMORY_MIB} MiB`);
  return figure("zip_round_trip_memory", mib(peak), "MiB", null, null, {
    live_mib: mib(peaks.liveWithBuffers),
    js_heap_mib: mib(peaks.used),
    js_heap_live_mib: mib(peaks.live),
    idle_mib: mib(idle.liveWithBuffers),
    rise_mib: mib(peak - idle.liveWithBuffers),
    zip_mib: mib(run.outputs.zipped.size),
    seconds: round(run.ms / 1000, 1),
    input_mib: ZIP_MIB,
    limit_mib: MAX_MEMORY_MIB,
    meets_target: peak < MAX_MEMORY_MIB * MIB,
  });
}

/**
 * Each figure is logged as it is measured; one that fails (or a zip round
 * trip over the memory limit) loses no other's numbers and fails the suite
 * at the end.
 */
export async function run(env, log) {
  const setup = await setUp(env);
  const failures = [];
  const figures = [];
  const measured = async (measure) => {
    try {
      const f = await measure();
      log(`[bench] actions: ${JSON.stringify(f)}`);
      figures.push(f);
    } catch (e) {
      log(`[bench] actions: ${e.stack ?? e}`);
      failures.push(e.message);
    }
  };
  await measured(() => zipFigure(env, log, setup, failures));
  const base = await csvBaselines(env, log, setup);
  await measured(() => transformFigure(env, log, setup, base));
  await measured(() => importFigure(env, log, setup, base));
  if (failures.length) throw new Error(failures.join("; "));
  return figures;
}
