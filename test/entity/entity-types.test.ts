import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createType, productSchema } from "../support/entities";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function postType(auth: string, body: Record<string, unknown>) {
  return call("POST", "/entity/entity-types", { auth, body });
}

/** The per-type partial indexes on `entities`, as Postgres reports them. */
async function typeIndexes(typeId: string) {
  return systemQuery<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'entities' AND indexname LIKE 'et_' || replace($1, '-', '') || '_%' ORDER BY indexname`,
    [typeId],
  );
}

function defsWith(rows: { indexdef: string }[], ...pieces: string[]) {
  return rows.filter((r) => pieces.every((p) => r.indexdef.includes(p)));
}

function violationLines(err: { details: Record<string, any> }): string[] {
  return err.details.validation_errors;
}

describe("POST /entity/entity-types", () => {
  it("creates a type with an inline schema; status defaults to draft and indexed entries get their defaults", async () => {
    const { auth } = await createTenant();
    const res = await postType(auth, {
      name: "Product",
      schema: productSchema,
      config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["price"], type: "numeric" }] },
    });
    expect(res.status).toBe(201);
    const t = res.json.data;
    expect(t.id).toMatch(UUID);
    expect(t).toMatchObject({
      name: "Product",
      status: "draft",
      schema: productSchema,
      schema_name: null,
      config: {
        identifier_key: ["sku"],
        indexed_attributes: [{ path: ["price"], type: "numeric", filterable: true, sortable: false, searchable: false }],
        sort_by_updated_at: false,
        name_search: false,
      },
    });
    // A draft type does not accept entities yet.
    expectError(
      await call("POST", "/entity/entities", { auth, body: { type_name: "Product", name: "x", attributes: { sku: "1", title: "t" } } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
  });

  it("creates a type from a registered schema name: the stored schema is the registered (latest) one", async () => {
    const { auth } = await createTenant();
    const v1 = { type: "object", properties: { code: { type: "string" } } };
    const v2 = { type: "object", required: ["code", "label"], properties: { code: { type: "string" }, label: { type: "string" } } };
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "thing", schema: v1 } })).status).toBe(201);
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "thing", schema: v2 } })).status).toBe(201);
    const res = await postType(auth, { name: "Thing", schema_name: "thing", status: "active", config: { identifier_key: ["code"] } });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ name: "Thing", status: "active", schema_name: "thing", schema: v2 });
    const got = await call("GET", `/entity/entity-types/${res.json.data.id}`, { auth });
    expect(got.json.data.schema).toEqual(v2);
    // Entities are validated against it.
    const bad = expectError(
      await call("POST", "/entity/entities", { auth, body: { type_name: "Thing", name: "t", attributes: { code: "c1" } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(bad.details.validation_errors).toEqual(["attributes.label: is required"]);
    expect((await call("POST", "/entity/entities", { auth, body: { type_name: "Thing", name: "t", attributes: { code: "c1", label: "L" } } })).status).toBe(
      201,
    );
  });

  it("refuses both or neither of schema and schema_name (422) and an unknown schema_name (422)", async () => {
    const { auth } = await createTenant();
    await call("POST", "/schema/schemas", { auth, body: { name: "known", schema: { type: "object" } } });
    expectError(
      await postType(auth, { name: "Both", schema: { type: "object" }, schema_name: "known", config: { identifier_key: ["k"] } }),
      422,
      "VALIDATION_FAILED",
    );
    expectError(await postType(auth, { name: "Neither", config: { identifier_key: ["k"] } }), 422, "VALIDATION_FAILED");
    const unknown = expectError(
      await postType(auth, { name: "Unknown", schema_name: "not-registered", config: { identifier_key: ["k"] } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(unknown.message).toContain("not-registered");
    // None of them was created.
    const list = await call("GET", "/entity/entity-types", { auth });
    expect(list.json.data).toEqual([]);
  });

  it("refuses a duplicate name with 409; the same name in another tenant is fine", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createType(a.auth, { name: "Dup", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const dup = expectError(await postType(a.auth, { name: "Dup", schema: { type: "object" }, config: { identifier_key: ["other"] } }), 409, "CONFLICT");
    expect(dup.message).toContain("Dup");
    expect((await postType(b.auth, { name: "Dup", schema: { type: "object" }, config: { identifier_key: ["k"] } })).status).toBe(201);
  });

  it("refuses bad bodies: bad name, missing config or identifier_key, unknown indexed type", async () => {
    const { auth } = await createTenant();
    expectError(await postType(auth, { name: "1bad", schema: { type: "object" }, config: { identifier_key: ["k"] } }), 422, "VALIDATION_FAILED");
    expectError(await postType(auth, { name: "NoConfig", schema: { type: "object" } }), 422, "VALIDATION_FAILED");
    expectError(await postType(auth, { name: "NoKey", schema: { type: "object" }, config: {} }), 422, "VALIDATION_FAILED");
    expectError(
      await postType(auth, {
        name: "BadIdx",
        schema: { type: "object" },
        config: { identifier_key: ["k"], indexed_attributes: [{ path: ["a"], type: "money" }] },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expectError(await postType(auth, { name: "BadSchema", schema: [], config: { identifier_key: ["k"] } }), 422, "VALIDATION_FAILED");
  });
});

describe("indexed_attributes rules", () => {
  const base = { schema: { type: "object" }, config: { identifier_key: ["k"] } };

  it("allows exactly 20 entries and refuses 21", async () => {
    const { auth } = await createTenant();
    const twenty = Array.from({ length: 20 }, (_, i) => ({ path: [`a${i}`], type: "text" }));
    expect((await postType(auth, { ...base, name: "Twenty", config: { identifier_key: ["k"], indexed_attributes: twenty } })).status).toBe(201);
    const err = expectError(
      await postType(auth, { ...base, name: "TwentyOne", config: { identifier_key: ["k"], indexed_attributes: [...twenty, { path: ["a20"], type: "text" }] } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toHaveLength(1);
    expect(violationLines(err)[0]).toMatch(/^config\.indexed_attributes: .*20/);
  });

  it("refuses more than 10 sortable entries", async () => {
    const { auth } = await createTenant();
    const ten = Array.from({ length: 10 }, (_, i) => ({ path: [`n${i}`], type: "numeric", sortable: true }));
    expect((await postType(auth, { ...base, name: "TenSort", config: { identifier_key: ["k"], indexed_attributes: ten } })).status).toBe(201);
    const err = expectError(
      await postType(auth, {
        ...base,
        name: "ElevenSort",
        config: { identifier_key: ["k"], indexed_attributes: [...ten, { path: ["n10"], type: "timestamptz", sortable: true }] },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual(["config.indexed_attributes: at most 10 sortable entries"]);
  });

  it("refuses more than 10 searchable entries", async () => {
    const { auth } = await createTenant();
    const eleven = Array.from({ length: 11 }, (_, i) => ({ path: [`s${i}`], type: "text", searchable: true }));
    const err = expectError(
      await postType(auth, { ...base, name: "ElevenSearch", config: { identifier_key: ["k"], indexed_attributes: eleven } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual(["config.indexed_attributes: at most 10 searchable entries"]);
  });

  it("refuses searchable on a non-text type", async () => {
    const { auth } = await createTenant();
    for (const type of ["numeric", "timestamptz", "boolean", "text_array"]) {
      const err = expectError(
        await postType(auth, {
          ...base,
          name: `S${type}`,
          config: {
            identifier_key: ["k"],
            indexed_attributes: [
              { path: ["ok"], type: "text" },
              { path: ["x"], type, searchable: true },
            ],
          },
        }),
        422,
        "VALIDATION_FAILED",
      );
      expect(violationLines(err)).toEqual(["config.indexed_attributes[1].searchable: only text attributes can be searchable"]);
    }
  });

  it("refuses duplicate paths, even with different types", async () => {
    const { auth } = await createTenant();
    const err = expectError(
      await postType(auth, {
        ...base,
        name: "DupPath",
        config: {
          identifier_key: ["k"],
          indexed_attributes: [
            { path: ["a", "b"], type: "text" },
            { path: ["c"], type: "text" },
            { path: ["a", "b"], type: "numeric" },
          ],
        },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual(["config.indexed_attributes[2].path: duplicates an earlier entry"]);
  });

  it("applies the same rules on PATCH and leaves the type unchanged when refused", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, { ...base, name: "Patchy", config: { identifier_key: ["k"], indexed_attributes: [{ path: ["a"], type: "text" }] } });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ path: [`n${i}`], type: "numeric", sortable: true }));
    const err = expectError(
      await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { indexed_attributes: eleven } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual(["config.indexed_attributes: at most 10 sortable entries"]);
    const twentyOne = Array.from({ length: 21 }, (_, i) => ({ path: [`a${i}`], type: "text" }));
    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { indexed_attributes: twentyOne } } }), 422, "VALIDATION_FAILED");
    const got = await call("GET", `/entity/entity-types/${t.id}`, { auth });
    expect(got.json.data.config.indexed_attributes).toEqual([{ path: ["a"], type: "text", filterable: true, sortable: false, searchable: false }]);
    expect(await typeIndexes(t.id)).toHaveLength(1);
  });
});

describe("activate, get, list, patch", () => {
  it("activates a draft type; activating again is a 200 no-op", async () => {
    const { auth } = await createTenant();
    const created = (await postType(auth, { name: "Draft", schema: { type: "object" }, config: { identifier_key: ["k"] } })).json.data;
    expect(created.status).toBe("draft");
    const first = await call("POST", `/entity/entity-types/${created.id}/activate`, { auth });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ id: created.id, status: "active" });
    const second = await call("POST", `/entity/entity-types/${created.id}/activate`, { auth });
    expect(second.status).toBe(200);
    expect(second.json.data).toMatchObject({ id: created.id, status: "active", updated_at: first.json.data.updated_at });
    expect((await call("POST", "/entity/entities", { auth, body: { type_name: "Draft", name: "x", attributes: { k: "1" } } })).status).toBe(201);
    expectError(await call("POST", `/entity/entity-types/${crypto.randomUUID()}/activate`, { auth }), 404, "NOT_FOUND");
  });

  it("gets by id and lists with ?name= and the pagination envelope", async () => {
    const { auth } = await createTenant();
    const b = await createType(auth, { name: "Beta", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const a = await createType(auth, { name: "Alpha", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const got = await call("GET", `/entity/entity-types/${a.id}`, { auth });
    expect(got.status).toBe(200);
    expect(got.json.data).toMatchObject({ id: a.id, name: "Alpha", status: "active", config: { identifier_key: ["k"] } });

    const all = await call("GET", "/entity/entity-types", { auth });
    expect(all.status).toBe(200);
    expect(all.json.data.map((t: any) => t.id)).toEqual([a.id, b.id]);
    expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });

    const byName = await call("GET", "/entity/entity-types?name=Beta", { auth });
    expect(byName.json.data.map((t: any) => t.id)).toEqual([b.id]);
    expect(byName.json.pagination.total).toBe(1);
    const none = await call("GET", "/entity/entity-types?name=Gamma", { auth });
    expect(none.json.data).toEqual([]);
    expect(none.json.pagination.total).toBe(0);

    expectError(await call("GET", `/entity/entity-types/${crypto.randomUUID()}`, { auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/entity/entity-types/not-a-uuid", { auth }), 422, "VALIDATION_FAILED");
  });

  it("patches the schema inline or by name, and refuses both or an empty body", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, { name: "Doc", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const inline = { type: "object", required: ["k", "title"] };
    const p1 = await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema: inline } });
    expect(p1.status).toBe(200);
    expect(p1.json.data).toMatchObject({ id: t.id, schema: inline, schema_name: null, config: { identifier_key: ["k"] } });
    expectError(await call("POST", "/entity/entities", { auth, body: { type_name: "Doc", name: "d", attributes: { k: "1" } } }), 422, "VALIDATION_FAILED");

    const registered = { type: "object", properties: { k: { type: "string" } } };
    await call("POST", "/schema/schemas", { auth, body: { name: "doc-schema", schema: registered } });
    const p2 = await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema_name: "doc-schema" } });
    expect(p2.status).toBe(200);
    expect(p2.json.data).toMatchObject({ schema: registered, schema_name: "doc-schema" });

    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema: inline, schema_name: "doc-schema" } }), 422, "VALIDATION_FAILED");
    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: {} }), 422, "VALIDATION_FAILED");
    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema_name: "missing" } }), 422, "UNPROCESSABLE_ENTITY");
    expectError(await call("PATCH", `/entity/entity-types/${crypto.randomUUID()}`, { auth, body: { schema: inline } }), 404, "NOT_FOUND");
    expect((await call("GET", `/entity/entity-types/${t.id}`, { auth })).json.data.schema_name).toBe("doc-schema");
  });

  it("refuses a change of identifier_key on PATCH with 422; the same key is accepted", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, { name: "Keyed", schema: { type: "object" }, config: { identifier_key: ["region", "sku"] } });
    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { identifier_key: ["sku"] } } }), 422, "UNPROCESSABLE_ENTITY");
    expectError(
      await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { identifier_key: ["sku", "region"] } } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    const same = await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { identifier_key: ["region", "sku"], name_search: true } } });
    expect(same.status).toBe(200);
    expect(same.json.data.config).toMatchObject({ identifier_key: ["region", "sku"], name_search: true });
    expect((await call("GET", `/entity/entity-types/${t.id}`, { auth })).json.data.config.identifier_key).toEqual(["region", "sku"]);
  });

  it("is invisible to another tenant: get, list, patch and activate answer 404 / nothing", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const t = await createType(a.auth, { name: "Secret", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    expectError(await call("GET", `/entity/entity-types/${t.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    const list = await call("GET", "/entity/entity-types?name=Secret", { auth: b.auth });
    expect(list.json.data).toEqual([]);
    expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth: b.auth, body: { config: { name_search: true } } }), 404, "NOT_FOUND");
    expectError(await call("POST", `/entity/entity-types/${t.id}/activate`, { auth: b.auth }), 404, "NOT_FOUND");
    // Unchanged for its owner, and no index was built by the refused patch.
    const got = await call("GET", `/entity/entity-types/${t.id}`, { auth: a.auth });
    expect(got.json.data.config.name_search).toBe(false);
    expect(await typeIndexes(t.id)).toEqual([]);
  });
});

