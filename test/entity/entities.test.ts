import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createProductType, createType, eventsOf } from "../support/entities";

describe("POST /entity/entities", () => {
  it("creates an entity with a computed key and records a created event", async () => {
    const { auth } = await createTenant();
    const type = await createProductType(auth);
    const res = await call("POST", "/entity/entities", {
      auth,
      body: { type_name: "Product", name: "Widget", attributes: { sku: "W-1", title: "Widget", price: 9.5 } },
    });
    expect(res.status).toBe(201);
    const e = res.json.data;
    expect(e).toMatchObject({
      name: "Widget",
      type: { id: type.id, name: "Product" },
      attributes: { sku: "W-1", title: "Widget", price: 9.5 },
      identifier_key: "W-1",
      deleted_at: null,
    });
    expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const events = await eventsOf(auth, e.id);
    expect(events.map((x) => [x.action, x.suppressed])).toEqual([["created", false]]);
    expect(events[0].payload.entity).toMatchObject({ id: e.id, identifier_key: "W-1", type: { name: "Product" } });
  });

  it("computes a multi-segment key as |a|b| from dotted paths", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Place", schema: { type: "object" }, config: { identifier_key: ["region", "address.zip"] } });
    const e = await createEntity(auth, "Place", "HQ", { region: "eu", address: { zip: 1011 } });
    expect(e.identifier_key).toBe("|eu|1011|");
  });

  it("refuses a live duplicate key with 409 and writes nothing", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const first = await createEntity(auth, "Product", "A", { sku: "D-1", title: "a" });
    const dup = await call("POST", "/entity/entities", { auth, body: { type_name: "Product", name: "B", attributes: { sku: "D-1", title: "b" } } });
    const err = expectError(dup, 409, "CONFLICT");
    expect(err.details.existing_entity_id).toBe(first.id);
    const list = await call("GET", "/entity/entities?type_name=Product", { auth });
    expect(list.json.pagination.total).toBe(1);
  });

  it("refuses attributes that break the schema with 422 lines", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const res = await call("POST", "/entity/entities", { auth, body: { type_name: "Product", name: "X", attributes: { sku: 5, tags: ["a", 2] } } });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(
      expect.arrayContaining(["attributes.sku: must be string, got number", "attributes.title: is required", "attributes.tags[1]: must be string, got number"]),
    );
    expect(err.details.errors).toEqual(err.details.validation_errors);
  });

  it("refuses entities of a draft type with 422 UNPROCESSABLE_ENTITY", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Draft", status: "draft", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    expectError(await call("POST", "/entity/entities", { auth, body: { type_name: "Draft", name: "x", attributes: { k: "1" } } }), 422, "UNPROCESSABLE_ENTITY");
  });

  it("answers unknown types, missing key attributes and bad bodies with the envelope", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Loose", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    expectError(await call("POST", "/entity/entities", { auth, body: { type_name: "Nope", name: "x", attributes: {} } }), 404, "NOT_FOUND");
    const missing = expectError(
      await call("POST", "/entity/entities", { auth, body: { type_name: "Loose", name: "x", attributes: {} } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(missing.details.validation_errors).toEqual(["attributes.k: is required to compute the identifier key"]);
    expectError(await call("POST", "/entity/entities", { auth, body: { type_name: "Loose", name: "x", attributes: [] } }), 422, "VALIDATION_FAILED");
    expectError(await call("POST", "/entity/entities", { auth, body: { name: "x", attributes: {} } }), 422, "VALIDATION_FAILED");
  });
});

