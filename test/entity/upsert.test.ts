import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createProductType, createType, eventsOf } from "../support/entities";

const rows = (n: number, from = 0, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return { name: `P${i}`, attributes: { sku: `S${i}`, title: `T${i}`, price: i, ...extra(i) } };
  });

async function upsert(auth: string, body: Record<string, unknown>) {
  return call("POST", "/entity/entities/upsert", { auth, body: { type_name: "Product", ...body } });
}

async function liveCount(tenantId: string) {
  const [r] = await systemQuery("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL", [tenantId]);
  return r.n as number;
}

describe("POST /entity/entities/upsert", () => {
  it("inserts by key, answers counts and ids in input order, and records created events", async () => {
    const { auth, tenantId } = await createTenant();
    const type = await createProductType(auth);
    const res = await upsert(auth, { data: rows(3) });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ created: 3, updated: 0, unchanged: 0, ignored: 0, errors: [] });
    const ids: string[] = res.json.data.ids;
    expect(ids).toHaveLength(3);
    const stored = await systemQuery("SELECT id, identifier_key FROM entities WHERE tenant_id = $1", [tenantId]);
    expect(ids.map((id) => stored.find((s) => s.id === id)?.identifier_key)).toEqual(["S0", "S1", "S2"]);
    const events = await eventsOf(auth, ids[1]);
    expect(events.map((e) => [e.action, e.suppressed])).toEqual([["created", false]]);
    const { created_at, updated_at } = (await call("GET", `/entity/entities/${ids[1]}`, { auth })).json.data;
    expect(events[0].payload).toEqual({
      entity: {
        id: ids[1],
        name: "P1",
        type: { id: type.id, name: "Product" },
        attributes: { sku: "S1", title: "T1", price: 1 },
        identifier_key: "S1",
        created_at,
        updated_at,
      },
    });
  });

  it("leaves identical rows alone (no write, no event) and replaces changed ones", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const first = await upsert(auth, { data: rows(3) });
    const again = await upsert(auth, { data: [rows(1)[0], { name: "P1", attributes: { sku: "S1", title: "changed" } }, rows(3)[2]] });
    expect(again.json.data).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    expect(again.json.data.ids).toEqual(first.json.data.ids);
    const changed = await call("GET", `/entity/entities/${first.json.data.ids[1]}`, { auth });
    expect(changed.json.data.attributes).toEqual({ sku: "S1", title: "changed" });
    expect((await eventsOf(auth, first.json.data.ids[0])).map((e) => e.action)).toEqual(["created"]);
    expect((await eventsOf(auth, first.json.data.ids[1])).map((e) => e.action)).toEqual(["created", "updated"]);
  });

  it("on_conflict merge is a shallow merge; ignore leaves existing rows; raise refuses the whole request", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    await upsert(auth, { data: [{ name: "A", attributes: { sku: "A", title: "a", price: 1, region: "eu" } }] });
    const merged = await upsert(auth, { on_conflict: "merge", data: [{ name: "A", attributes: { sku: "A", title: "a2" } }] });
    expect(merged.json.data.updated).toBe(1);
    const [a] = await systemQuery("SELECT attributes FROM entities WHERE tenant_id = $1 AND identifier_key = 'A'", [tenantId]);
    expect(a.attributes).toEqual({ sku: "A", title: "a2", price: 1, region: "eu" });
    // The event carries the merged attributes, not the row as sent.
    const [, mergedEvent] = await eventsOf(auth, merged.json.data.ids[0]);
    expect(mergedEvent.action).toBe("updated");
    expect(mergedEvent.payload.entity.attributes).toEqual({ sku: "A", title: "a2", price: 1, region: "eu" });

    const ignored = await upsert(auth, { on_conflict: "ignore", data: [{ name: "A", attributes: { sku: "A", title: "zzz" } }, ...rows(1, 50)] });
    expect(ignored.json.data).toMatchObject({ created: 1, ignored: 1, updated: 0 });
    // An ignored row answers the id of the entity that kept its key.
    expect(ignored.json.data.ids[0]).toBe(merged.json.data.ids[0]);

    const before = await liveCount(tenantId);
    const raised = await upsert(auth, { on_conflict: "raise", data: [...rows(2, 100), { name: "A", attributes: { sku: "A", title: "x" } }] });
    const err = expectError(raised, 409, "CONFLICT");
    expect(err.details.identifier_keys).toEqual(["A"]);
    expect(await liveCount(tenantId)).toBe(before);
  });

  it("deduplicates within the request: last wins per key, both positions get the same id", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const res = await upsert(auth, {
      data: [
        { name: "first", attributes: { sku: "K", title: "1" } },
        { name: "other", attributes: { sku: "O", title: "o" } },
        { name: "last", attributes: { sku: "K", title: "2" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.data.created).toBe(2);
    expect(res.json.data.ids[0]).toBe(res.json.data.ids[2]);
    const [k] = await systemQuery("SELECT name, attributes FROM entities WHERE tenant_id = $1 AND identifier_key = 'K'", [tenantId]);
    expect(k).toEqual({ name: "last", attributes: { sku: "K", title: "2" } });
  });

  it("matches rows with id by id: full replace, key recomputed, on_conflict ignored; an unknown id is 404 and writes nothing", async () => {
    const { auth, tenantId } = await createTenant();
    const type = await createProductType(auth);
    const e = await createEntity(auth, "Product", "E", { sku: "E", title: "e", price: 5 });
    const res = await upsert(auth, { on_conflict: "raise", data: [{ id: e.id, name: "E2", attributes: { sku: "E2", title: "e2" } }] });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ updated: 1, ids: [e.id] });
    const got = await call("GET", `/entity/entities/${e.id}`, { auth });
    expect(got.json.data).toMatchObject({ name: "E2", identifier_key: "E2", attributes: { sku: "E2", title: "e2" } });
    const [, updated] = await eventsOf(auth, e.id);
    expect(updated).toMatchObject({
      action: "updated",
      payload: { entity: { id: e.id, name: "E2", type: { id: type.id, name: "Product" }, attributes: { sku: "E2", title: "e2" }, identifier_key: "E2" } },
    });

    const before = await liveCount(tenantId);
    const missing = await upsert(auth, { data: [...rows(2, 10), { id: crypto.randomUUID(), name: "x", attributes: { sku: "x", title: "x" } }] });
    expectError(missing, 404, "NOT_FOUND");
    expect(await liveCount(tenantId)).toBe(before);
  });

  it("merges a by-id row into the entity holding its new key", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const survivor = await createEntity(auth, "Product", "S", { sku: "S", title: "s" });
    const holder = await createEntity(auth, "Product", "H", { sku: "H", title: "h" });
    const refused = await upsert(auth, { merge_on_conflict: false, data: [{ id: survivor.id, name: "S", attributes: { sku: "H", title: "s" } }] });
    expectError(refused, 409, "CONFLICT");
    const res = await upsert(auth, { data: [{ id: survivor.id, name: "S", attributes: { sku: "H", title: "s" } }] });
    expect(res.status).toBe(200);
    expectError(await call("GET", `/entity/entities/${holder.id}`, { auth }), 404, "NOT_FOUND");
    expect((await eventsOf(auth, survivor.id)).map((e) => e.action)).toEqual(["created", "merged", "updated"]);
  });

  it("aborts a 5,000-row request with one invalid row: 422 naming the row, nothing written", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const data = rows(5000);
    (data[4321].attributes as Record<string, unknown>).price = "not a number";
    const res = await upsert(auth, { data });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["data[4321].attributes.price: must be number, got string"]);
    expect(await liveCount(tenantId)).toBe(0);
    const [ev] = await systemQuery("SELECT count(*)::int AS n FROM events WHERE tenant_id = $1", [tenantId]);
    expect(ev.n).toBe(0);
  });

  it("reports every problem of every row at once: schema and key lines together, twenty lines and an exact count of the rest", async () => {
    const { auth, tenantId } = await createTenant();
    await createType(auth, {
      name: "Product",
      schema: { type: "object", properties: { sku: { type: "string" }, price: { type: "number" } } },
      config: { identifier_key: ["sku"] },
    });
    // Row 1 has no key AND a bad price: both lines in one answer, not the key only after the price is fixed.
    const few = expectError(
      await upsert(auth, {
        data: [
          { name: "ok", attributes: { sku: "A" } },
          { name: "b", attributes: { price: "x" } },
        ],
      }),
      422,
      "VALIDATION_FAILED",
    );
    expect(few.message).toBe("1 of 2 rows failed validation; nothing was written");
    expect(few.details.validation_errors).toEqual([
      "data[1].attributes.price: must be number, got string",
      "data[1].attributes.sku: is required to compute the identifier key",
    ]);

    const data = Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, attributes: { price: "x" } }));
    const many = expectError(await upsert(auth, { data }), 422, "VALIDATION_FAILED");
    const lines: string[] = many.details.validation_errors;
    expect(many.message).toBe("50 of 50 rows failed validation; nothing was written");
    expect(lines).toHaveLength(21);
    expect(lines.slice(0, 2)).toEqual([
      "data[0].attributes.price: must be number, got string",
      "data[0].attributes.sku: is required to compute the identifier key",
    ]);
    expect(lines[19]).toBe("data[9].attributes.sku: is required to compute the identifier key");
    // 100 lines in all: twenty shown, eighty counted (not the sixty a forty-line buffer gave).
    expect(lines[20]).toBe("... and 80 more errors");
    expect(await liveCount(tenantId)).toBe(0);
  });

  it("commits 5,000 valid rows in batches and answers every id", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const res = await upsert(auth, { data: rows(5000) });
    expect(res.status).toBe(200);
    expect(res.json.data.created).toBe(5000);
    expect(new Set(res.json.data.ids).size).toBe(5000);
    expect(await liveCount(tenantId)).toBe(5000);
  });

  it("writes batches by key two at a time: ids in input order, duplicates standing for their winner, one event and one outbox record per change", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    await upsert(auth, { data: rows(1500) });
    // 3,000 new rows, 1,500 replaced, the first row repeated last: five batches by key, on two connections.
    const data = [...rows(4500, 0, (i) => ({ title: `v2-${i}` })), { name: "P0", attributes: { sku: "S0", title: "last wins", price: 0 } }];
    const res = await upsert(auth, { data });
    expect(res.json.data).toMatchObject({ created: 3000, updated: 1500, unchanged: 0 });
    const stored = await systemQuery("SELECT id, identifier_key, attributes->>'title' AS title FROM entities WHERE tenant_id = $1", [tenantId]);
    const byKey = new Map(stored.map((r) => [r.identifier_key, r]));
    expect(res.json.data.ids).toEqual(data.map((r) => byKey.get(r.attributes.sku)!.id));
    expect(byKey.get("S0")!.title).toBe("last wins");
    expect(byKey.get("S4499")!.title).toBe("v2-4499");
    const [counts] = await systemQuery(
      `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
              (SELECT count(DISTINCT entity_id)::int FROM events WHERE tenant_id = $1) AS entities,
              (SELECT count(*)::int FROM event_outbox WHERE tenant_id = $1) + (SELECT count(*)::int FROM event_deliveries WHERE tenant_id = $1) AS queued`,
      [tenantId],
    );
    expect(counts).toEqual({ events: 6000, entities: 4500, queued: 6000 });
  });

  it("refuses more than 100,000 rows, bad shapes and bad options with 422", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const tooMany = Array.from({ length: 100_001 }, () => ({ name: "x", attributes: {} }));
    expectError(await upsert(auth, { data: tooMany }), 422, "VALIDATION_FAILED");
    const shape = expectError(
      await upsert(auth, { data: [{ attributes: { sku: "1", title: "t" } }, { name: "n", attributes: { sku: "2", title: "t" }, extra: 1 }] }),
      422,
      "VALIDATION_FAILED",
    );
    expect(shape.details.validation_errors).toEqual(["data[0].name: is required", "data[1].extra: is not allowed"]);
    expectError(await upsert(auth, { data: [], on_conflict: "sometimes" }), 422, "VALIDATION_FAILED");
    expectError(await call("POST", "/entity/entities/upsert", { auth, body: { data: [] } }), 422, "VALIDATION_FAILED");
    expectError(await upsert(auth, { type_name: "Nope", data: [] }), 404, "NOT_FOUND");
    expect(await liveCount(tenantId)).toBe(0);
  });

  it("answers malformed bodies with 400 and a non-array data with 422, writing nothing", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const raw = (text: string) => call("POST", "/entity/entities/upsert", { auth, rawBody: text, headers: { "Content-Type": "application/json" } });
    expectError(await raw('{"type_name":"Product","data":[{"name":"a","attributes":{"sku":"1","title":"t"}},{"name":'), 400, "BAD_REQUEST");
    expectError(await raw('{"type_name":"Product","data":[{"name":"a","attributes":{"sku":"1","title":"t"}} {"name":"b"}]}'), 400, "BAD_REQUEST");
    expectError(await raw('{"type_name":"Product","data":[]} trailing'), 400, "BAD_REQUEST");
    expectError(await raw("[]"), 400, "BAD_REQUEST");
    const notArray = expectError(await raw('{"type_name":"Product","data":{"name":"a"}}'), 422, "VALIDATION_FAILED");
    expect(notArray.details.validation_errors).toEqual(["data: must be array, got object"]);
    expect(await liveCount(tenantId)).toBe(0);
    const tricky = await raw('{ "data" : [ {"name":"q\\"]}[","attributes":{"sku":"x]}","title":"{\\u005b"}} ] , "type_name":"Product" }');
    expect(tricky.status).toBe(200);
    const [row] = await systemQuery("SELECT name, attributes FROM entities WHERE tenant_id = $1", [tenantId]);
    expect(row).toEqual({ name: 'q"]}[', attributes: { sku: "x]}", title: "{[" } });
  });

  it("accepts bodies over 1 MiB (up to 32 MiB)", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const data = rows(3000, 0, () => ({ region: "r".repeat(400) }));
    expect(JSON.stringify(data).length).toBeGreaterThan(1024 * 1024);
    const res = await upsert(auth, { data });
    expect(res.status).toBe(200);
    expect(res.json.data.created).toBe(3000);
  });

  it("records suppressed events with suppress_events", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const res = await upsert(auth, { suppress_events: true, data: rows(1) });
    expect((await eventsOf(auth, res.json.data.ids[0])).map((e) => [e.action, e.suppressed])).toEqual([["created", true]]);
  });

  it("an updated event carries previous (by key, merged and by id), a created one none, and every unsuppressed event has its outbox row", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const first = await upsert(auth, { data: rows(2) });
    const [a, b] = first.json.data.ids as string[];
    expect((await eventsOf(auth, a))[0].payload.previous).toBeUndefined();
    await upsert(auth, {
      data: [
        { name: "P0", attributes: { sku: "S0", title: "replaced" } },
        { name: "P2", attributes: { sku: "S2", title: "new" } },
      ],
    });
    await upsert(auth, { on_conflict: "merge", data: [{ name: "P0", attributes: { sku: "S0", title: "merged" } }] });
    await upsert(auth, { data: [{ id: b, name: "B", attributes: { sku: "S1", title: "by id" } }] });
    const ofA = await eventsOf(auth, a);
    expect(ofA.map((e) => e.action)).toEqual(["created", "updated", "updated"]);
    expect(ofA[1].payload.previous).toEqual({ name: "P0", attributes: { sku: "S0", title: "T0", price: 0 }, identifier_key: "S0" });
    expect(ofA[2].payload.previous).toEqual({ name: "P0", attributes: { sku: "S0", title: "replaced" }, identifier_key: "S0" });
    expect(ofA[2].payload.entity.attributes).toEqual({ sku: "S0", title: "merged" });
    const ofB = await eventsOf(auth, b);
    expect(ofB[1].payload.previous).toEqual({ name: "P1", attributes: { sku: "S1", title: "T1", price: 1 }, identifier_key: "S1" });
    const [created] = await systemQuery(
      "SELECT e.payload FROM events e JOIN entities n ON n.id = e.entity_id WHERE e.tenant_id = $1 AND n.identifier_key = 'S2'",
      [tenantId],
    );
    expect(created.payload.previous).toBeUndefined();
    // Every event was queued through the outbox (delivered rows are recorded in event_deliveries), none of them twice.
    const [counts] = await systemQuery(
      `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
              (SELECT count(*)::int FROM events e WHERE e.tenant_id = $1 AND (EXISTS (SELECT 1 FROM event_outbox o WHERE o.event_id = e.id) OR EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id))) AS queued`,
      [tenantId],
    );
    expect(counts).toEqual({ events: 6, queued: 6 });
  });

  it("answers no event ids to queue and writes no outbox rows with suppress_events", async () => {
    const { auth, tenantId } = await createTenant();
    await createProductType(auth);
    const res = await upsert(auth, { suppress_events: true, data: rows(3) });
    expect(res.json.data.created).toBe(3);
    const [n] = await systemQuery(
      "SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events, (SELECT count(*)::int FROM event_outbox WHERE tenant_id = $1) + (SELECT count(*)::int FROM event_deliveries WHERE tenant_id = $1) AS queued",
      [tenantId],
    );
    expect(n).toEqual({ events: 3, queued: 0 });
  });

  it("refuses a draft type", async () => {
    const { auth } = await createTenant();
    await createType(auth, { name: "Product", status: "draft", schema: { type: "object" }, config: { identifier_key: ["sku"] } });
    expectError(await upsert(auth, { data: rows(1) }), 422, "UNPROCESSABLE_ENTITY");
  });
});