describe("real Postgres indexes follow the config", () => {
  it("keeps expression statistics for indexed attributes while some type needs them", async () => {
    const { auth } = await createTenant();
    const field = `stat_${crypto.randomUUID().slice(0, 8)}`;
    const statsOn = async () =>
      (
        await systemQuery<{ def: string }>(
          "SELECT pg_get_statisticsobjdef(oid) AS def FROM pg_statistic_ext WHERE stxname LIKE 'es\\_%' AND pg_get_statisticsobjdef(oid) LIKE $1",
          [`%${field}%`],
        )
      )
        .map((r) => r.def)
        .sort();
    const t = await createType(auth, {
      name: "Stats",
      schema: { type: "object" },
      config: { identifier_key: ["sku"], indexed_attributes: [{ path: [field], type: "text", searchable: true }] },
    });
    const defs = await statsOn();
    expect(defs).toHaveLength(2);
    expect(defs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`ON \\(attributes #>> '\\{${field}\\}'::text\\[\\]\\) FROM entities$`)),
        expect.stringMatching(new RegExp(`ON platform_unaccent\\(attributes #>> '\\{${field}\\}'::text\\[\\]\\) FROM entities$`)),
      ]),
    );
    const patched = await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { indexed_attributes: [] } } });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(await statsOn()).toEqual([]);
  });

  it("creates, keeps and drops the per-type partial indexes", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, {
      name: "Indexed",
      schema: { type: "object" },
      config: {
        identifier_key: ["sku"],
        sort_by_updated_at: true,
        name_search: true,
        indexed_attributes: [
          { path: ["sku"], type: "text" },
          { path: ["price"], type: "numeric", sortable: true },
          { path: ["title"], type: "text", searchable: true },
        ],
      },
    });
    const where = `WHERE ((type_id = '${t.id}'::uuid) AND (deleted_at IS NULL))`;

    let rows = await typeIndexes(t.id);
    // sku btree, price btree, title btree + title trigram gin, updated_at, name trigram gin.
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(r.indexdef).toContain(where);
    expect(defsWith(rows, "USING btree", "(attributes #>> '{sku}'::text[])", "tenant_id")).toHaveLength(1);
    expect(defsWith(rows, "USING btree", "platform_numeric((attributes #>> '{price}'::text[]))")).toHaveLength(1);
    expect(defsWith(rows, "USING btree", "(attributes #>> '{title}'::text[])")).toHaveLength(1);
    expect(defsWith(rows, "USING gin", "(attributes #>> '{title}'::text[])", "gin_trgm_ops")).toHaveLength(1);
    expect(defsWith(rows, "USING btree", "updated_at DESC")).toHaveLength(1);
    expect(defsWith(rows, "USING gin", "platform_unaccent(name) gin_trgm_ops")).toHaveLength(1);
    expect(defsWith(rows, "gin_trgm_ops")).toHaveLength(2);
    const names = rows.map((r) => r.indexname);

    // Drop the numeric entry and the name search: their indexes go, the rest stay as they were.
    const patched = await call("PATCH", `/entity/entity-types/${t.id}`, {
      auth,
      body: {
        config: {
          name_search: false,
          indexed_attributes: [
            { path: ["sku"], type: "text" },
            { path: ["title"], type: "text", searchable: true },
          ],
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data.config).toMatchObject({ sort_by_updated_at: true, name_search: false });
    expect(patched.json.data.config.indexed_attributes.map((e: any) => e.path)).toEqual([["sku"], ["title"]]);
    rows = await typeIndexes(t.id);
    expect(rows).toHaveLength(4);
    expect(defsWith(rows, "platform_numeric")).toHaveLength(0);
    expect(defsWith(rows, "platform_unaccent(name)")).toHaveLength(0);
    expect(defsWith(rows, "gin_trgm_ops")).toHaveLength(1);
    expect(defsWith(rows, "updated_at DESC")).toHaveLength(1);
    for (const r of rows) expect(names).toContain(r.indexname);

    // Omitting the tri-states leaves them as they are (updated_at index kept, name index still absent).
    const again = await call("PATCH", `/entity/entity-types/${t.id}`, {
      auth,
      body: {
        config: {
          indexed_attributes: [
            { path: ["sku"], type: "text" },
            { path: ["title"], type: "text", searchable: true },
            { path: ["on"], type: "boolean", filterable: true },
          ],
        },
      },
    });
    expect(again.status).toBe(200);
    expect(again.json.data.config).toMatchObject({ sort_by_updated_at: true, name_search: false });
    rows = await typeIndexes(t.id);
    expect(rows).toHaveLength(5);
    expect(defsWith(rows, "updated_at DESC")).toHaveLength(1);
    expect(defsWith(rows, "platform_unaccent(name)")).toHaveLength(0);
    expect(defsWith(rows, "platform_boolean((attributes #>> '{on}'::text[]))")).toHaveLength(1);

    // A patch that only touches a tri-state leaves the indexed attributes alone.
    const noSort = await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { config: { sort_by_updated_at: false } } });
    expect(noSort.status).toBe(200);
    expect(noSort.json.data.config.indexed_attributes).toHaveLength(3);
    rows = await typeIndexes(t.id);
    expect(rows).toHaveLength(4);
    expect(defsWith(rows, "updated_at DESC")).toHaveLength(0);

    // All indexes are live and usable (none left invalid by a concurrent build).
    const invalid = await systemQuery(
      `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'et_' || replace($1, '-', '') || '_%' AND NOT i.indisvalid`,
      [t.id],
    );
    expect(invalid).toEqual([]);
  });

  it("a filterable:false non-searchable attribute builds no index; text_array gets a gin index", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, {
      name: "Sparse",
      schema: { type: "object" },
      config: {
        identifier_key: ["k"],
        indexed_attributes: [
          { path: ["quiet"], type: "text", filterable: false },
          { path: ["tags"], type: "text_array" },
        ],
      },
    });
    const rows = await typeIndexes(t.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].indexdef).toContain("USING gin (");
    expect(rows[0].indexdef).toContain("(attributes #> '{tags}'::text[])");
    expect(rows[0].indexdef).not.toContain("quiet");
  });
});

