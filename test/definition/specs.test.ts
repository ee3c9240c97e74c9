// /definition/specs through the gateway: publishing, the document kept as
// written, versions, validation without saving, the schema, deletion, and
// every refusal changing nothing.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { roleToken } from "../access/fixture";
import { SPEC_DOCUMENT_SCHEMA } from "../../src/definition/language/spec-schema";
import { footprint, publish, refused, specDoc } from "./specs-support";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("POST /definition/specs", () => {
  it("publishes version 1 and answers the document as written, key order included", async () => {
    const t = await createTenant();
    const doc = specDoc();
    const res = await call("POST", "/definition/specs", { auth: t.auth, body: { name: "Orders", description: "Order desk", spec_document: doc } });
    expect(res.status, res.text).toBe(201);
    const spec = res.json.data;
    expect(Object.keys(spec)).toEqual(["id", "name", "description", "version", "spec_document", "created_at", "updated_at"]);
    expect(spec).toMatchObject({ name: "Orders", description: "Order desk", version: 1 });
    expect(spec.id).toMatch(UUID);
    expect(spec.created_at).toMatch(TIMESTAMP);
    // toEqual ignores key order; the serialised text does not.
    expect(JSON.stringify(spec.spec_document)).toBe(JSON.stringify(doc));
    expect(Object.keys(spec.spec_document.dashboards)).toEqual(["zeta", "alpha"]);

    const got = await call("GET", `/definition/specs/${spec.id}`, { auth: t.auth });
    expect(got.json.data).toEqual(spec);
    expect(JSON.stringify(got.json.data.spec_document)).toBe(JSON.stringify(doc));
    // Stored as text too, so the database keeps the order it was given.
    const [row] = await systemQuery("SELECT spec_document::text AS doc FROM app_specs WHERE id = $1", [spec.id]);
    expect(JSON.parse(row.doc)).toEqual(doc);
    expect(Object.keys(JSON.parse(row.doc).dashboards)).toEqual(["zeta", "alpha"]);

    const versions = await call("GET", `/definition/specs/${spec.id}/versions`, { auth: t.auth });
    expect(versions.json).toEqual({
      data: [{ version: 1, created_at: expect.stringMatching(TIMESTAMP) }],
      pagination: { page: 1, limit: 100, total: 1, total_pages: 1 },
    });
    const v1 = await call("GET", `/definition/specs/${spec.id}/versions/1`, { auth: t.auth });
    expect(Object.keys(v1.json.data)).toEqual(["version", "spec_document", "created_at"]);
    expect(JSON.stringify(v1.json.data.spec_document)).toBe(JSON.stringify(doc));
  });

  it("answers description null when left out", async () => {
    const t = await createTenant();
    expect((await publish(t, { name: "Plain", spec_document: specDoc() })).description).toBeNull();
  });

  it("refuses a name the tenant already uses with 409, while another tenant may use it", async () => {
    const t = await createTenant();
    await publish(t, { name: "Orders", spec_document: specDoc() });
    const err = await refused(
      t,
      () => call("POST", "/definition/specs", { auth: t.auth, body: { name: "Orders", spec_document: specDoc("Other") } }),
      409,
      "CONFLICT",
    );
    expect(err.details).toMatchObject({ name: "Orders" });
    const other = await createTenant();
    await publish(other, { name: "Orders", spec_document: specDoc() });
  });

  it("refuses a document without dashboards with 422 SPEC_STRUCTURE_INVALID, storing nothing", async () => {
    const t = await createTenant();
    const err = await refused(
      t,
      () => call("POST", "/definition/specs", { auth: t.auth, body: { name: "Bad", spec_document: { pages: {} } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect(err.details.issues).toEqual([{ path: "dashboards", code: "required", message: "is required: a spec declares at least one dashboard" }]);
    expect(err.details.errors).toEqual(err.details.validation_errors);
  });

  const badBodies: [string, unknown, string][] = [
    ["no name", { spec_document: specDoc() }, "name: is required"],
    ["no document", { name: "x" }, "spec_document: is required"],
    ["a numeric name", { name: 7, spec_document: specDoc() }, "name: must be string, got number"],
    ["an empty name", { name: "", spec_document: specDoc() }, "name:"],
    ["a string document", { name: "x", spec_document: "dashboards: {}" }, "spec_document: must be object, got string"],
    ["an array document", { name: "x", spec_document: [specDoc()] }, "spec_document: must be object, got array"],
    ["a numeric description", { name: "x", description: 1, spec_document: specDoc() }, "description: must be string, got number"],
    ["an unknown field", { name: "x", spec_document: specDoc(), version: 3 }, "version: is not allowed"],
    ["a NUL in the name", { name: "a\u0000b", spec_document: specDoc() }, "name: must not contain NUL characters or unpaired surrogates"],
    [
      "a NUL in a key of the document",
      { name: "x", spec_document: { ...specDoc(), "mess\u0000ages": {} } },
      "is a key with NUL characters or unpaired surrogates",
    ],
    [
      "a lone surrogate in a value of the document",
      { name: "x", spec_document: { ...specDoc(), messages: { a: "x\ud800y" } } },
      "must not contain NUL characters or unpaired surrogates",
    ],
    [
      "a lone surrogate in a key of the document",
      { name: "x", spec_document: { ...specDoc(), messages: { "\udc00": "x" } } },
      "is a key with NUL characters or unpaired surrogates",
    ],
  ];
  it.each(badBodies)("refuses %s with 422, storing nothing", async (_, body, line) => {
    const t = await createTenant();
    const err = await refused(t, () => call("POST", "/definition/specs", { auth: t.auth, body }), 422, "VALIDATION_FAILED");
    expect(err.details.errors.join("\n")).toContain(line);
  });

  it("refuses a document 10,000 levels deep with 422 and one of 5 MiB with 413, storing nothing", async () => {
    const t = await createTenant();
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const err = await refused(
      t,
      () => call("POST", "/definition/specs", { auth: t.auth, body: { name: "deep", spec_document: { ...specDoc(), messages: deep } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.errors.join("\n")).toContain("nests deeper than");
    const big = { ...specDoc(), messages: { blob: "x".repeat(5 * 1024 * 1024) } };
    await refused(t, () => call("POST", "/definition/specs", { auth: t.auth, body: { name: "big", spec_document: big } }), 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("PUT /definition/specs/:id", () => {
  it("publishes the next version, keeps every earlier one unchanged, and a refused PUT keeps the stored version", async () => {
    const t = await createTenant();
    const first = await publish(t, { name: "Orders", spec_document: specDoc("One") });
    const v2 = await call("PUT", `/definition/specs/${first.id}`, {
      auth: t.auth,
      body: { name: "Orders 2", description: "second", spec_document: specDoc("Two") },
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.data).toMatchObject({ id: first.id, name: "Orders 2", description: "second", version: 2, created_at: first.created_at });
    expect(v2.json.data.spec_document.dashboards.zeta.name).toBe("Two");
    expect(v2.json.data.updated_at > first.updated_at).toBe(true);

    await refused(
      t,
      () => call("PUT", `/definition/specs/${first.id}`, { auth: t.auth, body: { name: "Orders 3", spec_document: { widgets: {} } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect((await call("GET", `/definition/specs/${first.id}`, { auth: t.auth })).json.data).toEqual(v2.json.data);

    const list = await call("GET", `/definition/specs/${first.id}/versions`, { auth: t.auth });
    expect(list.json.data.map((v: any) => v.version)).toEqual([2, 1]);
    const v1 = await call("GET", `/definition/specs/${first.id}/versions/1`, { auth: t.auth });
    expect(v1.json.data.spec_document.dashboards.zeta.name).toBe("One");
    expect(JSON.stringify(v1.json.data.spec_document)).toBe(JSON.stringify(specDoc("One")));
    expectError(await call("GET", `/definition/specs/${first.id}/versions/3`, { auth: t.auth }), 404, "NOT_FOUND");
  });

  it("refuses a rename onto a name the tenant uses with 409, changing nothing", async () => {
    const t = await createTenant();
    await publish(t, { name: "Taken", spec_document: specDoc() });
    const mine = await publish(t, { name: "Mine", spec_document: specDoc() });
    await refused(
      t,
      () => call("PUT", `/definition/specs/${mine.id}`, { auth: t.auth, body: { name: "Taken", spec_document: specDoc("New") } }),
      409,
      "CONFLICT",
    );
  });
});

describe("GET /definition/specs", () => {
  it("lists newest first with paging and a name filter", async () => {
    const t = await createTenant();
    const a = await publish(t, { name: "A", spec_document: specDoc() });
    const b = await publish(t, { name: "B", spec_document: specDoc() });
    const c = await publish(t, { name: "C", spec_document: specDoc() });
    const page1 = await call("GET", "/definition/specs?limit=2", { auth: t.auth });
    expect(page1.json.data.map((s: any) => s.id)).toEqual([c.id, b.id]);
    expect(page1.json.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2 });
    const page2 = await call("GET", "/definition/specs?limit=2&page=2", { auth: t.auth });
    expect(page2.json.data.map((s: any) => s.id)).toEqual([a.id]);
    const named = await call("GET", "/definition/specs?name=B", { auth: t.auth });
    expect(named.json.data).toEqual([b]);
    expect(named.json.data[0]).not.toHaveProperty("source_type");
    expectError(await call("GET", "/definition/specs?limit=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("unknown and malformed ids", () => {
  it("answers 404 for an unknown id or version and 422 for a malformed one, on every verb", async () => {
    const t = await createTenant();
    const spec = await publish(t, { name: "S", spec_document: specDoc() });
    const unknown = crypto.randomUUID();
    for (const [method, path, body] of [
      ["GET", `/definition/specs/${unknown}`],
      ["PUT", `/definition/specs/${unknown}`, { name: "S2", spec_document: specDoc() }],
      ["DELETE", `/definition/specs/${unknown}`],
      ["GET", `/definition/specs/${unknown}/versions`],
      ["GET", `/definition/specs/${unknown}/versions/1`],
      ["GET", `/definition/specs/${spec.id}/versions/2`],
    ] as const) {
      await refused(t, () => call(method, path, { auth: t.auth, body }), 404, "NOT_FOUND");
    }
    const malformed = await refused(t, () => call("GET", "/definition/specs/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(malformed.details.validation_errors).toEqual(["id: must be a UUID"]);
    await refused(t, () => call("DELETE", "/definition/specs/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED");
    for (const version of ["0", "abc", "-1", "1.5", "99999999999"]) {
      await refused(t, () => call("GET", `/definition/specs/${spec.id}/versions/${version}`, { auth: t.auth }), 422, "VALIDATION_FAILED");
    }
  });
});

describe("POST /definition/specs/validate and GET /definition/specs/schema", () => {
  it("answers every issue without saving anything", async () => {
    const t = await createTenant();
    const before = await footprint(t.tenantId);
    const ok = await call("POST", "/definition/specs/validate", { auth: t.auth, body: { spec_document: specDoc() } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toEqual({ data: { valid: true, issues: [] } });
    const bad = await call("POST", "/definition/specs/validate", {
      auth: t.auth,
      body: { spec_document: { dashboards: 3, configSchemas: { app: "nowhere" } } },
    });
    expect(bad.status).toBe(200);
    expect(bad.json.data.valid).toBe(false);
    expect(bad.json.data.issues).toContainEqual({ path: "dashboards", code: "schema_violation", message: "must be object, got number" });
    expect(bad.json.data.issues).toContainEqual({
      path: "configSchemas.app",
      code: "unknown_schema",
      message: "names no schema registered in this tenant or shared with it (nowhere)",
    });
    expect(await footprint(t.tenantId)).toEqual(before);
    expectError(await call("POST", "/definition/specs/validate", { auth: t.auth, body: {} }), 422, "VALIDATION_FAILED");
  });

  it("serves the spec document's JSON Schema, which the OpenAPI document uses for spec_document", async () => {
    const t = await createTenant();
    const res = await call("GET", "/definition/specs/schema", { auth: t.auth });
    expect(res.json).toEqual({ data: SPEC_DOCUMENT_SCHEMA });
    const doc = (await call("GET", "/openapi.json")).json;
    const body = doc.paths["/definition/specs"].post.requestBody.content["application/json"].schema;
    expect(body.properties.spec_document).toEqual({ $ref: "#/components/schemas/SpecDocument" });
    // Its $defs are components of their own (Spec<Def>), every reference rewritten to resolve in the OpenAPI document.
    const defs = Object.keys(SPEC_DOCUMENT_SCHEMA.$defs);
    for (const def of defs) expect(doc.components.schemas[`Spec${def[0].toUpperCase()}${def.slice(1)}`], def).toBeDefined();
    expect(doc.components.schemas.SpecDocument.required).toEqual(SPEC_DOCUMENT_SCHEMA.required);
    const refs = [...JSON.stringify(doc.components.schemas).matchAll(/"\$ref":"#\/components\/schemas\/(Spec[A-Za-z]*)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(defs.length);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref], ref).toBeDefined();
  });
});

describe("DELETE /definition/specs/:id", () => {
  it("removes the spec with its versions", async () => {
    const t = await createTenant();
    const spec = await publish(t, { name: "Gone", spec_document: specDoc() });
    const res = await call("DELETE", `/definition/specs/${spec.id}`, { auth: t.auth });
    expect(res.json).toEqual({ data: { id: spec.id, deleted: true } });
    expectError(await call("GET", `/definition/specs/${spec.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect(await footprint(t.tenantId)).toEqual({ specs: [], versions: [], shares: [] });
    // The name is free again.
    await publish(t, { name: "Gone", spec_document: specDoc() });
  });
});

describe("permissions", () => {
  it("lets a definition:read token read and validate but not publish or delete", async () => {
    const t = await createTenant();
    const spec = await publish(t, { name: "S", spec_document: specDoc() });
    const reader = await roleToken(t.auth, ["definition:read"]);
    expect((await call("GET", `/definition/specs/${spec.id}`, { auth: reader.auth })).status).toBe(200);
    expect((await call("GET", `/definition/specs/${spec.id}/versions/1`, { auth: reader.auth })).status).toBe(200);
    expect((await call("POST", "/definition/specs/validate", { auth: reader.auth, body: { spec_document: specDoc() } })).status).toBe(200);
    const denied = await refused(
      t,
      () => call("POST", "/definition/specs", { auth: reader.auth, body: { name: "New", spec_document: specDoc() } }),
      403,
      "FORBIDDEN",
    );
    expect(denied.details).toMatchObject({ resource: "definition", action: "create" });
    await refused(t, () => call("PUT", `/definition/specs/${spec.id}`, { auth: reader.auth, body: { name: "S", spec_document: specDoc() } }), 403, "FORBIDDEN");
    await refused(t, () => call("DELETE", `/definition/specs/${spec.id}`, { auth: reader.auth }), 403, "FORBIDDEN");
    const outsider = await roleToken(t.auth, ["workflow:read"]);
    expect(expectError(await call("GET", "/definition/specs", { auth: outsider.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "definition",
      action: "read",
    });
    expectError(await call("GET", "/definition/specs/schema", { auth: outsider.auth }), 403, "FORBIDDEN");
  });
});
