import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createType } from "../support/entities";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const loose = { type: "object" };

async function createRule(auth: string, body: Record<string, unknown>) {
  const res = await call("POST", "/entity/relationship-rules", { auth, body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; name: string; from_entity_type: { id: string; name: string }; to_entity_type: { id: string; name: string } };
}

async function link(auth: string, body: Record<string, unknown>) {
  return call("POST", "/entity/relationships", { auth, body });
}

async function linkOk(auth: string, body: Record<string, unknown>) {
  const res = await link(auth, body);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; rule: { id: string; name: string }; from_entity_id: string; to_entity_id: string; created_at: string };
}

/** Live links under a rule, straight from the database. */
async function liveLinks(ruleId: string) {
  return systemQuery<{ id: string; from_entity_id: string; to_entity_id: string }>(
    "SELECT id, from_entity_id, to_entity_id FROM relationships WHERE rule_id = $1 AND deleted_at IS NULL ORDER BY created_at, id",
    [ruleId],
  );
}

/** A tenant with Person (key `pid`) and Car (key `vin`) types. */
async function personsAndCars() {
  const t = await createTenant();
  const person = await createType(t.auth, { name: "Person", schema: loose, config: { identifier_key: ["pid"] } });
  const car = await createType(t.auth, { name: "Car", schema: loose, config: { identifier_key: ["vin"] } });
  return { ...t, person, car };
}