describe("GET /entity/entities", () => {
  it("lists one type with the pagination envelope", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    for (let i = 0; i < 5; i++) await createEntity(auth, "Product", `P${i}`, { sku: `S${i}`, title: "t" });
    const page = await call("GET", "/entity/entities?type_name=Product&page=2&limit=2", { auth });
    expect(page.status).toBe(200);
    expect(page.json.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect(page.json.data.map((e: any) => e.name)).toEqual(["P2", "P3"]);
    expectError(await call("GET", "/entity/entities", { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/entity/entities?type_name=Product&limit=1001", { auth }), 422, "VALIDATION_FAILED");
  });

  it("gets by id, 404 for unknown, other tenant's and deleted ids, 422 for a non-uuid", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createProductType(a.auth);
    const e = await createEntity(a.auth, "Product", "A", { sku: "1", title: "t" });
    expect((await call("GET", `/entity/entities/${e.id}`, { auth: a.auth })).json.data.id).toBe(e.id);
    expectError(await call("GET", `/entity/entities/${e.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/entity/entities/${crypto.randomUUID()}`, { auth: a.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/entity/entities/not-a-uuid`, { auth: a.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("PUT /entity/entities/:id", () => {
  it("replaces attributes, recomputes the key and records updated; no event when nothing changed", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const e = await createEntity(auth, "Product", "A", { sku: "1", title: "t", price: 1 });
    const res = await call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { sku: "2", title: "t2" } } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ attributes: { sku: "2", title: "t2" }, identifier_key: "2", name: "A" });
    expect(res.json.data.updated_at).not.toBe(e.updated_at);
    const same = await call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { title: "t2", sku: "2" } } });
    expect(same.json.data.updated_at).toBe(res.json.data.updated_at);
    expect((await eventsOf(auth, e.id)).map((x) => x.action)).toEqual(["created", "updated"]);
  });

  it("on a key collision merges: the target survives, the incumbent is soft-deleted, its links re-pointed, merged recorded", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    await createType(auth, { name: "Shop", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    await call("POST", "/entity/relationship-rules", { auth, body: { name: "sells", from_entity_type_name: "Shop", to_entity_type_name: "Product" } });
    const shop = await createEntity(auth, "Shop", "S", { code: "s1" });
    const target = await createEntity(auth, "Product", "T", { sku: "T", title: "t" });
    const incumbent = await createEntity(auth, "Product", "I", { sku: "I", title: "i" });
    expect(
      (await call("POST", "/entity/relationships", { auth, body: { rule_name: "sells", from_entity_id: shop.id, to_entity_id: incumbent.id } })).status,
    ).toBe(201);

    const refused = await call("PUT", `/entity/entities/${target.id}`, { auth, body: { attributes: { sku: "I", title: "x" }, merge_on_conflict: false } });
    expectError(refused, 409, "CONFLICT");

    const merged = await call("PUT", `/entity/entities/${target.id}`, { auth, body: { attributes: { sku: "I", title: "merged" } } });
    expect(merged.status).toBe(200);
    expect(merged.json.data).toMatchObject({ id: target.id, identifier_key: "I" });
    expectError(await call("GET", `/entity/entities/${incumbent.id}`, { auth }), 404, "NOT_FOUND");
    const withRels = await call("GET", `/entity/entities/${shop.id}?include=Product`, { auth });
    expect(withRels.json.data.relationships.map((r: any) => [r.entity.id, r.direction, r.rule.name])).toEqual([[target.id, "to", "sells"]]);
    expect((await eventsOf(auth, target.id)).map((x) => x.action)).toEqual(["created", "merged", "updated"]);
  });

  it("answers 404 for unknown ids and 422 for bad bodies", async () => {
    const { auth } = await createTenant();
    expectError(await call("PUT", `/entity/entities/${crypto.randomUUID()}`, { auth, body: { attributes: {} } }), 404, "NOT_FOUND");
    expectError(await call("PUT", `/entity/entities/${crypto.randomUUID()}`, { auth, body: { attributes: "x" } }), 422, "VALIDATION_FAILED");
  });
});

describe("PATCH /entity/entities/:id/attributes", () => {
  it("merges top-level fields, null removes, nested objects replaced whole", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Doc", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const e = await createEntity(auth, "Doc", "d", { k: "1", a: 1, b: 2, nested: { x: 1, y: 2 } });
    const res = await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { a: 10, b: null, nested: { x: 5 } } } });
    expect(res.status).toBe(200);
    expect(res.json.data.attributes).toEqual({ k: "1", a: 10, nested: { x: 5 } });
  });

  it("is a compare-and-swap on updated_at: a stale expected_updated_at is 409 CONCURRENT_MODIFICATION and changes nothing", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Doc", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const e = await createEntity(auth, "Doc", "d", { k: "1", a: 1 });
    const first = await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { a: 2 }, expected_updated_at: e.updated_at } });
    expect(first.status).toBe(200);
    const stale = await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { a: 3 }, expected_updated_at: e.updated_at } });
    const err = expectError(stale, 409, "CONFLICT");
    expect(err.details.code).toBe("CONCURRENT_MODIFICATION");
    expect((await call("GET", `/entity/entities/${e.id}`, { auth })).json.data.attributes.a).toBe(2);
  });

  it("revalidates the merged attributes and can trigger a rekey-merge", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const a = await createEntity(auth, "Product", "A", { sku: "A", title: "a" });
    const b = await createEntity(auth, "Product", "B", { sku: "B", title: "b" });
    expectError(await call("PATCH", `/entity/entities/${a.id}/attributes`, { auth, body: { attributes: { title: null } } }), 422, "VALIDATION_FAILED");
    const res = await call("PATCH", `/entity/entities/${a.id}/attributes`, { auth, body: { attributes: { sku: "B" } } });
    expect(res.status).toBe(200);
    expect(res.json.data.identifier_key).toBe("B");
    expectError(await call("GET", `/entity/entities/${b.id}`, { auth }), 404, "NOT_FOUND");
  });
});

describe("DELETE", () => {
  it("soft-deletes with cascade to links and records a suppressed deleted event", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    await call("POST", "/entity/relationship-rules", { auth, body: { name: "rel", from_entity_type_name: "Product", to_entity_type_name: "Product" } });
    const a = await createEntity(auth, "Product", "A", { sku: "A", title: "a" });
    const b = await createEntity(auth, "Product", "B", { sku: "B", title: "b" });
    const link = await call("POST", "/entity/relationships", { auth, body: { rule_name: "rel", from_entity_id: a.id, to_entity_id: b.id } });
    const res = await call("DELETE", `/entity/entities/${a.id}`, { auth });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: a.id, deleted: true });
    expect(typeof res.json.data.deleted_at).toBe("string");
    const [linkRow] = await systemQuery("SELECT deleted_at FROM relationships WHERE id = $1", [link.json.data.id]);
    expect(linkRow.deleted_at).not.toBeNull();
    const events = await eventsOf(auth, a.id);
    expect(events.map((x) => [x.action, x.suppressed])).toEqual([
      ["created", false],
      ["deleted", true],
    ]);
    expectError(await call("DELETE", `/entity/entities/${a.id}`, { auth }), 404, "NOT_FOUND");
    // The key is free again once the holder is deleted.
    await createEntity(auth, "Product", "A2", { sku: "A", title: "again" });
  });

  it("bulk-deletes up to 100 ids and reports the ones not found", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createProductType(a.auth);
    await createProductType(b.auth);
    const e1 = await createEntity(a.auth, "Product", "1", { sku: "1", title: "t" });
    const e2 = await createEntity(a.auth, "Product", "2", { sku: "2", title: "t" });
    const foreign = await createEntity(b.auth, "Product", "f", { sku: "f", title: "t" });
    const unknown = crypto.randomUUID();
    const res = await call("POST", "/entity/entities/bulk-delete", { auth: a.auth, body: { ids: [e1.id, e2.id, foreign.id, unknown] } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ deleted: [e1.id, e2.id], not_found: [foreign.id, unknown] });
    expect((await call("GET", `/entity/entities/${foreign.id}`, { auth: b.auth })).status).toBe(200);
    const tooMany = Array.from({ length: 101 }, () => crypto.randomUUID());
    expectError(await call("POST", "/entity/entities/bulk-delete", { auth: a.auth, body: { ids: tooMany } }), 422, "VALIDATION_FAILED");
  });
});
