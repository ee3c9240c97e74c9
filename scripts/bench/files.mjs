// `npm run bench -- files`: CSV import and export of 100,000 rows against
// COPY of the same rows on the same database, and a 25 MiB artifact uploaded
// and downloaded through the service.
import { performance } from "node:perf_hooks";
import { randomBytes, createHash } from "node:crypto";
import { figure, round } from "../lib/bench-env.mjs";
import { copyFrom, copyTo } from "../lib/pg-copy.mjs";
import { productRows } from "../lib/product-rows.mjs";

const ROWS = Number(process.env.BENCH_FILES_ROWS ?? 100_000);
const FILE_MIB = Number(process.env.BENCH_FILE_MIB ?? 25);

const schema = {
  type: "object",
  required: ["sku", "title", "price"],
  properties: { sku: { type: "string" }, title: { type: "string" }, price: { type: "number" }, qty: { type: "integer" }, category: { type: "string" } },
};
const config = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["category"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
  ],
};

async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

async function artifactFigures(env, log) {
  const entity = await env.api("POST", "/entity/entities", {
    type_name: "BenchPart",
    name: "File holder",
    attributes: { sku: "FILE-1", title: "t", price: 1 },
  });
  const bytes = randomBytes(FILE_MIB * 1024 * 1024);
  const checksum = createHash("sha256").update(bytes).digest("hex");
  log(`[bench] files: artifact upload, ${FILE_MIB} MiB`);
  const upload = await env.api("POST", `/entity/entities/${entity.data.id}/artifacts/upload-url`, {
    artifact_type: "bench",
    filename: "blob.bin",
    content_type: "application/octet-stream",
  });
  const put = await timed(async () => {
    const res = await fetch(upload.data.upload_url, { method: "PUT", body: bytes, headers: { "Content-Type": "application/octet-stream" } });
    if (res.status >= 300) throw new Error(`upload answered ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  });
  const artifactId = upload.data.artifact.id;
  await env.api("POST", `/entity/entities/${entity.data.id}/artifacts/${artifactId}/confirm`, { checksum });
  log(`[bench] files: artifact download, ${FILE_MIB} MiB`);
  const link = await env.api("POST", `/entity/entities/${entity.data.id}/artifacts/${artifactId}/download-url`, {});
  const get = await timed(async () => {
    const res = await fetch(link.data.url);
    const got = Buffer.from(await res.arrayBuffer());
    if (createHash("sha256").update(got).digest("hex") !== checksum) throw new Error("downloaded bytes differ");
  });
  const rate = (ms) => round(FILE_MIB / (ms / 1000), 1);
  return [
    figure("artifact_upload", rate(put.ms), "MiB/s", null, null, { ms: round(put.ms, 0), mib: FILE_MIB }),
    figure("artifact_download", rate(get.ms), "MiB/s", null, null, { ms: round(get.ms, 0), mib: FILE_MIB }),
  ];
}

export async function run(env, log) {
  for (const name of ["BenchPart", "RawPart"]) await env.api("POST", "/entity/entity-types", { name, schema, status: "active", config });
  const {
    rows: [raw],
  } = await env.pool.query("SELECT id FROM entity_types WHERE name = 'RawPart' AND tenant_id = $1", [env.tenant.tenant_id]);
  const { csv, copy } = productRows(ROWS);
  const figures = [];

  log(`[bench] files: COPY in, ${ROWS} rows`);
  const client = await env.pool.connect();
  let rawIn, rawOut;
  try {
    rawIn = await timed(() =>
      copyFrom(client, `COPY entities (tenant_id, type_id, name, attributes, identifier_key) FROM STDIN WITH (FORMAT text)`, [
        Buffer.from(
          copy
            .split("\n")
            .filter(Boolean)
            .map((l) => `${env.tenant.tenant_id}\t${raw.id}\t${l}`)
            .join("\n") + "\n",
        ),
      ]),
    );
    log(`[bench] files: COPY out, ${ROWS} rows`);
    rawOut = await timed(() =>
      copyTo(
        client,
        `COPY (SELECT id, name, attributes->>'sku', attributes->>'title', attributes->>'price', attributes->>'qty', attributes->>'category'
                 FROM entities WHERE tenant_id = '${env.tenant.tenant_id}' AND type_id = '${raw.id}' AND deleted_at IS NULL ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)`,
      ),
    );
  } finally {
    client.release();
  }

  log(`[bench] files: import, ${ROWS} rows`);
  const importConfig = encodeURIComponent(JSON.stringify({ entity_type_name: "BenchPart" }));
  const imported = await timed(async () => {
    const res = await fetch(`${env.base}/entity/entities/import`, {
      method: "POST",
      headers: { Authorization: env.auth, "Content-Type": "text/csv", "X-Import-Config": importConfig },
      body: csv,
    });
    const body = await res.json();
    if (res.status !== 200 || body.data.created !== ROWS) throw new Error(`import answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  });
  log(`[bench] files: export, ${ROWS} rows`);
  const exported = await timed(async () => {
    const res = await fetch(`${env.base}/entity/entities/export`, {
      method: "POST",
      headers: { Authorization: env.auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type_name: "BenchPart" }),
    });
    const text = await res.text();
    const lines = text.split("\r\n").length - 2;
    if (res.status !== 200 || lines !== ROWS) throw new Error(`export answered ${res.status} with ${lines} rows`);
  });

  const perSecond = (ms) => round(ROWS / (ms / 1000), 0);
  figures.push(
    figure("csv_import", perSecond(imported.ms), "rows/s", perSecond(rawIn.ms), round(imported.ms / rawIn.ms), {
      ms: round(imported.ms, 0),
      raw_ms: round(rawIn.ms, 0),
      rows: ROWS,
    }),
  );
  figures.push(
    figure("csv_export", perSecond(exported.ms), "rows/s", perSecond(rawOut.ms), round(exported.ms / rawOut.ms), {
      ms: round(exported.ms, 0),
      raw_ms: round(rawOut.ms, 0),
      rows: ROWS,
    }),
  );
  figures.push(...(await artifactFigures(env, log)));
  return figures;
}