describe("relationship rules", () => {
  it("creates a rule by type names and by type ids", async () => {
    const { auth, person, car } = await personsAndCars();
    const byName = await call("POST", "/entity/relationship-rules", {
      auth,
      body: { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car", max_to_cardinality: 2 },
    });
    expect(byName.status).toBe(201);
    expect(byName.json.data.id).toMatch(UUID);
    expect(byName.json.data).toMatchObject({
      name: "owns",
      from_entity_type: { id: person.id, name: "Person" },
      to_entity_type: { id: car.id, name: "Car" },
      max_from_cardinality: null,
      max_to_cardinality: 2,
    });

    const byId = await call("POST", "/entity/relationship-rules", {
      auth,
      body: { name: "parked-next-to", from_entity_type_id: car.id, to_entity_type_id: car.id, max_from_cardinality: 1, max_to_cardinality: null },
    });
    expect(byId.status).toBe(201);
    expect(byId.json.data).toMatchObject({
      name: "parked-next-to",
      from_entity_type: { id: car.id, name: "Car" },
      to_entity_type: { id: car.id, name: "Car" },
      max_from_cardinality: 1,
      max_to_cardinality: null,
    });
    const got = await call("GET", `/entity/relationship-rules/${byId.json.data.id}`, { auth });
    expect(got.status).toBe(200);
    expect(got.json.data).toMatchObject({ id: byId.json.data.id, name: "parked-next-to" });
  });

  it("lists rules where the named type is on either side", async () => {
    const { auth } = await personsAndCars();
    await createType(auth, { name: "Garage", schema: loose, config: { identifier_key: ["g"] } });
    await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    await createRule(auth, { name: "houses", from_entity_type_name: "Garage", to_entity_type_name: "Car" });
    await createRule(auth, { name: "rents", from_entity_type_name: "Person", to_entity_type_name: "Garage" });

    const forCar = await call("GET", "/entity/relationship-rules?entity_type_name=Car", { auth });
    expect(forCar.status).toBe(200);
    expect(forCar.json.data.map((r: any) => r.name)).toEqual(["houses", "owns"]);
    expect(forCar.json.pagination).toEqual({ page: 1, limit: 100, total: 2, total_pages: 1 });

    const forPerson = await call("GET", "/entity/relationship-rules?entity_type_name=Person", { auth });
    expect(forPerson.json.data.map((r: any) => r.name)).toEqual(["owns", "rents"]);
    const forGarage = await call("GET", "/entity/relationship-rules?entity_type_name=Garage", { auth });
    expect(forGarage.json.data.map((r: any) => r.name)).toEqual(["houses", "rents"]);
    const all = await call("GET", "/entity/relationship-rules", { auth });
    expect(all.json.pagination.total).toBe(3);
    const none = await call("GET", "/entity/relationship-rules?entity_type_name=Nothing", { auth });
    expect(none.json.data).toEqual([]);
  });

  it("refuses a duplicate name (409), unknown types (404) and bad cardinalities (422)", async () => {
    const { auth } = await personsAndCars();
    await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const dup = expectError(
      await call("POST", "/entity/relationship-rules", { auth, body: { name: "owns", from_entity_type_name: "Car", to_entity_type_name: "Person" } }),
      409,
      "CONFLICT",
    );
    expect(dup.message).toContain("owns");

    expectError(
      await call("POST", "/entity/relationship-rules", { auth, body: { name: "r1", from_entity_type_name: "Person", to_entity_type_name: "Boat" } }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await call("POST", "/entity/relationship-rules", { auth, body: { name: "r2", from_entity_type_name: "Boat", to_entity_type_name: "Car" } }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await call("POST", "/entity/relationship-rules", { auth, body: { name: "r3", from_entity_type_id: crypto.randomUUID(), to_entity_type_name: "Car" } }),
      404,
      "NOT_FOUND",
    );

    for (const bad of [0, -1, "x", 1.5]) {
      expectError(
        await call("POST", "/entity/relationship-rules", {
          auth,
          body: { name: "r4", from_entity_type_name: "Person", to_entity_type_name: "Car", max_to_cardinality: bad },
        }),
        422,
        "VALIDATION_FAILED",
      );
      expectError(
        await call("POST", "/entity/relationship-rules", {
          auth,
          body: { name: "r5", from_entity_type_name: "Person", to_entity_type_name: "Car", max_from_cardinality: bad },
        }),
        422,
        "VALIDATION_FAILED",
      );
    }
    // Both or neither of a side's name and id.
    const { person } = await personsAndCars();
    expectError(await call("POST", "/entity/relationship-rules", { auth, body: { name: "r6", to_entity_type_name: "Car" } }), 422, "VALIDATION_FAILED");
    expectError(
      await call("POST", "/entity/relationship-rules", {
        auth,
        body: { name: "r7", from_entity_type_name: "Person", from_entity_type_id: person.id, to_entity_type_name: "Car" },
      }),
      422,
      "VALIDATION_FAILED",
    );

    const all = await call("GET", "/entity/relationship-rules", { auth });
    expect(all.json.data.map((r: any) => r.name)).toEqual(["owns"]);
  });

  it("another tenant's types cannot be used and its rules are not listed", async () => {
    const a = await personsAndCars();
    const b = await createTenant();
    await createRule(a.auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    expectError(
      await call("POST", "/entity/relationship-rules", {
        auth: b.auth,
        body: { name: "steal", from_entity_type_id: a.person.id, to_entity_type_id: a.car.id },
      }),
      404,
      "NOT_FOUND",
    );
    const list = await call("GET", "/entity/relationship-rules?entity_type_name=Car", { auth: b.auth });
    expect(list.json.data).toEqual([]);
  });
});

describe("POST /entity/relationships", () => {
  it("links two entities by rule name or rule id with the documented shape", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const c1 = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    const c2 = await createEntity(auth, "Car", "Volvo", { vin: "v2" });

    const res = await link(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c1.id });
    expect(res.status).toBe(201);
    const l = res.json.data;
    expect(Object.keys(l).sort()).toEqual(["created_at", "from_entity_id", "id", "rule", "to_entity_id"]);
    expect(l.id).toMatch(UUID);
    expect(l).toMatchObject({ rule: { id: rule.id, name: "owns" }, from_entity_id: p.id, to_entity_id: c1.id });
    expect(l.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

    const byId = await link(auth, { rule_id: rule.id, from_entity_id: p.id, to_entity_id: c2.id });
    expect(byId.status).toBe(201);
    expect(byId.json.data).toMatchObject({ rule: { id: rule.id, name: "owns" }, from_entity_id: p.id, to_entity_id: c2.id });

    const got = await call("GET", `/entity/relationships/${l.id}`, { auth });
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(l);
    expect((await liveLinks(rule.id)).map((r) => r.to_entity_id)).toEqual([c1.id, c2.id]);
  });

  it("refuses entities of the wrong types for the rule with 422 and writes nothing", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const p2 = await createEntity(auth, "Person", "Bob", { pid: "p2" });
    const c = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    expectError(await link(auth, { rule_name: "owns", from_entity_id: c.id, to_entity_id: p.id }), 422, "UNPROCESSABLE_ENTITY");
    expectError(await link(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: p2.id }), 422, "UNPROCESSABLE_ENTITY");
    expect(await liveLinks(rule.id)).toEqual([]);
  });

  it("answers 404 for an unknown rule and unknown, deleted or other-tenant entities", async () => {
    const a = await personsAndCars();
    const b = await personsAndCars();
    const rule = await createRule(a.auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    await createRule(b.auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(a.auth, "Person", "Ann", { pid: "p1" });
    const c = await createEntity(a.auth, "Car", "Saab", { vin: "v1" });
    const gone = await createEntity(a.auth, "Car", "Gone", { vin: "v0" });
    expect((await call("DELETE", `/entity/entities/${gone.id}`, { auth: a.auth })).status).toBe(200);
    const foreignCar = await createEntity(b.auth, "Car", "Theirs", { vin: "v1" });

    expectError(await link(a.auth, { rule_name: "nope", from_entity_id: p.id, to_entity_id: c.id }), 404, "NOT_FOUND");
    expectError(await link(a.auth, { rule_id: crypto.randomUUID(), from_entity_id: p.id, to_entity_id: c.id }), 404, "NOT_FOUND");
    expectError(await link(a.auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: crypto.randomUUID() }), 404, "NOT_FOUND");
    expectError(await link(a.auth, { rule_name: "owns", from_entity_id: crypto.randomUUID(), to_entity_id: c.id }), 404, "NOT_FOUND");
    expectError(await link(a.auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: gone.id }), 404, "NOT_FOUND");
    expectError(await link(a.auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: foreignCar.id }), 404, "NOT_FOUND");
    // Another tenant cannot use a's rule by id either.
    const bPerson = await createEntity(b.auth, "Person", "B", { pid: "b1" });
    expectError(await link(b.auth, { rule_id: rule.id, from_entity_id: bPerson.id, to_entity_id: foreignCar.id }), 404, "NOT_FOUND");
    expect(await liveLinks(rule.id)).toEqual([]);
  });

  it("refuses bad bodies with 422", async () => {
    const { auth } = await personsAndCars();
    await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const c = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    expectError(await link(auth, { from_entity_id: p.id, to_entity_id: c.id }), 422, "VALIDATION_FAILED");
    expectError(await link(auth, { rule_name: "owns", from_entity_id: "x", to_entity_id: c.id }), 422, "VALIDATION_FAILED");
    expectError(await link(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c.id, on_cardinality_violation: "skip" }), 422, "VALIDATION_FAILED");
  });

  it("refuses a duplicate live link with 409; DELETE removes it, a second DELETE is 404, and it can be linked again", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const c = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    const first = await linkOk(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c.id });
    const dup = expectError(await link(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c.id }), 409, "CONFLICT");
    expect(dup.details.relationship_id).toBe(first.id);
    expect(await liveLinks(rule.id)).toHaveLength(1);

    const del = await call("DELETE", `/entity/relationships/${first.id}`, { auth });
    expect(del.status).toBe(200);
    expect(del.json.data).toMatchObject({ id: first.id, deleted: true });
    expect(typeof del.json.data.deleted_at).toBe("string");
    expect(await liveLinks(rule.id)).toEqual([]);
    expectError(await call("DELETE", `/entity/relationships/${first.id}`, { auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/entity/relationships/${first.id}`, { auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/entity/relationships/${crypto.randomUUID()}`, { auth }), 404, "NOT_FOUND");

    const again = await linkOk(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c.id });
    expect(again.id).not.toBe(first.id);
  });

  it("another tenant cannot get or delete a link", async () => {
    const a = await personsAndCars();
    const b = await createTenant();
    const rule = await createRule(a.auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car" });
    const p = await createEntity(a.auth, "Person", "Ann", { pid: "p1" });
    const c = await createEntity(a.auth, "Car", "Saab", { vin: "v1" });
    const l = await linkOk(a.auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: c.id });
    expectError(await call("GET", `/entity/relationships/${l.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    expectError(await call("DELETE", `/entity/relationships/${l.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    expect(await liveLinks(rule.id)).toHaveLength(1);
  });
});

describe("cardinality", () => {
  it("max_to_cardinality caps one `from` entity: raise 409, replace retires the oldest, ignore 422", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "drives", from_entity_type_name: "Person", to_entity_type_name: "Car", max_to_cardinality: 1 });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const p2 = await createEntity(auth, "Person", "Bob", { pid: "p2" });
    const c1 = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    const c2 = await createEntity(auth, "Car", "Volvo", { vin: "v2" });
    const c3 = await createEntity(auth, "Car", "Fiat", { vin: "v3" });
    const first = await linkOk(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c1.id });

    // The cap is per `from` entity: another person may still drive c1... and c2.
    await linkOk(auth, { rule_name: "drives", from_entity_id: p2.id, to_entity_id: c1.id });

    const raised = expectError(await link(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c2.id }), 409, "CONFLICT");
    expect(raised.message).toBe("Cardinality constraint violated");
    const explicit = expectError(
      await link(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c2.id, on_cardinality_violation: "raise" }),
      409,
      "CONFLICT",
    );
    expect(explicit.message).toBe("Cardinality constraint violated");

    const ignored = expectError(
      await link(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c2.id, on_cardinality_violation: "ignore" }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect(ignored.message).toMatch(/ignore/);
    let live = await liveLinks(rule.id);
    expect(live.filter((r) => r.from_entity_id === p.id).map((r) => r.to_entity_id)).toEqual([c1.id]);

    const replaced = await linkOk(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c2.id, on_cardinality_violation: "replace" });
    expect(replaced).toMatchObject({ from_entity_id: p.id, to_entity_id: c2.id });
    const [old] = await systemQuery("SELECT deleted_at FROM relationships WHERE id = $1", [first.id]);
    expect(old.deleted_at).not.toBeNull();
    live = await liveLinks(rule.id);
    expect(live.filter((r) => r.from_entity_id === p.id).map((r) => r.to_entity_id)).toEqual([c2.id]);
    // The other person's link is untouched.
    expect(live.filter((r) => r.from_entity_id === p2.id).map((r) => r.to_entity_id)).toEqual([c1.id]);

    const withCars = await call("GET", `/entity/entities/${p.id}?include=Car`, { auth });
    expect(withCars.status).toBe(200);
    expect(withCars.json.data.relationships.map((r: any) => [r.entity.id, r.direction, r.rule.name])).toEqual([[c2.id, "to", "drives"]]);

    // Replace once more: c2 is retired for c3.
    await linkOk(auth, { rule_name: "drives", from_entity_id: p.id, to_entity_id: c3.id, on_cardinality_violation: "replace" });
    const after = await call("GET", `/entity/entities/${p.id}?include=Car`, { auth });
    expect(after.json.data.relationships.map((r: any) => r.entity.id)).toEqual([c3.id]);
  });

  it("replace retires only the oldest link when the cap is above one", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "owns", from_entity_type_name: "Person", to_entity_type_name: "Car", max_to_cardinality: 2 });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const cars = [];
    for (let i = 0; i < 3; i++) cars.push(await createEntity(auth, "Car", `C${i}`, { vin: `v${i}` }));
    await linkOk(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: cars[0].id });
    await linkOk(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: cars[1].id });
    await linkOk(auth, { rule_name: "owns", from_entity_id: p.id, to_entity_id: cars[2].id, on_cardinality_violation: "replace" });
    expect((await liveLinks(rule.id)).map((r) => r.to_entity_id)).toEqual([cars[1].id, cars[2].id]);
  });

  it("max_from_cardinality caps one `to` entity: raise 409, ignore 422, replace retires the oldest", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "registered-to", from_entity_type_name: "Person", to_entity_type_name: "Car", max_from_cardinality: 1 });
    const p1 = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const p2 = await createEntity(auth, "Person", "Bob", { pid: "p2" });
    const c = await createEntity(auth, "Car", "Saab", { vin: "v1" });
    const c2 = await createEntity(auth, "Car", "Volvo", { vin: "v2" });
    const first = await linkOk(auth, { rule_name: "registered-to", from_entity_id: p1.id, to_entity_id: c.id });
    // The cap is per `to` entity: p1 may link another car.
    await linkOk(auth, { rule_name: "registered-to", from_entity_id: p1.id, to_entity_id: c2.id });

    const raised = expectError(await link(auth, { rule_name: "registered-to", from_entity_id: p2.id, to_entity_id: c.id }), 409, "CONFLICT");
    expect(raised.message).toBe("Cardinality constraint violated");
    expectError(
      await link(auth, { rule_name: "registered-to", from_entity_id: p2.id, to_entity_id: c.id, on_cardinality_violation: "ignore" }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    expect((await liveLinks(rule.id)).filter((r) => r.to_entity_id === c.id).map((r) => r.from_entity_id)).toEqual([p1.id]);

    await linkOk(auth, { rule_name: "registered-to", from_entity_id: p2.id, to_entity_id: c.id, on_cardinality_violation: "replace" });
    const [old] = await systemQuery("SELECT deleted_at FROM relationships WHERE id = $1", [first.id]);
    expect(old.deleted_at).not.toBeNull();
    const car = await call("GET", `/entity/entities/${c.id}?include=Person`, { auth });
    expect(car.json.data.relationships.map((r: any) => [r.entity.id, r.direction])).toEqual([[p2.id, "from"]]);
    // p1's other car is untouched.
    expect((await liveLinks(rule.id)).filter((r) => r.to_entity_id === c2.id).map((r) => r.from_entity_id)).toEqual([p1.id]);
  });

  it("holds under concurrency: 12 simultaneous links against a cap of 3 give exactly 3 links", async () => {
    const { auth } = await personsAndCars();
    const rule = await createRule(auth, { name: "fleet", from_entity_type_name: "Person", to_entity_type_name: "Car", max_to_cardinality: 3 });
    const p = await createEntity(auth, "Person", "Ann", { pid: "p1" });
    const cars = await Promise.all(Array.from({ length: 12 }, (_, i) => createEntity(auth, "Car", `C${i}`, { vin: `v${i}` })));
    const results = await Promise.all(
      cars.map((c) => link(auth, { rule_name: "fleet", from_entity_id: p.id, to_entity_id: c.id, on_cardinality_violation: "raise" })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const r of results.filter((x) => x.status === 409)) expect(expectError(r, 409, "CONFLICT").message).toBe("Cardinality constraint violated");
    const live = await liveLinks(rule.id);
    expect(live).toHaveLength(3);
    expect(live.map((r) => r.id).sort()).toEqual(
      results
        .filter((r) => r.status === 201)
        .map((r) => r.json.data.id)
        .sort(),
    );
  });
});

