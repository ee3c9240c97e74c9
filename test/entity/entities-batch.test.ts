// A create in one round trip (entities/service.ts createEntity): the row, its
// event and its outbox row written by one statement in one tenant batch,
// conditioned on the type the isolate holds being the type as it is now.
// Each check goes through the gateway, as a caller sees it.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { roleToken } from "../access/fixture";
import { createEntity, createProductType, createType, eventsOf } from "../support/entities";

const create = (auth: string, typeName: string, attributes: Record<string, unknown>) =>
  call("POST", "/entity/entities", { auth, body: { type_name: typeName, name: "N", attributes } });

const entityCount = async (tenantId: string) => Number((await systemQuery("SELECT count(*) AS n FROM entities WHERE tenant_id = $1", [tenantId]))[0].n);
const outboxCount = async (tenantId: string) => Number((await systemQuery("SELECT count(*) AS n FROM event_outbox WHERE tenant_id = $1", [tenantId]))[0].n);

describe("a create in one batch", () => {
  it("writes the row, its created event (the entity as answered) and its outbox row together", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const res = await create(t.auth, "Product", { sku: "A-1", title: "One" });
    expect(res.status, res.text).toBe(201);
    const { deleted_at, ...answered } = res.json.data;
    expect(deleted_at).toBeNull();
    const events = await eventsOf(t.auth, answered.id);
    expect(events.map((e) => e.action)).toEqual(["created"]);
    expect(events[0].payload).toEqual({ entity: answered });
    const [row] = await systemQuery("SELECT o.tenant_id FROM event_outbox o JOIN events e ON e.id = o.event_id WHERE e.entity_id = $1", [answered.id]);
    // Delivered already, or still waiting in the outbox: either way the outbox row was written with the event.
    expect(row === undefined || row.tenant_id === t.tenantId).toBe(true);
  });

  it("a taken identifier_key is 409 naming the holder, and writes no row, event or outbox row", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const first = await createEntity(t.auth, "Product", "First", { sku: "K-1", title: "One" });
    const before = { entities: await entityCount(t.tenantId), events: (await eventsOf(t.auth, first.id)).length };
    const res = await create(t.auth, "Product", { sku: "K-1", title: "Again" });
    expect(expectError(res, 409, "CONFLICT").details).toMatchObject({ identifier_key: "K-1", existing_entity_id: first.id });
    expect(await entityCount(t.tenantId)).toBe(before.entities);
    const all = await systemQuery("SELECT count(*) AS n FROM events WHERE tenant_id = $1", [t.tenantId]);
    expect(Number(all[0].n)).toBe(before.events);
  });

  it("creates racing for one key: exactly one is 201, every other 409 naming it", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(t.auth, "Product", { sku: "R-1", title: "Race" })));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 201)) {
      expect(expectError(r, 409, "CONFLICT").details.existing_entity_id).toBe(created[0].json.data.id);
    }
    expect(await entityCount(t.tenantId)).toBe(1);
  });

  it("a type changed since the isolate cached it is read again: a stricter schema refuses, a looser one accepts", async () => {
    const t = await createTenant();
    const type = await createType(t.auth, {
      name: "Strict",
      schema: { type: "object", required: ["sku", "color"], properties: { sku: { type: "string" }, color: { type: "string" } } },
      config: { identifier_key: ["sku"] },
    });
    // Cached by these creates, then loosened: the cached schema would refuse the next create.
    await createEntity(t.auth, "Strict", "a", { sku: "S-1", color: "red" });
    expectError(await create(t.auth, "Strict", { sku: "S-2" }), 422, "VALIDATION_FAILED");
    const loosened = await call("PATCH", `/entity/entity-types/${type.id}`, {
      auth: t.auth,
      body: { schema: { type: "object", required: ["sku"], properties: { sku: { type: "string" }, color: { type: "string" } } } },
    });
    expect(loosened.status, loosened.text).toBe(200);
    const accepted = await create(t.auth, "Strict", { sku: "S-2" });
    expect(accepted.status, accepted.text).toBe(201);
    // And back: the cache now holds the loose schema, the type is strict again.
    const tightened = await call("PATCH", `/entity/entity-types/${type.id}`, {
      auth: t.auth,
      body: {
        schema: {
          type: "object",
          required: ["sku", "color", "size"],
          properties: { sku: { type: "string" }, color: { type: "string" }, size: { type: "string" } },
        },
      },
    });
    expect(tightened.status, tightened.text).toBe(200);
    const refused = expectError(await create(t.auth, "Strict", { sku: "S-3", color: "blue" }), 422, "VALIDATION_FAILED");
    expect(JSON.stringify(refused)).toContain("size");
    expect(await entityCount(t.tenantId)).toBe(2);
  });

  it("a cached caller whose token was revoked is 401 and writes nothing", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const { tokenId, auth } = await roleToken(t.auth, ["entity:create", "entity:read"]);
    for (let i = 0; i < 3; i++) expect((await create(auth, "Product", { sku: `C-${i}`, title: "warm" })).status).toBe(201);
    expect((await call("DELETE", `/access/api-tokens/${tokenId}`, { auth: t.auth })).status).toBe(200);
    const outbox = await outboxCount(t.tenantId);
    expectError(await create(auth, "Product", { sku: "C-9", title: "late" }), 401, "UNAUTHORIZED");
    expect(await entityCount(t.tenantId)).toBe(3);
    expect(await systemQuery("SELECT id FROM entities WHERE tenant_id = $1 AND identifier_key = 'C-9'", [t.tenantId])).toEqual([]);
    expect(await outboxCount(t.tenantId)).toBeLessThanOrEqual(outbox);
  });

  it("the created row's updated_at is the one a compare-and-swap checks: a stale one is 409, the answered one passes", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const made = await createEntity(t.auth, "Product", "P", { sku: "O-1", title: "One" });
    const stale = new Date(Date.parse(made.updated_at) - 1000).toISOString();
    const lost = await call("PATCH", `/entity/entities/${made.id}/attributes`, {
      auth: t.auth,
      body: { attributes: { title: "Two" }, expected_updated_at: stale },
    });
    expect(expectError(lost, 409, "CONFLICT").details).toMatchObject({ code: "CONCURRENT_MODIFICATION", entity_id: made.id });
    const won = await call("PATCH", `/entity/entities/${made.id}/attributes`, {
      auth: t.auth,
      body: { attributes: { title: "Two" }, expected_updated_at: made.updated_at },
    });
    expect(won.status, won.text).toBe(200);
    expect(won.json.data.attributes).toEqual({ sku: "O-1", title: "Two" });
  });

  it("concurrent PUTs of one row all land, one after another: each answered 200, one updated event per change, previous chained", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const made = await createEntity(t.auth, "Product", "P", { sku: "W-1", title: "t0" });
    const titles = ["t1", "t2", "t3", "t4", "t5"];
    const answers = await Promise.all(
      titles.map((title) => call("PUT", `/entity/entities/${made.id}`, { auth: t.auth, body: { attributes: { sku: "W-1", title } } })),
    );
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const updates = (await eventsOf(t.auth, made.id)).filter((e) => e.action === "updated");
    expect(updates).toHaveLength(titles.length);
    // Each update's previous is what the one before it wrote: none was lost or applied twice.
    const chain = updates.map((e) => [e.payload.previous.attributes.title, e.payload.entity.attributes.title]);
    expect(chain[0][0]).toBe("t0");
    for (let i = 1; i < chain.length; i++) expect(chain[i][0]).toBe(chain[i - 1][1]);
    expect(new Set(chain.map(([, title]) => title))).toEqual(new Set(titles));
    const final = await call("GET", `/entity/entities/${made.id}`, { auth: t.auth });
    expect(final.json.data.attributes.title).toBe(chain[chain.length - 1][1]);
  });

  it("concurrent PATCHes of one row: each is 200 or 409 CONCURRENT_MODIFICATION, and only the 200s wrote", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const made = await createEntity(t.auth, "Product", "P", { sku: "X-1", title: "t0" });
    const answers = await Promise.all(
      ["a", "b", "c", "d"].map((region) => call("PATCH", `/entity/entities/${made.id}/attributes`, { auth: t.auth, body: { attributes: { region } } })),
    );
    const won = answers.filter((r) => r.status === 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(expectError(r, 409, "CONFLICT").details.code).toBe("CONCURRENT_MODIFICATION");
    const updates = (await eventsOf(t.auth, made.id)).filter((e) => e.action === "updated");
    expect(updates.map((e) => e.payload.entity.attributes.region).sort()).toEqual(won.map((r) => r.json.data.attributes.region).sort());
  });

  it("a PATCH that changes nothing answers the row and records no event; one that breaks the schema is 422 and writes nothing", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const made = await createEntity(t.auth, "Product", "P", { sku: "N-1", title: "same" });
    const same = await call("PATCH", `/entity/entities/${made.id}/attributes`, { auth: t.auth, body: { attributes: { title: "same" } } });
    expect(same.status, same.text).toBe(200);
    expect(same.json.data.updated_at).toBe(made.updated_at);
    expectError(
      await call("PATCH", `/entity/entities/${made.id}/attributes`, { auth: t.auth, body: { attributes: { price: "free" } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect((await eventsOf(t.auth, made.id)).map((e) => e.action)).toEqual(["created"]);
  });
});
