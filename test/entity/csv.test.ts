// CSV import and export through the gateway.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, createTenant, expectError, systemQuery } from "../support/api";
import { createType } from "../support/entities";

const schema = {
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string" },
    title: { type: "string" },
    price: { type: "number" },
    qty: { type: "integer" },
    active: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    dims: { type: "object", properties: { w: { type: "number" }, h: { type: "number" } } },
  },
};

async function tenantWithType(name = "Part") {
  const t = await createTenant();
  await createType(t.auth, { name, schema, config: { identifier_key: ["sku"] } });
  return t;
}

async function importCsv(auth: string, csv: string | Uint8Array, config: Record<string, unknown> | null) {
  const headers: Record<string, string> = { Authorization: auth, "Content-Type": "text/csv" };
  if (config) headers["X-Import-Config"] = encodeURIComponent(JSON.stringify(config));
  const res = await SELF.fetch(`${BASE}/entity/entities/import`, { method: "POST", headers, body: csv });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function exportCsv(auth: string, body: Record<string, unknown>) {
  const res = await SELF.fetch(`${BASE}/entity/entities/export`, {
    method: "POST",
    headers: { Authorization: auth, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function parts(auth: string, typeName = "Part") {
  const res = await call("POST", "/entity/query", { auth, body: { type_name: typeName, sort: [{ path: ["attributes", "sku"] }], limit: 1000 } });
  expect(res.status).toBe(200);
  return res.json.data as { id: string; name: string; attributes: Record<string, unknown> }[];
}

describe("POST /entity/entities/import", () => {
  it("parses quoted multi-line fields, converts cells by the schema and upserts the rows", async () => {
    const t = await tenantWithType();
    const csv = [
      "name,sku,title,price,qty,active,tags,dims.w,dims.h",
      'Bolt,B1,"Steel bolt, M6",0.25,100,true,"[""metal""]",6,30',
      'Nut,N1,"A nut',
      'over two lines",0.1,,no,[],,',
      'Washer,W1,"",1e2,3,1,"[""a"",""b""]",12,1',
    ].join("\r\n");
    const res = await importCsv(t.auth, csv, { entity_type_name: "Part" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ created: 3, updated: 0, unchanged: 0, ignored: 0, errors: [] });
    expect(res.json.data.ids).toHaveLength(3);
    const stored = await parts(t.auth);
    expect(stored.map((p) => [p.name, p.attributes])).toEqual([
      ["Bolt", { sku: "B1", title: "Steel bolt, M6", price: 0.25, qty: 100, active: true, tags: ["metal"], dims: { w: 6, h: 30 } }],
      ["Nut", { sku: "N1", title: "A nut\r\nover two lines", price: 0.1, active: false, tags: [] }],
      ["Washer", { sku: "W1", title: "", price: 100, qty: 3, active: true, tags: ["a", "b"], dims: { w: 12, h: 1 } }],
    ]);
    const again = await importCsv(t.auth, csv, { entity_type_name: "Part", on_conflict: "ignore" });
    expect(again.json.data).toMatchObject({ created: 0, ignored: 3 });
  });

  it("maps columns, takes another delimiter and a type id", async () => {
    const t = await tenantWithType();
    const types = await call("GET", "/entity/entity-types", { auth: t.auth });
    const typeId = types.json.data.find((x: { name: string }) => x.name === "Part").id;
    const csv = "Label;Code;Cost;Ignored\nBig bolt;B9;2,5;x\n";
    const res = await importCsv(t.auth, csv, {
      entity_type_id: typeId,
      delimiter: ";",
      column_mapping: { Label: "name", Code: "sku", Cost: "attributes.title" },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((await parts(t.auth)).map((p) => [p.name, p.attributes])).toEqual([["Big bolt", { sku: "B9", title: "2,5" }]]);
  });

  it("a cell that does not convert is 422 naming line and column, and nothing is written", async () => {
    const t = await tenantWithType();
    const csv = 'name,sku,price\nA,A1,1\nB,"B\n1",abc\nC,C1,2\n';
    const res = await importCsv(t.auth, csv, { entity_type_name: "Part" });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(['line 3, column "price": "abc" is not a number']);
    expect(await parts(t.auth)).toEqual([]);
  });

  it("a row that fails the schema is 422 naming line and column, and nothing is written", async () => {
    const t = await tenantWithType();
    const res = await importCsv(t.auth, 'name,sku,tags\nA,A1,[]\nB,B1,"[1]"\n', { entity_type_name: "Part" });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(['line 3, column "tags" at [0]: must be string, got number']);
    const missing = await importCsv(t.auth, "name,title\nA,x\n", { entity_type_name: "Part" });
    expect(expectError(missing, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["line 2, attributes.sku: is required"]);
    expect(await parts(t.auth)).toEqual([]);
  });

  it("reports every problem of every row in one answer: records that do not parse, cells that do not convert, schema and key lines", async () => {
    const t = await tenantWithType();
    const csv = ["name,sku,price,qty,tags", "A,A1,1,1,[]", "B,B1,abc,1.5,[]", "C,C1,2", 'D,,3,1,"[1]"', "E,E1,x,y,[", "F,F1,1,1,[]"].join("\n");
    const err = expectError(await importCsv(t.auth, csv, { entity_type_name: "Part" }), 422, "VALIDATION_FAILED");
    expect(err.message).toBe("4 of 6 rows failed validation; nothing was written");
    expect(err.details.validation_errors).toEqual([
      'line 3, column "price": "abc" is not a number',
      'line 3, column "qty": must be integer, got number',
      "line 4: Invalid Record Length: expect 5, got 3 on line 4",
      'line 5, column "sku": is required',
      'line 5, column "tags" at [0]: must be string, got number',
      'line 6, column "price": "x" is not a number',
      'line 6, column "qty": "y" is not a number',
      'line 6, column "tags": is not JSON array text',
    ]);
    expect(await parts(t.auth)).toEqual([]);

    // A required attribute whose cell did not convert is reported once, by its cell.
    await createType(t.auth, {
      name: "Priced",
      schema: { type: "object", required: ["sku", "price"], properties: { sku: { type: "string" }, price: { type: "number" } } },
      config: { identifier_key: ["sku"] },
    });
    const priced = expectError(await importCsv(t.auth, "name,sku,price\nA,A1,abc\n", { entity_type_name: "Priced" }), 422, "VALIDATION_FAILED");
    expect(priced.details.validation_errors).toEqual(['line 2, column "price": "abc" is not a number']);
  });

  it("keeps to twenty lines and counts the rest", async () => {
    const t = await tenantWithType();
    const rows = Array.from({ length: 30 }, (_, i) => `P${i},S${i},x`).join("\n");
    const err = expectError(await importCsv(t.auth, `name,sku,price\n${rows}\n`, { entity_type_name: "Part" }), 422, "VALIDATION_FAILED");
    expect(err.message).toBe("30 of 30 rows failed validation; nothing was written");
    expect(err.details.validation_errors).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `line ${i + 2}, column "price": "x" is not a number`),
      "... and 10 more errors",
    ]);
  });

  it("a header read as one column holding another delimiter hints at the delimiter option", async () => {
    const t = await tenantWithType();
    const semicolons = expectError(await importCsv(t.auth, "name;sku;price\nA;A1;1\n", { entity_type_name: "Part" }), 422, "VALIDATION_FAILED");
    expect(semicolons.details.validation_errors).toEqual([
      "header: a column must map to name",
      'header: read with delimiter "," as the one column "name;sku;price", which seems to use ";": set "delimiter": ";" in X-Import-Config',
    ]);
    const tabs = expectError(await importCsv(t.auth, "name\tsku\nA\tA1\n", { entity_type_name: "Part", delimiter: ";" }), 422, "VALIDATION_FAILED");
    expect(tabs.details.validation_errors).toEqual([
      "header: a column must map to name",
      'header: read with delimiter ";" as the one column "name\\tsku", which seems to use "\\t": set "delimiter": "\\t" in X-Import-Config',
    ]);
    const mapped = expectError(
      await importCsv(t.auth, "name;sku\nA;A1\n", { entity_type_name: "Part", column_mapping: { name: "name" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(mapped.details.validation_errors).toEqual([
      "column_mapping.name: no such column in the header",
      'header: read with delimiter "," as the one column "name;sku", which seems to use ";": set "delimiter": ";" in X-Import-Config',
    ]);
    // One column without another delimiter in it gets no hint.
    expect(expectError(await importCsv(t.auth, "title\nx\n", { entity_type_name: "Part" }), 422, "VALIDATION_FAILED").details.validation_errors).toEqual([
      "header: a column must map to name",
    ]);
  });

  it("an error after a committed batch says which lines stay written, as upsert does", async () => {
    const t = await tenantWithType();
    await createType(t.auth, { name: "Brand", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    expect(
      (
        await call("POST", "/entity/relationship-rules", {
          auth: t.auth,
          body: { name: "made_by", from_entity_type_name: "Part", to_entity_type_name: "Brand", max_to_cardinality: 1 },
        })
      ).status,
    ).toBe(201);
    const entity = async (type: string, name: string, attributes: Record<string, unknown>) =>
      (await call("POST", "/entity/entities", { auth: t.auth, body: { type_name: type, name, attributes } })).json.data.id as string;
    const [a, b, survivor, holder] = [
      await entity("Brand", "A", { code: "a" }),
      await entity("Brand", "B", { code: "b" }),
      await entity("Part", "S", { sku: "S" }),
      await entity("Part", "H", { sku: "H" }),
    ];
    for (const [from, to] of [
      [survivor, a],
      [holder, b],
    ])
      expect(
        (await call("POST", "/entity/relationships", { auth: t.auth, body: { rule_name: "made_by", from_entity_id: from, to_entity_id: to } })).status,
      ).toBe(201);
    // 1,000 rows by key commit; the last row, by id, merges the holder into the survivor, which would then have two brands.
    const rows = Array.from({ length: 1000 }, (_, i) => `P${i},S${i},`).join("\n");
    const err = expectError(await importCsv(t.auth, `name,sku,id\n${rows}\nS,H,${survivor}\n`, { entity_type_name: "Part" }), 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.code).toBe("MERGE_CARDINALITY_EXCEEDED");
    expect(err.details.committed).toEqual({ batches: 1, rows: 1000, ranges: [[0, 999]], links: 0 });
    expect(err.message).toBe(
      "Merging would exceed a relationship rule's cardinality; 1000 of 1001 rows (line 2 to line 1001) were already written by 1 committed batch and stay written",
    );
    // Two brands, the survivor, the holder (not merged) and the 1,000 committed rows.
    const [live] = await systemQuery("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL", [t.tenantId]);
    expect(live.n).toBe(1004);
  }, 60_000);

  it("refuses malformed CSV, a bad or missing config, a header without name, unknown types and columns", async () => {
    const t = await tenantWithType();
    const bad = await importCsv(t.auth, 'name,sku\nA,"A1\n', { entity_type_name: "Part" });
    expect(expectError(bad, 422, "VALIDATION_FAILED").details.validation_errors[0]).toMatch(/^line \d+: /);
    expectError(await importCsv(t.auth, "name,sku\nA,A1\n", null), 422, "VALIDATION_FAILED");
    const res = await SELF.fetch(`${BASE}/entity/entities/import`, {
      method: "POST",
      headers: { Authorization: t.auth, "X-Import-Config": "%7Bnot json" },
      body: "name\n",
    });
    expect(res.status).toBe(422);
    expectError(
      await importCsv(t.auth, "name,sku\nA,A1\n", { entity_type_name: "Part", entity_type_id: "00000000-0000-4000-8000-000000000000" }),
      422,
      "VALIDATION_FAILED",
    );
    expectError(await importCsv(t.auth, "name,sku\nA,A1\n", { entity_type_name: "Part", delimiter: ";;" }), 422, "VALIDATION_FAILED");
    expectError(await importCsv(t.auth, "title,sku\nA,A1\n", { entity_type_name: "Part" }), 422, "VALIDATION_FAILED");
    expectError(await importCsv(t.auth, "name,sku\nA,A1\n", { entity_type_name: "Part", column_mapping: { Nope: "name" } }), 422, "VALIDATION_FAILED");
    expectError(await importCsv(t.auth, "name,sku\nA,A1\n", { entity_type_name: "Nope" }), 404, "NOT_FOUND");
    expect(await parts(t.auth)).toEqual([]);
  });

  it("on_conflict raise meets an existing entity with 409, and more than 100,000 rows is 422; nothing is written", async () => {
    const t = await tenantWithType();
    expect((await importCsv(t.auth, "name,sku\nA,A1\n", { entity_type_name: "Part" })).status).toBe(200);
    expectError(await importCsv(t.auth, "name,sku\nB,B1\nA again,A1\n", { entity_type_name: "Part", on_conflict: "raise" }), 409, "CONFLICT");
    const rows = Array.from({ length: 100_001 }, (_, i) => `P${i},S${i}`).join("\n");
    const over = expectError(await importCsv(t.auth, `name,sku\n${rows}\n`, { entity_type_name: "Part" }), 422, "VALIDATION_FAILED");
    expect(over.details.validation_errors).toEqual(["body: at most 100000 rows per import"]);
    expect((await parts(t.auth)).map((p) => p.attributes.sku)).toEqual(["A1"]);
  }, 60_000);

  it("needs credentials and entity:create; another tenant's type is not found", async () => {
    const t = await tenantWithType();
    expectError(await importCsv("Basic bm86bm8=", "name,sku\nA,A1\n", { entity_type_name: "Part" }), 401, "UNAUTHORIZED");
    const role = await call("POST", "/access/roles", { auth: t.auth, body: { name: "reader", permissions: ["entity:read"] } });
    expect(role.status).toBe(201);
    const pat = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "r", role_names: ["reader"] } });
    const reader = `Basic ${btoa(`${pat.json.data.client_id}:${pat.json.data.client_secret}`)}`;
    expectError(await importCsv(reader, "name,sku\nA,A1\n", { entity_type_name: "Part" }), 403, "FORBIDDEN");
    const other = await createTenant();
    expectError(await importCsv(other.auth, "name,sku\nA,A1\n", { entity_type_name: "Part" }), 404, "NOT_FOUND");
  });
});

describe("POST /entity/entities/export", () => {
  it("streams a header and RFC 4180 rows, nested attributes as dotted columns, filtered and sorted", async () => {
    const t = await tenantWithType();
    const up = await call("POST", "/entity/entities/upsert", {
      auth: t.auth,
      body: {
        type_name: "Part",
        data: [
          { name: "Bolt", attributes: { sku: "B1", title: 'Say "hi", twice\nplease', price: 2, tags: ["a"], dims: { w: 6 } } },
          { name: "Nut", attributes: { sku: "N1", title: " padded ", price: 1, active: false } },
          { name: "Gear", attributes: { sku: "G1", title: "", price: 3 } },
        ],
      },
    });
    expect(up.status).toBe(200);
    const [bolt, nut] = up.json.data.ids;
    const res = await exportCsv(t.auth, { type_name: "Part", filter: { operator: "lt", path: ["attributes", "price"], value: 3 }, sort: [{ path: ["name"] }] });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="Part.csv"');
    expect(res.text).toBe(
      [
        "id,name,active,dims.h,dims.w,price,qty,sku,tags,title",
        `${bolt},Bolt,,,6,2,,B1,"[""a""]","Say ""hi"", twice\nplease"`,
        `${nut},Nut,false,,,1,,N1,," padded "`,
        "",
      ].join("\r\n"),
    );
    const chosen = await exportCsv(t.auth, { type_name: "Part", columns: ["title", "name", "identifier_key"], sort: [{ path: ["name"], direction: "desc" }] });
    expect(chosen.text).toBe(["title,name,identifier_key", '" padded ",Nut,N1', '"",Gear,G1', '"Say ""hi"", twice\nplease",Bolt,B1', ""].join("\r\n"));
  });

  it("takes the columns from the data when the schema names none", async () => {
    const t = await createTenant();
    await createType(t.auth, { name: "Loose", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    await call("POST", "/entity/entities", { auth: t.auth, body: { type_name: "Loose", name: "x", attributes: { k: "1", a: { b: 2 }, name: "shadow" } } });
    const res = await exportCsv(t.auth, { type_name: "Loose", columns: undefined });
    expect(res.text.split("\r\n")[0]).toBe("id,name,a.b,k,attributes.name");
    expect(res.text.split("\r\n")[1].split(",").slice(1)).toEqual(["x", "2", "1", "shadow"]);
  });

  it("refuses an invalid filter (422), an unknown type (404), no credentials (401), a token without entity:read (403)", async () => {
    const t = await tenantWithType();
    expect((await exportCsv(t.auth, { type_name: "Part", filter: { operator: "eq", path: ["name"], value: null } })).status).toBe(422);
    expect((await exportCsv(t.auth, { type_name: "Nope" })).status).toBe(404);
    expect((await exportCsv("Basic bm86bm8=", { type_name: "Part" })).status).toBe(401);
    const role = await call("POST", "/access/roles", { auth: t.auth, body: { name: "writer", permissions: ["entity:create"] } });
    expect(role.status).toBe(201);
    const pat = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "w", role_names: ["writer"] } });
    expect((await exportCsv(`Basic ${btoa(`${pat.json.data.client_id}:${pat.json.data.client_secret}`)}`, { type_name: "Part" })).status).toBe(403);
  });

  it("escapes text a spreadsheet would run as a formula with a leading ', by default; numbers stay numbers", async () => {
    const t = await tenantWithType();
    const up = await call("POST", "/entity/entities/upsert", {
      auth: t.auth,
      body: {
        type_name: "Part",
        data: [
          { name: "=cmd|' /C calc'!A0", attributes: { sku: "A1", title: "@SUM(A1:A9)", price: -5, tags: ["=x"] } },
          { name: "+plus", attributes: { sku: "A2", title: "-minus", price: -0.5 } },
          { name: "tab", attributes: { sku: "A3", title: "\t=1+2" } },
        ],
      },
    });
    expect(up.status).toBe(200);
    const columns = ["name", "title", "price", "tags"];
    const sort = [{ path: ["attributes", "sku"] }];
    const escaped = await exportCsv(t.auth, { type_name: "Part", columns, sort });
    expect(escaped.status).toBe(200);
    expect(escaped.text).toBe(
      ["name,title,price,tags", `'=cmd|' /C calc'!A0,'@SUM(A1:A9),-5,"[""=x""]"`, "'+plus,'-minus,-0.5,", "tab,'\t=1+2,,", ""].join("\r\n"),
    );
    const explicit = await exportCsv(t.auth, { type_name: "Part", columns, sort, escape_formulas: true });
    expect(explicit.text).toBe(escaped.text);
    const raw = await exportCsv(t.auth, { type_name: "Part", columns, sort, escape_formulas: false });
    expect(raw.text).toBe(["name,title,price,tags", `=cmd|' /C calc'!A0,@SUM(A1:A9),-5,"[""=x""]"`, "+plus,-minus,-0.5,", `tab,"\t=1+2",,`, ""].join("\r\n"));
    expect((await exportCsv(t.auth, { type_name: "Part", escape_formulas: "no" })).status).toBe(422);
  });

  it("round-trips formula-like text with escape_formulas false; an escaped export imports back with its '", async () => {
    const t = await tenantWithType();
    const data = [
      { name: "=1+2", attributes: { sku: "F1", title: "@cmd", price: -5 } },
      { name: "-dash", attributes: { sku: "F2", title: "+plus" } },
    ];
    expect((await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Part", data } })).status).toBe(200);
    const sort = [{ path: ["attributes", "sku"] }];
    const raw = await exportCsv(t.auth, { type_name: "Part", sort, escape_formulas: false });
    const back = await importCsv(t.auth, raw.text, { entity_type_name: "Part" });
    expect(back.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect((await exportCsv(t.auth, { type_name: "Part", sort, escape_formulas: false })).text).toBe(raw.text);

    const escaped = await exportCsv(t.auth, { type_name: "Part", sort, columns: ["name", "sku", "title", "price"] });
    const again = await importCsv(t.auth, escaped.text, { entity_type_name: "Part" });
    expect(again.json.data).toMatchObject({ created: 0, updated: 2, unchanged: 0 });
    expect((await parts(t.auth)).map((p) => [p.name, p.attributes])).toEqual([
      ["'=1+2", { sku: "F1", title: "'@cmd", price: -5 }],
      ["'-dash", { sku: "F2", title: "'+plus" }],
    ]);
  });

  it("10,000 rows round-trip through import unchanged", async () => {
    const t = await tenantWithType();
    const data = Array.from({ length: 10_000 }, (_, i) => ({
      name: `Part ${i}`,
      attributes: {
        sku: `P${String(i).padStart(5, "0")}`,
        title: i % 7 ? `Title, "${i}"\n` : "",
        price: i / 4,
        qty: i,
        active: i % 2 === 0,
        tags: [`t${i % 3}`],
        dims: { w: i % 10, h: 1 },
      },
    }));
    expect((await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Part", data, suppress_events: true } })).status).toBe(200);
    const first = await exportCsv(t.auth, { type_name: "Part", sort: [{ path: ["attributes", "sku"] }] });
    expect(first.status).toBe(200);
    expect(first.text.split("\r\n").length).toBeGreaterThan(10_001);

    const back = await importCsv(t.auth, first.text, { entity_type_name: "Part" });
    expect(back.status, JSON.stringify(back.json).slice(0, 500)).toBe(200);
    expect(back.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 10_000 });
    const second = await exportCsv(t.auth, { type_name: "Part", sort: [{ path: ["attributes", "sku"] }] });
    expect(second.text).toBe(first.text);

    await createType(t.auth, { name: "Copy", schema, config: { identifier_key: ["sku"] } });
    const mapping = Object.fromEntries(
      first.text
        .slice(0, first.text.indexOf("\r\n"))
        .split(",")
        .filter((h) => h !== "id")
        .map((h) => [h, h]),
    );
    const copy = await importCsv(t.auth, first.text, { entity_type_name: "Copy", column_mapping: mapping });
    expect(copy.json.data).toMatchObject({ created: 10_000 });
    const probe = await call("POST", "/entity/query", {
      auth: t.auth,
      body: {
        type_name: "Copy",
        filter: { operator: "in", path: ["attributes", "sku"], value: ["P00000", "P04321", "P09999"] },
        sort: [{ path: ["attributes", "sku"] }],
      },
    });
    expect(probe.json.data.map((e: { name: string; attributes: unknown }) => [e.name, e.attributes])).toEqual(
      [0, 4321, 9999].map((i) => [data[i].name, data[i].attributes]),
    );
  }, 120_000);
});