describe("config checked against the schema", () => {
  const customer = {
    type: "object",
    additionalProperties: false,
    properties: {
      email: { type: "string", format: "email" },
      score: { type: "number" },
      vip: { type: "boolean" },
      address: { type: "object", additionalProperties: false, properties: { zip: { type: "string" } } },
    },
  };

  async function typeNames(auth: string) {
    return (await call("GET", "/entity/entity-types", { auth })).json.data.map((t: any) => t.name);
  }

  it("refuses on create, with every line at once: undefined key paths, contradicting index types, an attributes prefix; nothing is written", async () => {
    const { auth } = await createTenant();
    const err = expectError(
      await postType(auth, {
        name: "Customer",
        schema: customer,
        config: {
          identifier_key: ["address.city", "zip"],
          indexed_attributes: [
            { path: ["email"], type: "text" },
            { path: ["score"], type: "timestamptz", sortable: true },
            { path: ["attributes", "email"], type: "text" },
            { path: ["vip"], type: "boolean" },
            { path: ["email"], type: "numeric" },
          ],
        },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual([
      "config.indexed_attributes[4].path: duplicates an earlier entry",
      "config.identifier_key[0]: attributes.address.city is not defined by the schema (additionalProperties is false)",
      "config.identifier_key[1]: attributes.zip is not defined by the schema (additionalProperties is false)",
      "config.indexed_attributes[1].type: timestamptz cannot index attributes.score (number in the schema); it reads a string without a format or with format date-time or date",
      'config.indexed_attributes[2].path: paths are relative to attributes; use ["email"]',
      "config.indexed_attributes[4].type: numeric cannot index attributes.email (string with format email in the schema); it reads a number, an integer or a string with format decimal, number, integer, int32, int64, float or double",
    ]);
    expect(await typeNames(auth)).toEqual([]);
  });

  it("refuses a registered schema (schema_name) the same way", async () => {
    const { auth } = await createTenant();
    expect((await call("POST", "/schema/schemas", { auth, body: { name: "customer", schema: customer } })).status).toBe(201);
    const err = expectError(
      await postType(auth, { name: "Customer", schema_name: "customer", config: { identifier_key: ["customer_no"] } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(err)).toEqual(["config.identifier_key[0]: attributes.customer_no is not defined by the schema (additionalProperties is false)"]);
    expect(await typeNames(auth)).toEqual([]);
  });

  it("accepts what it cannot refuse for certain, and what the schema allows", async () => {
    const { auth } = await createTenant();
    // Nested keys through properties, pattern names, typed strings for numeric and timestamptz, an array item by its index (as #> reaches it).
    const fits = await postType(auth, {
      name: "Fits",
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          address: { type: "object", properties: { zip: { type: "string" } } },
          amount: { type: "string", format: "decimal" },
          since: { type: "string", format: "date-time" },
        },
        patternProperties: { "^tag_": { type: "array", items: { type: "string" } } },
      },
      config: {
        identifier_key: ["address.zip"],
        indexed_attributes: [
          { path: ["amount"], type: "numeric" },
          { path: ["since"], type: "timestamptz" },
          { path: ["tag_colors"], type: "text_array" },
          { path: ["address", "zip"], type: "text" },
          { path: ["tag_colors", "0"], type: "text" },
        ],
      },
    });
    expect(fits.status, JSON.stringify(fits.json)).toBe(201);
    // A $ref and names only oneOf branches declare: undecidable without resolving them, so allowed.
    const withRef = await postType(auth, {
      name: "WithRef",
      schema: { $defs: { c: { type: "object", additionalProperties: false } }, $ref: "#/$defs/c" },
      config: { identifier_key: ["code"] },
    });
    expect(withRef.status, JSON.stringify(withRef.json)).toBe(201);
    const branches = await postType(auth, {
      name: "Branches",
      schema: { type: "object", oneOf: [{ properties: { a: { type: "string" } } }], unevaluatedProperties: false },
      config: { identifier_key: ["a"], indexed_attributes: [{ path: ["b"], type: "numeric" }] },
    });
    expect(branches.status, JSON.stringify(branches.json)).toBe(201);
    expect(await typeNames(auth)).toEqual(["Branches", "Fits", "WithRef"]);
  });

  it("refuses a PATCH that changes only the schema so the kept key or an index no longer fits; the type is unchanged", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, {
      name: "Open",
      schema: { type: "object" },
      config: { identifier_key: ["code"], indexed_attributes: [{ path: ["score"], type: "numeric", sortable: true }] },
    });
    const indexesBefore = await typeIndexes(t.id);
    expect(indexesBefore).toHaveLength(1);
    const flags = { type: "object", additionalProperties: false, properties: { score: { type: "boolean" } } };
    const err = expectError(await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema: flags } }), 422, "VALIDATION_FAILED");
    expect(violationLines(err)).toEqual([
      "config.identifier_key[0]: attributes.code is not defined by the schema (additionalProperties is false)",
      "config.indexed_attributes[0].type: numeric cannot index attributes.score (boolean in the schema); it reads a number, an integer or a string with format decimal, number, integer, int32, int64, float or double",
    ]);
    const got = (await call("GET", `/entity/entity-types/${t.id}`, { auth })).json.data;
    expect(got.schema).toEqual({ type: "object" });
    expect(await typeIndexes(t.id)).toEqual(indexesBefore);
  });

  it("refuses a PATCH by schema_name, and one that changes only the config; nothing is written", async () => {
    const { auth } = await createTenant();
    const t = await createType(auth, {
      name: "Cust",
      schema: { type: "object", properties: { email: { type: "string" }, score: { type: "number" } } },
      config: { identifier_key: ["email"], indexed_attributes: [{ path: ["score"], type: "numeric" }] },
    });
    const indexesBefore = await typeIndexes(t.id);
    await call("POST", "/schema/schemas", {
      auth,
      body: { name: "scored-as-text", schema: { type: "object", properties: { email: { type: "string" }, score: { type: "string" } } } },
    });
    const byName = expectError(
      await call("PATCH", `/entity/entity-types/${t.id}`, { auth, body: { schema_name: "scored-as-text" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(byName)).toEqual([
      "config.indexed_attributes[0].type: numeric cannot index attributes.score (string in the schema); it reads a number, an integer or a string with format decimal, number, integer, int32, int64, float or double",
    ]);
    const configOnly = expectError(
      await call("PATCH", `/entity/entity-types/${t.id}`, {
        auth,
        body: {
          config: {
            indexed_attributes: [
              { path: ["email"], type: "boolean" },
              { path: ["attributes", "score"], type: "numeric" },
            ],
          },
        },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(violationLines(configOnly)).toEqual([
      "config.indexed_attributes[0].type: boolean cannot index attributes.email (string in the schema); it reads a boolean",
      'config.indexed_attributes[1].path: paths are relative to attributes; use ["score"]',
    ]);
    const got = (await call("GET", `/entity/entity-types/${t.id}`, { auth })).json.data;
    expect(got).toMatchObject({ schema_name: null, schema: { properties: { score: { type: "number" } } } });
    expect(got.config.indexed_attributes).toEqual([{ path: ["score"], type: "numeric", filterable: true, sortable: false, searchable: false }]);
    expect(await typeIndexes(t.id)).toEqual(indexesBefore);
  });
});