describe("upsert inline relationships", () => {
  async function setup() {
    const t = await createTenant();
    await createProductType(t.auth);
    await createType(t.auth, { name: "Brand", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    await call("POST", "/entity/relationship-rules", {
      auth: t.auth,
      body: { name: "made_by", from_entity_type_name: "Product", to_entity_type_name: "Brand", max_to_cardinality: 1 },
    });
    const brand = await createEntity(t.auth, "Brand", "Acme", { code: "acme" });
    return { ...t, brand };
  }

  it("links by target_entity_id and by target_identifier + target_type_name", async () => {
    const { auth, brand } = await setup();
    await createEntity(auth, "Brand", "Other", { code: "other" });
    const res = await upsert(auth, {
      data: [
        { name: "P1", attributes: { sku: "1", title: "t" }, relationships: [{ rule_name: "made_by", target_entity_id: brand.id }] },
        {
          name: "P2",
          attributes: { sku: "2", title: "t" },
          relationships: [{ rule_name: "made_by", target_identifier: { code: "other" }, target_type_name: "Brand" }],
        },
      ],
    });
    expect(res.status).toBe(200);
    const p1 = await call("GET", `/entity/entities/${res.json.data.ids[0]}?include=Brand`, { auth });
    expect(p1.json.data.relationships.map((r: any) => [r.entity.name, r.direction])).toEqual([["Acme", "to"]]);
    const p2 = await call("GET", `/entity/entities/${res.json.data.ids[1]}?include=Brand`, { auth });
    expect(p2.json.data.relationships.map((r: any) => r.entity.name)).toEqual(["Other"]);
  });

  it("fails the request with 422 on an unresolved target, or skips and reports it with skip_unresolved_relationships", async () => {
    const { auth, tenantId } = await setup();
    const data = [
      {
        name: "P",
        attributes: { sku: "1", title: "t" },
        relationships: [{ rule_name: "made_by", target_identifier: { code: "ghost" }, target_type_name: "Brand" }],
      },
    ];
    const failed = await upsert(auth, { data });
    const err = expectError(failed, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.unresolved).toEqual([{ index: 0, code: "UNRESOLVED_RELATIONSHIP", message: "no live Brand with identifier_key ghost" }]);
    expect(await liveCount(tenantId)).toBe(1);
    const skipped = await upsert(auth, { data, skip_unresolved_relationships: true });
    expect(skipped.status).toBe(200);
    expect(skipped.json.data.created).toBe(1);
    expect(skipped.json.data.errors).toEqual([{ index: 0, code: "UNRESOLVED_RELATIONSHIP", message: "no live Brand with identifier_key ghost" }]);
  });

  it("an error in a later entity batch says exactly which rows the committed batches wrote", async () => {
    const { auth, tenantId, brand } = await setup();
    const other = await createEntity(auth, "Brand", "Other", { code: "other" });
    // Merging the holder into the survivor would give the survivor two brands under a cap of one.
    const survivor = await createEntity(auth, "Product", "S", { sku: "S", title: "s" });
    const holder = await createEntity(auth, "Product", "H", { sku: "H", title: "h" });
    await call("POST", "/entity/relationships", { auth, body: { rule_name: "made_by", from_entity_id: survivor.id, to_entity_id: brand.id } });
    await call("POST", "/entity/relationships", { auth, body: { rule_name: "made_by", from_entity_id: holder.id, to_entity_id: other.id } });
    // 1,000 rows by key commit as batch one; the by-id row is batch two and fails.
    const res = await upsert(auth, { data: [...rows(1000), { id: survivor.id, name: "S", attributes: { sku: "H", title: "s" } }] });
    const err = expectError(res, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.code).toBe("MERGE_CARDINALITY_EXCEEDED");
    expect(err.details.rules).toEqual(["made_by"]);
    expect(err.details.committed).toEqual({ batches: 1, rows: 1000, ranges: [[0, 999]], links: 0 });
    expect(err.message).toBe(
      "Merging would exceed a relationship rule's cardinality; 1000 of 1001 rows (data[0] to data[999]) were already written by 1 committed batch and stay written",
    );
    const [written] = await systemQuery(
      "SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL AND identifier_key LIKE 'S%' AND identifier_key <> 'S'",
      [tenantId],
    );
    expect(written.n).toBe(1000);
    expect((await call("GET", `/entity/entities/${holder.id}`, { auth })).status).toBe(200);
  }, 60_000);

  it("an error in a later link batch says every row and the committed links stay written", async () => {
    const { auth, tenantId, brand } = await setup();
    const other = await createEntity(auth, "Brand", "Other", { code: "other" });
    const link = (id: string) => ({ rule_name: "made_by", target_entity_id: id });
    // 1,001 rows, one link each, the last row a second one: links 0-999 commit, the last link batch exceeds the cap.
    const data = rows(1001).map((r, i) => ({ ...r, relationships: i === 1000 ? [link(brand.id), link(other.id)] : [link(brand.id)] }));
    const err = expectError(await upsert(auth, { data }), 409, "CONFLICT");
    expect(err.details.code).toBe("CARDINALITY_VIOLATION");
    expect(err.details.committed).toEqual({ batches: 3, rows: 1001, ranges: [[0, 1000]], links: 1000 });
    expect(err.message).toBe(
      "Cardinality constraint violated; 1001 of 1001 rows (data[0] to data[1000]) were already written, with 1000 links, by 3 committed batches and stay written",
    );
    const [links] = await systemQuery("SELECT count(*)::int AS n FROM relationships WHERE tenant_id = $1 AND deleted_at IS NULL", [tenantId]);
    expect(links.n).toBe(1000);
  }, 60_000);

  it("enforces the rule's cap: two brands for one product under max_to_cardinality 1 is 409", async () => {
    const { auth, brand } = await setup();
    const other = await createEntity(auth, "Brand", "Other", { code: "other" });
    const res = await upsert(auth, {
      data: [
        {
          name: "P",
          attributes: { sku: "1", title: "t" },
          relationships: [
            { rule_name: "made_by", target_entity_id: brand.id },
            { rule_name: "made_by", target_entity_id: other.id },
          ],
        },
      ],
    });
    const err = expectError(res, 409, "CONFLICT");
    // The row committed before its links were refused, and the answer says so.
    expect(err.message).toBe("Cardinality constraint violated; 1 of 1 rows (data[0]) were already written by 1 committed batch and stay written");
    expect(err.details.committed).toEqual({ batches: 1, rows: 1, ranges: [[0, 0]], links: 0 });
  });
});
