import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const personSchema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string" },
    age: { type: "integer", minimum: 0 },
    tags: { type: "array", items: { type: "string" } },
  },
};

async function register(auth: string, name: string, schema: unknown) {
  const res = await call("POST", "/schema/schemas", { auth, body: { name, schema } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; name: string; schema: any; version: number };
}

describe("POST /schema/schemas", () => {
  it("registers a schema as version 1 and the same name again as version 2", async () => {
    const { auth } = await createTenant();
    const res = await call("POST", "/schema/schemas", { auth, body: { name: "person", schema: personSchema } });
    expect(res.status).toBe(201);
    const v1 = res.json.data;
    expect(v1).toMatchObject({ name: "person", schema: personSchema, version: 1 });
    expect(v1.id).toMatch(UUID);

    const changed = { ...personSchema, required: ["name", "age"] };
    const again = await call("POST", "/schema/schemas", { auth, body: { name: "person", schema: changed } });
    expect(again.status).toBe(201);
    expect(again.json.data).toMatchObject({ name: "person", schema: changed, version: 2 });
    expect(again.json.data.id).toMatch(UUID);
    expect(again.json.data.id).not.toBe(v1.id);

    // Another name starts at version 1 again.
    expect((await register(auth, "address", { type: "object" })).version).toBe(1);
  });

  it("versions per tenant: another tenant registering the same name gets version 1", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await register(a.auth, "shared-name", { type: "object" });
    await register(a.auth, "shared-name", { type: "object" });
    expect((await register(b.auth, "shared-name", { type: "object" })).version).toBe(1);
  });

  it("refuses a bad name, a missing schema and a schema that is neither an object nor a boolean with 422", async () => {
    const { auth } = await createTenant();
    const badName = expectError(
      await call("POST", "/schema/schemas", { auth, body: { name: "bad name!", schema: { type: "object" } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(badName.details.validation_errors.some((l: string) => l.startsWith("name: "))).toBe(true);
    expectError(await call("POST", "/schema/schemas", { auth, body: { name: "", schema: { type: "object" } } }), 422, "VALIDATION_FAILED");
    expectError(await call("POST", "/schema/schemas", { auth, body: { name: 5, schema: { type: "object" } } }), 422, "VALIDATION_FAILED");

    const missing = expectError(await call("POST", "/schema/schemas", { auth, body: { name: "ok" } }), 422, "VALIDATION_FAILED");
    expect(missing.details.validation_errors).toContain("schema: is required");

    for (const schema of [[], "object", 42, null]) {
      const err = expectError(await call("POST", "/schema/schemas", { auth, body: { name: "ok", schema } }), 422, "VALIDATION_FAILED");
      expect(
        err.details.validation_errors.some((l: string) => l.startsWith("schema: ")),
        JSON.stringify(err),
      ).toBe(true);
    }
    // Nothing was registered by the refused calls.
    const list = await call("GET", "/schema/schemas", { auth });
    expect(list.json.pagination.total).toBe(0);
    expect(list.json.data).toEqual([]);
  });
});

describe("GET /schema/schemas", () => {
  it("lists the latest version of each name with the pagination envelope", async () => {
    const { auth } = await createTenant();
    await register(auth, "beta", { type: "object", title: "beta v1" });
    await register(auth, "alpha", { type: "object", title: "alpha v1" });
    await register(auth, "beta", { type: "object", title: "beta v2" });
    await register(auth, "beta", { type: "object", title: "beta v3" });
    await register(auth, "gamma", { type: "object", title: "gamma v1" });

    const res = await call("GET", "/schema/schemas", { auth });
    expect(res.status).toBe(200);
    expect(res.json.pagination).toEqual({ page: 1, limit: 100, total: 3, total_pages: 1 });
    expect(res.json.data.map((s: any) => [s.name, s.version, s.schema.title])).toEqual([
      ["alpha", 1, "alpha v1"],
      ["beta", 3, "beta v3"],
      ["gamma", 1, "gamma v1"],
    ]);

    const page2 = await call("GET", "/schema/schemas?page=2&limit=2", { auth });
    expect(page2.status).toBe(200);
    expect(page2.json.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(page2.json.data.map((s: any) => s.name)).toEqual(["gamma"]);

    expectError(await call("GET", "/schema/schemas?limit=1001", { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/schema/schemas?page=0", { auth }), 422, "VALIDATION_FAILED");
  });

  it("does not list another tenant's schemas", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await register(a.auth, "only-a", { type: "object" });
    const res = await call("GET", "/schema/schemas", { auth: b.auth });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
    expect(res.json.pagination.total).toBe(0);
  });
});

describe("GET /schema/schemas/:idOrName", () => {
  it("gets an exact version by id and the latest version by name", async () => {
    const { auth } = await createTenant();
    const v1 = await register(auth, "person", personSchema);
    const v2 = await register(auth, "person", { ...personSchema, title: "second" });

    const byId1 = await call("GET", `/schema/schemas/${v1.id}`, { auth });
    expect(byId1.status).toBe(200);
    expect(byId1.json.data).toMatchObject({ id: v1.id, name: "person", version: 1, schema: personSchema });

    const byId2 = await call("GET", `/schema/schemas/${v2.id}`, { auth });
    expect(byId2.json.data).toMatchObject({ id: v2.id, version: 2 });

    const byName = await call("GET", "/schema/schemas/person", { auth });
    expect(byName.status).toBe(200);
    expect(byName.json.data).toMatchObject({ id: v2.id, name: "person", version: 2, schema: { title: "second" } });
  });

  it("answers 404 for unknown names and ids, and for another tenant's schema", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const s = await register(a.auth, "private", { type: "object" });
    expectError(await call("GET", "/schema/schemas/nope", { auth: a.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/schema/schemas/${crypto.randomUUID()}`, { auth: a.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/schema/schemas/${s.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/schema/schemas/private", { auth: b.auth }), 404, "NOT_FOUND");
    // Still visible to its owner.
    expect((await call("GET", `/schema/schemas/${s.id}`, { auth: a.auth })).json.data.id).toBe(s.id);
  });
});

describe("POST /schema/validate", () => {
  it("validates against a registered schema by name", async () => {
    const { auth } = await createTenant();
    await register(auth, "person", personSchema);
    const ok = await call("POST", "/schema/validate", { auth, body: { schema_name: "person", data: { name: "Ada", age: 36, tags: ["x"] } } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ data: { valid: true, errors: [] } });

    const bad = await call("POST", "/schema/validate", { auth, body: { schema_name: "person", data: { age: "old", tags: ["a", 2, "c", false] } } });
    expect(bad.status).toBe(200);
    expect(bad.json.data.valid).toBe(false);
    expect(bad.json.data.errors).toEqual(
      expect.arrayContaining([
        "name: is required",
        "age: must be integer, got string",
        "tags[1]: must be string, got number",
        "tags[3]: must be string, got boolean",
      ]),
    );
    expect(bad.json.data.errors).toHaveLength(4);
    for (const line of bad.json.data.errors) expect(line).toMatch(/^\S+: .+$/);
  });

  it("uses the latest version of a name", async () => {
    const { auth } = await createTenant();
    await register(auth, "doc", { type: "object", required: ["a"] });
    await register(auth, "doc", { type: "object", required: ["b"] });
    const res = await call("POST", "/schema/validate", { auth, body: { schema_name: "doc", data: { a: 1 } } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ valid: false, errors: ["b: is required"] });
    const ok = await call("POST", "/schema/validate", { auth, body: { schema_name: "doc", data: { b: 1 } } });
    expect(ok.json.data).toEqual({ valid: true, errors: [] });
  });

  it("validates against an inline schema, with nested array positions in the paths", async () => {
    const { auth } = await createTenant();
    const schema = {
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", required: ["qty"], properties: { qty: { type: "number", minimum: 1 } } } },
      },
    };
    const ok = await call("POST", "/schema/validate", { auth, body: { schema, data: { items: [{ qty: 1 }, { qty: 2.5 }] } } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ data: { valid: true, errors: [] } });

    const bad = await call("POST", "/schema/validate", { auth, body: { schema, data: { items: [{ qty: 1 }, {}, { qty: "3" }] } } });
    expect(bad.status).toBe(200);
    expect(bad.json.data.valid).toBe(false);
    expect(bad.json.data.errors).toEqual(["items[1].qty: is required", "items[2].qty: must be number, got string"]);

    const root = await call("POST", "/schema/validate", { auth, body: { schema, data: [1, 2] } });
    expect(root.json.data.valid).toBe(false);
    expect(root.json.data.errors).toEqual(["(root): must be object, got array"]);
  });

  it("refuses both or neither of schema and schema_name with 422", async () => {
    const { auth } = await createTenant();
    await register(auth, "person", personSchema);
    expectError(
      await call("POST", "/schema/validate", { auth, body: { schema_name: "person", schema: { type: "object" }, data: {} } }),
      422,
      "VALIDATION_FAILED",
    );
    expectError(await call("POST", "/schema/validate", { auth, body: { data: {} } }), 422, "VALIDATION_FAILED");
    expectError(await call("POST", "/schema/validate", { auth, body: { schema: [], data: {} } }), 422, "VALIDATION_FAILED");
  });

  it("answers 404 for an unknown schema_name, including another tenant's", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await register(a.auth, "person", personSchema);
    expectError(await call("POST", "/schema/validate", { auth: a.auth, body: { schema_name: "unknown", data: {} } }), 404, "NOT_FOUND");
    expectError(await call("POST", "/schema/validate", { auth: b.auth, body: { schema_name: "person", data: {} } }), 404, "NOT_FOUND");
  });
});
