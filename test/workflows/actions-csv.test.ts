// The CSV actions through real runs: files uploaded as temp files over the
// API, a manual workflow bound to a policy, the run read back over the API,
// and what the actions made read back over the API too.
import { strToU8, Zip, ZipDeflate, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { BASE, call, createTenant, type TenantCreds } from "../support/api";
import { createType, eventsOf } from "../support/entities";
import { fetchUrl } from "../entity/files-support";
import { policyGranting } from "./actions-support";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

const partSchema = {
  type: "object",
  required: ["sku"],
  properties: { sku: { type: "string" }, title: { type: "string" }, price: { type: "number" } },
};

async function upload(t: TenantCreds, bytes: Uint8Array | string, name = "data.csv", contentType = "text/csv"): Promise<string> {
  const res = await call("POST", "/entity/temp-files", {
    auth: t.auth,
    rawBody: typeof bytes === "string" ? strToU8(bytes) : bytes,
    headers: { "X-Temp-File-Name": name, "Content-Type": contentType },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id;
}

async function download(t: TenantCreds, id: string): Promise<string> {
  const res = await fetchUrl(`${BASE}/entity/temp-files/${id}`, { headers: { Authorization: t.auth } });
  expect(res.status).toBe(200);
  return new TextDecoder().decode(res.bytes);
}

/** A run of one job `csv` whose actions read the dispatch input as `input.files`. */
async function runJob(t: TenantCreds, policyId: string, actions: object[], files: Record<string, unknown> = {}) {
  const { id } = await manualWorkflow(t, [{ id: "csv", input: { files: "{{ context.input }}" }, actions }], {}, { policy_id: policyId });
  return runRecord(t, await dispatched(t, id, files));
}

/** The error of the run's failed action, after checking the run failed there. */
function failure(run: any) {
  expect(run.status, JSON.stringify(run)).toBe("error");
  const failed = run.job_runs[0].action_runs.find((a: any) => a.status === "error");
  expect(failed, JSON.stringify(run.job_runs[0])).toBeDefined();
  return failed.error as { status: number; code: string; message: string; details: any };
}

async function tenantWithParts() {
  const t = await createTenant();
  const type = await createType(t.auth, { name: "Part", schema: partSchema, config: { identifier_key: ["sku"] } });
  // The import goes through upsert, which also checks entity:update on the type.
  return { t, typeId: type.id, policy: await policyGranting(t, ["entity:read", "entity:create", "entity:update"]) };
}

const transform = (config: Record<string, unknown>) => ({ stepId: "t", name: "transformCsvStream", config: { tempFileId: "{{ input.files.a }}", ...config } });

describe("transform, merge, import, export in one run", () => {
  it("maps and drops rows, merges by header, imports through the REST path and exports what was imported", async () => {
    const { t, policy } = await tenantWithParts();
    const a = await upload(t, "code,label,cost\r\nB1,Bolt,0.25\r\nN1,Nut,\r\nX9,skip me,1\r\n", "a.csv");
    const b = await upload(t, 'sku,name,title,price,colour\r\nW1,Washer,"Flat, steel",1.5,grey\r\n', "b.csv");
    const run = await runJob(
      t,
      policy,
      [
        transform({ mapping: 'code = "X9" ? null : {"name": label, "sku": code, "price": cost, "title": label & " part"}', name: "shaped.csv" }),
        { stepId: "m", name: "mergeCsvStreams", config: { tempFileIds: ["{{ outputs.t.temp_file_id }}", "{{ input.files.b }}"] } },
        {
          stepId: "i",
          name: "importEntitiesFromCsv",
          config: { tempFileId: "{{ outputs.m.temp_file_id }}", typeName: "Part", columnMapping: { name: "name", sku: "sku", price: "price", title: "title" } },
        },
        {
          stepId: "e",
          name: "exportEntitiesToCsv",
          config: { typeName: "Part", columns: ["name", "sku", "price", "title"], sort: [{ path: ["attributes", "sku"] }], escapeFormulas: false },
        },
        {
          stepId: "f",
          name: "exportEntitiesToCsv",
          config: { typeName: "Part", filter: { operator: "gte", path: ["attributes", "price"], value: 1 }, name: "dear.csv" },
        },
      ],
      { a, b },
    );
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { t: shaped, m: merged, i: imported, e: exported } = run.outputs.csv;

    expect(shaped).toMatchObject({ name: "shaped.csv", content_type: "text/csv", rows: 2 });
    // An empty cell is no value: the mapping's `price` is undefined, written as an empty cell again.
    const shapedText = "name,sku,price,title\r\nBolt,B1,0.25,Bolt part\r\nNut,N1,,Nut part\r\n";
    expect(await download(t, shaped.temp_file_id)).toBe(shapedText);
    expect(shaped.size).toBe(shapedText.length);

    expect(merged).toMatchObject({ name: "merged.csv", content_type: "text/csv", rows: 3 });
    expect(await download(t, merged.temp_file_id)).toBe(
      'name,sku,price,title,colour\r\nBolt,B1,0.25,Bolt part,\r\nNut,N1,,Nut part,\r\nWasher,W1,1.5,"Flat, steel",grey\r\n',
    );

    expect(imported).toMatchObject({ created: 3, updated: 0, unchanged: 0, ignored: 0, errors: [] });
    expect(imported.ids).toHaveLength(3);

    const query = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Part", sort: [{ path: ["attributes", "sku"] }] } });
    expect(query.status).toBe(200);
    expect(query.json.data.map((e: any) => [e.name, e.attributes])).toEqual([
      ["Bolt", { sku: "B1", price: 0.25, title: "Bolt part" }],
      ["Nut", { sku: "N1", title: "Nut part" }],
      ["Washer", { sku: "W1", price: 1.5, title: "Flat, steel" }],
    ]);
    expect(new Set(query.json.data.map((e: any) => e.id))).toEqual(new Set(imported.ids));
    for (const id of imported.ids) expect((await eventsOf(t.auth, id)).map((e) => [e.action, e.suppressed])).toEqual([["created", false]]);

    expect(exported).toMatchObject({ name: "Part.csv", content_type: "text/csv" });
    expect(await download(t, exported.temp_file_id)).toBe(
      'name,sku,price,title\r\nBolt,B1,0.25,Bolt part\r\nNut,N1,,Nut part\r\nWasher,W1,1.5,"Flat, steel"\r\n',
    );
    // Filtered, with the schema's columns (id, name, then attributes alphabetically), as the REST export writes them.
    const washer = query.json.data[2];
    expect(run.outputs.csv.f).toMatchObject({ name: "dear.csv", content_type: "text/csv" });
    expect(await download(t, run.outputs.csv.f.temp_file_id)).toBe(`id,name,price,sku,title\r\n${washer.id},Washer,1.5,W1,"Flat, steel"\r\n`);
  });

  it("imports again as the REST import does (type by id): merge counts the unchanged rows, and suppressEvents writes no events", async () => {
    const { t, typeId, policy } = await tenantWithParts();
    const a = await upload(t, "name,sku,price\r\nBolt,B1,1\r\nNut,N1,2\r\n");
    const b = await upload(t, "name,sku,price\r\nBolt,B1,1\r\nNut,N1,3\r\nPin,P1,4\r\n");
    const type = (stepId: string) => (stepId === "first" ? { typeName: "Part" } : { entityTypeId: typeId });
    const importOf = (stepId: string, file: string) => ({
      stepId,
      name: "importEntitiesFromCsv",
      config: { tempFileId: `{{ input.files.${file} }}`, ...type(stepId), onConflict: "merge", suppressEvents: stepId === "second" },
    });
    const run = await runJob(t, policy, [importOf("first", "a"), importOf("second", "b")], { a, b });
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    expect(run.outputs.csv.first).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(run.outputs.csv.second).toMatchObject({ created: 1, updated: 1, unchanged: 1 });
    const [pin] = run.outputs.csv.second.ids.slice(-1);
    expect((await eventsOf(t.auth, pin)).map((e) => [e.action, e.suppressed])).toEqual([["created", true]]);
  });

  it("refuses an import's bad rows with the REST import's lines, writing nothing", async () => {
    const { t, policy } = await tenantWithParts();
    const a = await upload(t, "name,sku,price\r\nBolt,B1,1\r\nNut,N1,cheap\r\n");
    const error = failure(
      await runJob(t, policy, [{ stepId: "i", name: "importEntitiesFromCsv", config: { tempFileId: "{{ input.files.a }}", typeName: "Part" } }], { a }),
    );
    expect([error.status, error.code, error.details.errors]).toEqual([422, "VALIDATION_FAILED", ['line 3, column "price": "cheap" is not a number']]);
    const query = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Part" } });
    expect(query.json.data).toEqual([]);
  });

  it("merges with the first file's columns only when asked, and reads another delimiter", async () => {
    const { t, policy } = await tenantWithParts();
    const a = await upload(t, "sku;name\r\nB1;Bolt\r\n");
    const b = await upload(t, 'name;extra;sku\r\nNut;x;N1\r\n"Pin; long";;P1\r\n');
    const run = await runJob(
      t,
      policy,
      [
        {
          stepId: "m",
          name: "mergeCsvStreams",
          config: { tempFileIds: ["{{ input.files.a }}", "{{ input.files.b }}"], columns: "first", delimiter: ";", name: "all.csv" },
        },
      ],
      { a, b },
    );
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    expect(run.outputs.csv.m).toMatchObject({ name: "all.csv", rows: 3 });
    expect(await download(t, run.outputs.csv.m.temp_file_id)).toBe("sku,name\r\nB1,Bolt\r\nN1,Nut\r\nP1,Pin; long\r\n");
  });

  it("keeps a quoted empty string apart from an empty cell, and writes the columns given even when no row is kept", async () => {
    const { t, policy } = await tenantWithParts();
    const a = await upload(t, 'k,v\r\n1,""\r\n2,\r\n');
    const run = await runJob(
      t,
      policy,
      [
        transform({ mapping: '{"k": k, "v": v, "has": $exists(v)}' }),
        { stepId: "none", name: "transformCsvStream", config: { tempFileId: "{{ input.files.a }}", mapping: "null", columns: ["k", "v"] } },
      ],
      { a },
    );
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    expect(await download(t, run.outputs.csv.t.temp_file_id)).toBe('k,v,has\r\n1,"",true\r\n2,,false\r\n');
    expect(run.outputs.csv.none.rows).toBe(0);
    expect(await download(t, run.outputs.csv.none.temp_file_id)).toBe("k,v\r\n");
  });
});

describe("transformCsvStream mappings", () => {
  const failing = async (mapping: string, csv = "a,b\r\n1,2\r\n3,4\r\n", extra: Record<string, unknown> = {}) => {
    const { t, policy } = await tenantWithParts();
    const a = await upload(t, csv);
    return failure(await runJob(t, policy, [transform({ mapping, ...extra })], { a }));
  };

  it("refuses a mapping that does not compile, naming config.mapping", async () => {
    const error = await failing('{"a": ');
    expect([error.status, error.code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(error.details.errors).toHaveLength(1);
    expect(error.details.errors[0]).toMatch(/^config\.mapping: invalid JSONata expression: .+ \(at character \d+\)$/);
  });

  it("stops a runaway mapping at its bound, on the row where it ran", async () => {
    const range = await failing("$count([1..10000000]) > 0 ? {'a': a} : null");
    expect([range.status, range.code, range.message]).toEqual([
      422,
      "UNPROCESSABLE_ENTITY",
      "config.mapping: line 2: expression built a sequence of more than 1000000 items",
    ]);
    expect(range.details).toMatchObject({ field: "config.mapping", line: 2 });
    const loop = await failing('a = "3" ? (function($f){$f($f)})(function($f){$f($f)}) : {"a": a}');
    // Whichever of its clock and its step budget runs out first.
    expect(loop.message).toMatch(/^config\.mapping: line 3: expression (exceeded 1000000 evaluation steps|ran longer than 1000 ms)$/);
  });

  it("refuses an answer that is not an object, and keys outside the columns", async () => {
    expect((await failing("[a, b]")).message).toBe("config.mapping: line 2: answered an array; it must answer an object, or null to drop the row");
    expect((await failing('a = "1" ? {"a": a} : {"a": a, "c": b}')).message).toBe(
      'config.mapping: line 3: answered "c", not among the columns ["a"]; set config.columns to every output column',
    );
    expect((await failing('{"x": a}', undefined, { columns: ["a"] })).message).toBe(
      'config.mapping: line 2: answered "x", not among the columns ["a"]; set config.columns to every output column',
    );
  });

  it("refuses a CSV that does not parse or names a column twice, naming the file's field", async () => {
    const ragged = await failing('{"a": a}', "a,b\r\n1,2\r\n3\r\n");
    expect([ragged.code, ragged.details.errors]).toEqual([
      "VALIDATION_FAILED",
      [expect.stringMatching(/^config\.tempFileId: Invalid Record Length: .*line 3/)],
    ]);
    const twice = await failing('{"a": a}', "a,b,a\r\n1,2,3\r\n");
    expect(twice.details.errors).toEqual(['config.tempFileId: column "a" appears twice in the header']);
    const empty = await failing('{"a": a}', "");
    expect(empty.details.errors).toEqual(["config.tempFileId: the CSV has no header row"]);
  });
});

describe("csvFromZipStream", () => {
  const csv = 'sku,name\r\nB1,"Bolt, M6"\r\nN1,Nut\r\n';

  /** A zip written by fflate's streaming Zip: sizes come after the data (data descriptors). */
  function streamedZip(files: Record<string, string>): Uint8Array {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      parts.push(chunk);
    });
    for (const [name, text] of Object.entries(files)) {
      const entry = new ZipDeflate(name, { level: 6 });
      zip.add(entry);
      entry.push(strToU8(text), true);
    }
    zip.end();
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
    return out;
  }

  it("streams the first .csv entry out of a zip, and a named one, byte for byte", async () => {
    const { t, policy } = await tenantWithParts();
    const plain = await upload(
      t,
      zipSync({ "docs/readme.txt": strToU8("not this"), "data/parts.csv": strToU8(csv), "data/other.csv": strToU8("x\r\n1\r\n") }),
      "in.zip",
      "application/zip",
    );
    const streamed = await upload(t, streamedZip({ "a.txt": "skip", "other.csv": "x\r\n1\r\n", "nested/parts.csv": csv }), "in.zip", "application/zip");
    const run = await runJob(
      t,
      policy,
      [
        { stepId: "first", name: "csvFromZipStream", config: { tempFileId: "{{ input.files.plain }}" } },
        { stepId: "named", name: "csvFromZipStream", config: { tempFileId: "{{ input.files.streamed }}", entry: "nested/parts.csv", name: "parts-2.csv" } },
        { stepId: "i", name: "importEntitiesFromCsv", config: { tempFileId: "{{ outputs.named.temp_file_id }}", typeName: "Part" } },
      ],
      { plain, streamed },
    );
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { first, named, i } = run.outputs.csv;
    expect(first).toMatchObject({ entry: "data/parts.csv", name: "parts.csv", content_type: "text/csv", size: csv.length });
    expect(await download(t, first.temp_file_id)).toBe(csv);
    expect(named).toMatchObject({ entry: "nested/parts.csv", name: "parts-2.csv", size: csv.length });
    expect(await download(t, named.temp_file_id)).toBe(csv);
    expect(i).toMatchObject({ created: 2 });
  });

  it("refuses a zip bomb while inflating, a missing entry, and bytes that are not a zip", async () => {
    const { t, policy } = await tenantWithParts();
    // 26 MiB of zeros deflate to about 26 KB: one past the 25 MiB cap.
    const bomb = await upload(t, zipSync({ "big.csv": new Uint8Array(26 * 1024 * 1024) }, { level: 9 }), "bomb.zip", "application/zip");
    const small = await upload(t, zipSync({ "a.txt": strToU8("x") }), "small.zip", "application/zip");
    const junk = await upload(t, "this is not a zip file, just text\r\n", "junk.zip", "application/zip");
    const runOf = async (config: Record<string, unknown>) =>
      failure(await runJob(t, policy, [{ stepId: "z", name: "csvFromZipStream", config }], { bomb, small, junk }));

    const tooBig = await runOf({ tempFileId: "{{ input.files.bomb }}" });
    expect([tooBig.status, tooBig.code, tooBig.details.limit]).toEqual([413, "PAYLOAD_TOO_LARGE", 25 * 1024 * 1024]);
    const named = await runOf({ tempFileId: "{{ input.files.small }}", entry: "nope.csv" });
    expect([named.code, named.details.errors]).toEqual(["VALIDATION_FAILED", ['config.entry: the zip has no entry "nope.csv"']]);
    const noCsv = await runOf({ tempFileId: "{{ input.files.small }}" });
    expect(noCsv.details.errors).toEqual(["config.tempFileId: the zip has no entry whose name ends in .csv"]);
    const notZip = await runOf({ tempFileId: "{{ input.files.junk }}" });
    expect(notZip.details.errors).toEqual(["config.tempFileId: the zip has no entry whose name ends in .csv"]);
  });
});

describe("refusals", () => {
  it("refuses bad config with the path of each bad field", async () => {
    const { t, policy } = await tenantWithParts();
    // Each refused before anything is read: the temp file ids need not exist.
    const cases: [object, string[]][] = [
      [
        { name: "transformCsvStream", config: { tempFileId: "nope", columns: [] } },
        ["config.mapping: is required", 'config.tempFileId: String does not match format "uuid"', "config.columns: Array has too few items (0 < 1)"],
      ],
      [
        { name: "mergeCsvStreams", config: { tempFileIds: [crypto.randomUUID()], columns: "all" } },
        ["config.tempFileIds: Array has too few items (1 < 2)", 'config.columns: must be one of ["union","first"]'],
      ],
      [
        { name: "importEntitiesFromCsv", config: { tempFileId: crypto.randomUUID(), onConflict: "overwrite" } },
        [
          "config: does not match any allowed shape (entityTypeId is required | does not match any allowed shape (entityTypeName is required | typeName is required))",
          'config.onConflict: must be one of ["raise","ignore","merge","replace"]',
        ],
      ],
      [
        { name: "exportEntitiesToCsv", config: { typeName: "Part", columns: "name", escapeFormulas: "no" } },
        ["config.columns: must be array, got string", "config.escapeFormulas: must be boolean, got string"],
      ],
      [{ name: "csvFromZipStream", config: { tempFileId: crypto.randomUUID(), entries: ["a.csv"] } }, ["config.entries: is not allowed"]],
      [
        { name: "transformCsvStream", config: { tempFileId: crypto.randomUUID(), mapping: "$", delimiter: ";;" } },
        ["config.delimiter: String is too long (2 > 1)"],
      ],
      [
        { name: "importEntitiesFromCsv", config: { tempFileId: crypto.randomUUID(), typeName: "Part", entityTypeId: crypto.randomUUID() } },
        ["config: does not match any allowed shape (typeName: is not allowed | entityTypeId: is not allowed)"],
      ],
    ];
    for (const [action, lines] of cases) {
      // Wrapped in $literal, so the save leaves it to the run: a literal config the schema refuses is refused at save.
      const e = failure(await runJob(t, policy, [{ stepId: "x", ...action, config: { $literal: (action as { config: object }).config } }]));
      expect([e.status, e.code], JSON.stringify(e)).toEqual([422, "VALIDATION_FAILED"]);
      expect(e.details.errors).toEqual(lines);
    }
  });

  it("refuses an action the run's policy does not allow with 403, naming the permission", async () => {
    const t = await createTenant();
    await createType(t.auth, { name: "Part", schema: partSchema, config: { identifier_key: ["sku"] } });
    const a = await upload(t, "name,sku\r\nBolt,B1\r\n");
    const readOnly = await policyGranting(t, ["entity:read"]);
    const createOnly = await policyGranting(t, ["entity:create"]);
    const cases: [string, object, string][] = [
      [readOnly, transform({ mapping: "$" }), "create"],
      [readOnly, { stepId: "i", name: "importEntitiesFromCsv", config: { tempFileId: "{{ input.files.a }}", typeName: "Part" } }, "create"],
      [createOnly, { stepId: "m", name: "mergeCsvStreams", config: { tempFileIds: ["{{ input.files.a }}", "{{ input.files.a }}"] } }, "read"],
      [createOnly, { stepId: "e", name: "exportEntitiesToCsv", config: { typeName: "Part" } }, "read"],
      [readOnly, { stepId: "z", name: "csvFromZipStream", config: { tempFileId: "{{ input.files.a }}" } }, "create"],
    ];
    for (const [policy, action, missing] of cases) {
      const e = failure(await runJob(t, policy, [action], { a }));
      expect([e.status, e.code, e.details]).toEqual([403, "FORBIDDEN", { resource: "entity", action: missing }]);
    }
    const query = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Part" } });
    expect(query.json.data).toEqual([]);
  });

  it("answers 404 for an unknown temp file and for another tenant's, and for an unknown type", async () => {
    const { t, policy } = await tenantWithParts();
    const other = await createTenant();
    const theirs = await upload(other, "name,sku\r\nBolt,B1\r\n");
    const mine = await upload(t, "name,sku\r\nBolt,B1\r\n");
    const unknown = crypto.randomUUID();
    for (const id of [unknown, theirs]) {
      for (const action of [
        transform({ tempFileId: id, mapping: "$" }),
        { stepId: "m", name: "mergeCsvStreams", config: { tempFileIds: [mine, id] } },
        { stepId: "i", name: "importEntitiesFromCsv", config: { tempFileId: id, typeName: "Part" } },
        { stepId: "z", name: "csvFromZipStream", config: { tempFileId: id } },
      ]) {
        const e = failure(await runJob(t, policy, [action]));
        expect([e.status, e.code, e.message], JSON.stringify(e)).toEqual([404, "NOT_FOUND", `Temp file ${id} not found`]);
      }
    }
    const type = failure(await runJob(t, policy, [{ stepId: "e", name: "exportEntitiesToCsv", config: { typeName: "Nope" } }]));
    expect([type.status, type.code]).toEqual([404, "NOT_FOUND"]);
    const imported = failure(await runJob(t, policy, [{ stepId: "i", name: "importEntitiesFromCsv", config: { tempFileId: mine, typeName: "Nope" } }]));
    expect([imported.status, imported.code]).toEqual([404, "NOT_FOUND"]);
  });
});