describe("includes on GET /entity/entities/:id", () => {
  async function shopWithProducts() {
    const t = await createTenant();
    await createType(t.auth, { name: "Shop", schema: loose, config: { identifier_key: ["code"] } });
    await createType(t.auth, { name: "Product", schema: loose, config: { identifier_key: ["sku"] } });
    const sells = await createRule(t.auth, { name: "sells", from_entity_type_name: "Shop", to_entity_type_name: "Product" });
    const features = await createRule(t.auth, { name: "features", from_entity_type_name: "Shop", to_entity_type_name: "Product" });
    const shop = await createEntity(t.auth, "Shop", "Corner", { code: "s1" });
    const products = [];
    for (let i = 0; i < 3; i++) products.push(await createEntity(t.auth, "Product", `P${i}`, { sku: `k${i}`, n: i }));
    for (const p of products) await linkOk(t.auth, { rule_name: "sells", from_entity_id: shop.id, to_entity_id: p.id });
    await linkOk(t.auth, { rule_name: "features", from_entity_id: shop.id, to_entity_id: products[2].id });
    return { ...t, sells, features, shop, products };
  }

  it("gives direction `to` for an entity on the rule's to side and `from` for one on its from side", async () => {
    const { auth, shop, products, sells, features } = await shopWithProducts();
    const fromShop = await call("GET", `/entity/entities/${shop.id}?include=Product`, { auth });
    expect(fromShop.status).toBe(200);
    const rels = fromShop.json.data.relationships;
    expect(rels).toHaveLength(4);
    for (const r of rels) expect(r.direction).toBe("to");
    expect(rels.map((r: any) => [r.rule.name, r.entity.id])).toEqual([
      ["sells", products[0].id],
      ["sells", products[1].id],
      ["sells", products[2].id],
      ["features", products[2].id],
    ]);
    expect(rels[0]).toEqual({
      rule: { id: sells.id, name: "sells" },
      entity: { id: products[0].id, name: "P0", type: { id: expect.stringMatching(UUID), name: "Product" }, attributes: { sku: "k0", n: 0 } },
      direction: "to",
    });

    const fromProduct = await call("GET", `/entity/entities/${products[2].id}?include=Shop`, { auth });
    expect(fromProduct.json.data.relationships).toEqual([
      {
        rule: { id: sells.id, name: "sells" },
        entity: { id: shop.id, name: "Corner", type: { id: expect.stringMatching(UUID), name: "Shop" }, attributes: { code: "s1" } },
        direction: "from",
      },
      { rule: { id: features.id, name: "features" }, entity: expect.objectContaining({ id: shop.id }), direction: "from" },
    ]);

    // No include: no relationships field. An include of an unrelated type: an empty list.
    const plain = await call("GET", `/entity/entities/${shop.id}`, { auth });
    expect(plain.json.data).not.toHaveProperty("relationships");
    const unrelated = await call("GET", `/entity/entities/${shop.id}?include=Shop`, { auth });
    expect(unrelated.json.data.relationships).toEqual([]);
  });

  it("leaves out deleted links and deleted related entities", async () => {
    const { auth, shop, products } = await shopWithProducts();
    const [firstLink] = await systemQuery("SELECT id FROM relationships WHERE from_entity_id = $1 AND to_entity_id = $2", [shop.id, products[0].id]);
    expect((await call("DELETE", `/entity/relationships/${firstLink.id}`, { auth })).status).toBe(200);
    expect((await call("DELETE", `/entity/entities/${products[1].id}`, { auth })).status).toBe(200);
    const res = await call("GET", `/entity/entities/${shop.id}?include=Product`, { auth });
    expect(res.json.data.relationships.map((r: any) => [r.rule.name, r.entity.id])).toEqual([
      ["sells", products[2].id],
      ["features", products[2].id],
    ]);
  });

  it("include_rule_ids narrows to the named rules", async () => {
    const { auth, shop, products, features, sells } = await shopWithProducts();
    const onlyFeatures = await call("GET", `/entity/entities/${shop.id}?include_rule_ids=${features.id}`, { auth });
    expect(onlyFeatures.status).toBe(200);
    expect(onlyFeatures.json.data.relationships.map((r: any) => [r.rule.id, r.entity.id, r.direction])).toEqual([[features.id, products[2].id, "to"]]);
    const withType = await call("GET", `/entity/entities/${shop.id}?include=Product&include_rule_ids=${sells.id}`, { auth });
    expect(withType.json.data.relationships.map((r: any) => r.entity.id)).toEqual(products.map((p) => p.id));
    const unknownRule = await call("GET", `/entity/entities/${shop.id}?include_rule_ids=${crypto.randomUUID()}`, { auth });
    expect(unknownRule.json.data.relationships).toEqual([]);
    expectError(await call("GET", `/entity/entities/${shop.id}?include_rule_ids=not-a-uuid`, { auth }), 422, "VALIDATION_FAILED");
  });

  it("max_relationships caps the count, and is range-checked", async () => {
    const { auth, shop, products } = await shopWithProducts();
    const two = await call("GET", `/entity/entities/${shop.id}?include=Product&max_relationships=2`, { auth });
    expect(two.status).toBe(200);
    expect(two.json.data.relationships.map((r: any) => r.entity.id)).toEqual([products[0].id, products[1].id]);
    const one = await call("GET", `/entity/entities/${shop.id}?include=Product&max_relationships=1`, { auth });
    expect(one.json.data.relationships).toHaveLength(1);
    expectError(await call("GET", `/entity/entities/${shop.id}?include=Product&max_relationships=0`, { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", `/entity/entities/${shop.id}?include=Product&max_relationships=1001`, { auth }), 422, "VALIDATION_FAILED");
  });

  it("include_specs takes URL-encoded JSON with type_name, rule_name and limit", async () => {
    const { auth, shop, products } = await shopWithProducts();
    const q = (specs: unknown) => encodeURIComponent(JSON.stringify(specs));
    const limited = await call("GET", `/entity/entities/${shop.id}?include_specs=${q([{ type_name: "Product", limit: 1 }])}`, { auth });
    expect(limited.status).toBe(200);
    expect(limited.json.data.relationships.map((r: any) => [r.rule.name, r.entity.id, r.direction])).toEqual([["sells", products[0].id, "to"]]);

    const byRule = await call("GET", `/entity/entities/${shop.id}?include_specs=${q([{ type_name: "Product", rule_name: "features" }])}`, { auth });
    expect(byRule.json.data.relationships.map((r: any) => [r.rule.name, r.entity.id])).toEqual([["features", products[2].id]]);

    const reverse = await call("GET", `/entity/entities/${products[0].id}?include_specs=${q([{ type_name: "Shop", limit: 5 }])}`, { auth });
    expect(reverse.json.data.relationships.map((r: any) => [r.entity.id, r.direction])).toEqual([[shop.id, "from"]]);

    expectError(await call("GET", `/entity/entities/${shop.id}?include_specs=${encodeURIComponent("[{not json")}`, { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", `/entity/entities/${shop.id}?include_specs=${q([{ type_name: "Product", limit: 0 }])}`, { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", `/entity/entities/${shop.id}?include_specs=${q([{ limit: 1 }])}`, { auth }), 422, "VALIDATION_FAILED");
  });
});
