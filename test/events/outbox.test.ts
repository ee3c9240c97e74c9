import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, call, createTenant, expectError, systemQuery } from "../support/api";
import { REDELIVERY_GRACE_SECONDS } from "../../src/events/delivery";
import type { EventPointerMessage } from "../../src/db/outbox";
import { createEntity, createProductType, createType, eventsOf } from "../support/entities";

interface EventView {
  id: string;
  action: string;
  entity_id: string;
  entity_type: { id: string; name: string | null };
  suppressed: boolean;
  payload: any;
  created_at: string;
  delivered_at: string | null;
}

async function listEvents(auth: string, query = "") {
  const res = await call("GET", `/event/events${query ? `?${query}` : ""}`, { auth });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { data: EventView[]; next_cursor?: string };
}

/**
 * An event written straight to the database with its outbox row, as the
 * writers do, as if the process died after commit and before the queue send.
 */
async function insertEvent(
  tenantId: string,
  entity: { id: string; typeId: string },
  opts: { minutesAgo?: number; suppressed?: boolean; action?: string } = {},
) {
  const [row] = await systemQuery<{ id: string }>(
    `WITH ev AS (
       INSERT INTO events (tenant_id, entity_id, entity_type_id, action, suppressed, payload, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, now() - make_interval(mins => $7))
       RETURNING id, suppressed, created_at
     ), pending AS (
       INSERT INTO event_outbox (event_id, tenant_id, created_at) SELECT id, $1, created_at FROM ev WHERE NOT suppressed
     )
     SELECT id FROM ev`,
    [tenantId, entity.id, entity.typeId, opts.action ?? "updated", opts.suppressed ?? false, JSON.stringify({ injected: true }), opts.minutesAgo ?? 0],
  );
  return row.id;
}

async function deliveredAt(eventId: string): Promise<string | null> {
  const rows = await systemQuery<{ delivered_at: string }>("SELECT delivered_at FROM event_deliveries WHERE event_id = $1", [eventId]);
  return rows[0]?.delivered_at ?? null;
}

/** Which of the events still wait in the outbox. */
async function pending(eventIds: string[]): Promise<string[]> {
  const rows = await systemQuery<{ event_id: string }>("SELECT event_id FROM event_outbox WHERE event_id = ANY($1::uuid[])", [eventIds]);
  return eventIds.filter((id) => rows.some((r) => r.event_id === id));
}

async function runQueue(bodies: unknown[]) {
  const batch = createMessageBatch(
    "entity-events",
    bodies.map((body, i) => ({ id: `msg-${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  // The handler takes no ctx; getQueueResult still wants one to wait on.
  await worker.queue(batch as MessageBatch<unknown>, env);
  const result = await getQueueResult(batch, ctx);
  return { ids: batch.messages.map((m) => m.id), result };
}

async function runScheduled(withEnv: Env = env, at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), withEnv, ctx);
  await waitOnExecutionContext(ctx);
}

/** A tick late enough for every event written so far to be past its grace period. */
const afterGrace = () => Date.now() + (REDELIVERY_GRACE_SECONDS + 60) * 1000;

/** The Worker's fetch with `queue` as its events queue. */
async function callWithQueue(queue: Queue, method: string, path: string, auth: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { method, headers: { Authorization: auth, "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    { ...env, EVENTS: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, json: (await res.json()) as any };
}

/** The Worker's fetch with the events queue failing every send: the commit happens, the send is lost. */
function callWithLostSend(method: string, path: string, auth: string, body: unknown) {
  const down = {
    async send() {
      throw new Error("queue unavailable");
    },
    async sendBatch() {
      throw new Error("queue unavailable");
    },
  } as unknown as Queue;
  return callWithQueue(down, method, path, auth, body);
}

/** A queue binding that records what would have been sent. */
function recordingQueue() {
  const sent: EventPointerMessage[] = [];
  const queue = {
    async send(body: any) {
      sent.push(body);
    },
    async sendBatch(messages: Iterable<{ body: any }>) {
      for (const m of messages) sent.push(m.body);
    },
  } as unknown as Queue;
  return { sent, queue };
}

/** `delivered_at` of each event as GET /event/events shows it (each test's tenant has fewer than a page of events). */
async function deliveredViaApi(auth: string, eventIds: string[]): Promise<(string | null)[]> {
  const { data } = await listEvents(auth);
  return eventIds.map((id) => data.find((e) => e.id === id)?.delivered_at ?? null);
}

describe("each write records exactly its event", () => {
  it("create → created; PUT → updated; no-op PUT → nothing; PATCH → updated; delete → deleted (suppressed)", async () => {
    const { auth } = await createTenant();
    const type = await createProductType(auth);
    const e = await createEntity(auth, "Product", "A", { sku: "1", title: "t" });
    let events = await eventsOf(auth, e.id);
    expect(events.map((x) => [x.action, x.suppressed])).toEqual([["created", false]]);
    expect(events[0].payload.entity).toMatchObject({
      id: e.id,
      name: "A",
      type: { id: type.id, name: "Product" },
      attributes: { sku: "1", title: "t" },
      identifier_key: "1",
    });

    expect((await call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { sku: "1", title: "t2" } } })).status).toBe(200);
    events = await eventsOf(auth, e.id);
    expect(events.map((x) => x.action)).toEqual(["created", "updated"]);
    expect(events[1].payload.entity.attributes).toEqual({ sku: "1", title: "t2" });
    expect(events[1].payload.previous).toMatchObject({ attributes: { sku: "1", title: "t" } });

    // Same content again: no event.
    expect((await call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { title: "t2", sku: "1" } } })).status).toBe(200);
    expect((await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { title: "t2" } } })).status).toBe(200);
    expect((await eventsOf(auth, e.id)).map((x) => x.action)).toEqual(["created", "updated"]);

    expect((await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { price: 3 } } })).status).toBe(200);
    events = await eventsOf(auth, e.id);
    expect(events.map((x) => x.action)).toEqual(["created", "updated", "updated"]);
    expect(events[2].payload.entity.attributes).toEqual({ sku: "1", title: "t2", price: 3 });

    expect((await call("DELETE", `/entity/entities/${e.id}`, { auth })).status).toBe(200);
    events = await eventsOf(auth, e.id);
    expect(events.map((x) => [x.action, x.suppressed])).toEqual([
      ["created", false],
      ["updated", false],
      ["updated", false],
      ["deleted", true],
    ]);
  });

  it("a rekey merge records updated and merged on the survivor; the absorbed entity gets no event of its own", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const target = await createEntity(auth, "Product", "T", { sku: "T", title: "t" });
    const incumbent = await createEntity(auth, "Product", "I", { sku: "I", title: "i" });
    expect((await call("PUT", `/entity/entities/${target.id}`, { auth, body: { attributes: { sku: "I", title: "merged" } } })).status).toBe(200);
    const events = await eventsOf(auth, target.id);
    expect(events[0]).toMatchObject({ action: "created", suppressed: false });
    // Exactly one updated and one merged for the one write (their relative order is checked below).
    expect(
      events
        .slice(1)
        .map((x) => [x.action, x.suppressed])
        .sort(),
    ).toEqual([
      ["merged", false],
      ["updated", false],
    ]);
    const merged = events.find((x) => x.action === "merged")!;
    expect(merged.payload.merged_entity_id).toBe(incumbent.id);
    expect(merged.payload.entity).toMatchObject({ id: target.id, identifier_key: "I" });
    expect((await eventsOf(auth, incumbent.id)).map((x) => x.action)).toEqual(["created"]);
  });

  it("lists the events of one write in the order they were recorded (merged, then updated)", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const orders: string[][] = [];
    for (let i = 0; i < 6; i++) {
      const target = await createEntity(auth, "Product", `T${i}`, { sku: `T${i}`, title: "t" });
      await createEntity(auth, "Product", `I${i}`, { sku: `I${i}`, title: "i" });
      expect((await call("PUT", `/entity/entities/${target.id}`, { auth, body: { attributes: { sku: `I${i}`, title: "m" } } })).status).toBe(200);
      orders.push((await eventsOf(auth, target.id)).map((x) => x.action));
    }
    for (const order of orders) expect(order).toEqual(["created", "merged", "updated"]);
  });

  it("bulk delete records one suppressed deleted event per entity; refused writes record nothing", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    const a = await createEntity(auth, "Product", "A", { sku: "A", title: "a" });
    const b = await createEntity(auth, "Product", "B", { sku: "B", title: "b" });
    // Refused: duplicate key, schema violation, stale compare-and-swap.
    expectError(
      await call("POST", "/entity/entities", { auth, body: { type_name: "Product", name: "dup", attributes: { sku: "A", title: "x" } } }),
      409,
      "CONFLICT",
    );
    expectError(await call("PUT", `/entity/entities/${a.id}`, { auth, body: { attributes: { sku: 1 } } }), 422, "VALIDATION_FAILED");
    expectError(
      await call("PATCH", `/entity/entities/${a.id}/attributes`, { auth, body: { attributes: { title: "z" }, expected_updated_at: "2000-01-01T00:00:00Z" } }),
      409,
      "CONFLICT",
    );
    expect((await listEvents(auth)).data.map((x) => x.action)).toEqual(["created", "created"]);

    expect((await call("POST", "/entity/entities/bulk-delete", { auth, body: { ids: [a.id, b.id] } })).status).toBe(200);
    const deleted = (await listEvents(auth, "action=deleted")).data;
    expect(deleted.map((x) => [x.entity_id, x.suppressed]).sort()).toEqual(
      [
        [a.id, true],
        [b.id, true],
      ].sort(),
    );
  });
});

describe("GET /event/events", () => {
  it("filters by entity_id, type_name, entity_type_id and action, within the tenant only", async () => {
    const { auth } = await createTenant();
    const other = await createTenant();
    const product = await createProductType(auth);
    const shop = await createType(auth, { name: "Shop", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    const p1 = await createEntity(auth, "Product", "P1", { sku: "1", title: "t" });
    const p2 = await createEntity(auth, "Product", "P2", { sku: "2", title: "t" });
    const s1 = await createEntity(auth, "Shop", "S1", { code: "s" });
    await call("PUT", `/entity/entities/${p1.id}`, { auth, body: { attributes: { sku: "1", title: "changed" } } });
    await call("DELETE", `/entity/entities/${s1.id}`, { auth });

    const all = (await listEvents(auth)).data;
    expect(all.map((e) => [e.entity_id, e.action])).toEqual([
      [p1.id, "created"],
      [p2.id, "created"],
      [s1.id, "created"],
      [p1.id, "updated"],
      [s1.id, "deleted"],
    ]);
    expect(all[0]).toMatchObject({ entity_type: { id: product.id, name: "Product" }, suppressed: false });
    expect(all[0].id).toMatch(/^[0-9a-f-]{36}$/);

    expect((await listEvents(auth, `entity_id=${p1.id}`)).data.map((e) => e.action)).toEqual(["created", "updated"]);
    expect((await listEvents(auth, "type_name=Shop")).data.map((e) => [e.entity_id, e.action])).toEqual([
      [s1.id, "created"],
      [s1.id, "deleted"],
    ]);
    expect((await listEvents(auth, `entity_type_id=${shop.id}`)).data).toHaveLength(2);
    expect((await listEvents(auth, "action=created")).data.map((e) => e.entity_id)).toEqual([p1.id, p2.id, s1.id]);
    expect((await listEvents(auth, "type_name=Product&action=updated")).data.map((e) => e.entity_id)).toEqual([p1.id]);
    expect((await listEvents(auth, "type_name=Nothing")).data).toEqual([]);

    // Another tenant sees none of it.
    expect((await listEvents(other.auth)).data).toEqual([]);
    expect((await listEvents(other.auth, `entity_id=${p1.id}`)).data).toEqual([]);

    expectError(await call("GET", "/event/events?action=exploded", { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/event/events?entity_id=nope", { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/event/events?limit=0", { auth }), 422, "VALIDATION_FAILED");
  });

  it("pages by keyset with no duplicates or gaps; next_cursor only on full pages", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    for (let i = 0; i < 5; i++) await createEntity(auth, "Product", `P${i}`, { sku: `${i}`, title: "t" });
    const everything = (await listEvents(auth)).data.map((e) => e.id);
    expect(everything).toHaveLength(5);

    const p1 = await listEvents(auth, "limit=2");
    expect(p1.data).toHaveLength(2);
    expect(typeof p1.next_cursor).toBe("string");
    const p2 = await listEvents(auth, `limit=2&cursor=${encodeURIComponent(p1.next_cursor!)}`);
    expect(p2.data).toHaveLength(2);
    expect(typeof p2.next_cursor).toBe("string");
    const p3 = await listEvents(auth, `limit=2&cursor=${encodeURIComponent(p2.next_cursor!)}`);
    expect(p3.data).toHaveLength(1);
    expect(p3).not.toHaveProperty("next_cursor");
    expect([...p1.data, ...p2.data, ...p3.data].map((e) => e.id)).toEqual(everything);

    // Filters page the same way.
    const f1 = await listEvents(auth, "action=created&limit=4");
    expect(f1.data).toHaveLength(4);
    const f2 = await listEvents(auth, `action=created&limit=4&cursor=${encodeURIComponent(f1.next_cursor!)}`);
    expect(f2.data.map((e) => e.id)).toEqual([everything[4]]);
    expect(f2.next_cursor).toBeUndefined();
  });

  it("refuses a tampered cursor, or one from another query, with 422", async () => {
    const { auth } = await createTenant();
    await createProductType(auth);
    for (let i = 0; i < 3; i++) await createEntity(auth, "Product", `P${i}`, { sku: `${i}`, title: "t" });
    const { next_cursor } = await listEvents(auth, "limit=1");
    expect(typeof next_cursor).toBe("string");
    const [payload, sig] = next_cursor!.split(".");
    const forged = btoa(JSON.stringify(["1970-01-01T00:00:00Z", "00000000-0000-0000-0000-000000000000"]))
      .replace(/=+$/, "")
      .replace(/\+/g, "-")
      .replace(/\//g, "_");
    // Change a leading character: the last one of a 16-byte signature carries padding bits a decoder may ignore.
    const flipped = (sig.startsWith("A") ? "B" : "A") + sig.slice(1);
    for (const bad of [`${forged}.${sig}`, `${payload}.${flipped}`, "garbage", `${payload}.`, `${payload}`]) {
      const err = expectError(await call("GET", `/event/events?limit=1&cursor=${encodeURIComponent(bad)}`, { auth }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors[0]).toMatch(/^cursor: /);
    }
    // A cursor is bound to its filters.
    expectError(await call("GET", `/event/events?limit=1&action=created&cursor=${encodeURIComponent(next_cursor!)}`, { auth }), 422, "VALIDATION_FAILED");
    // The genuine one still works.
    expect((await listEvents(auth, `limit=1&cursor=${encodeURIComponent(next_cursor!)}`)).data).toHaveLength(1);
  });
});

describe("queue consumer", () => {
  it("claims the pointed-at events (outbox rows gone, delivered_at shown by GET) and acks; a redelivered message is a no-op", async () => {
    const t = await createTenant();
    const type = await createProductType(t.auth);
    const e = await createEntity(t.auth, "Product", "A", { sku: "1", title: "t" });
    const ref = { id: e.id, typeId: type.id };
    const ev1 = await insertEvent(t.tenantId, ref);
    const ev2 = await insertEvent(t.tenantId, ref);
    expect(await deliveredAt(ev1)).toBeNull();
    expect(await pending([ev1, ev2])).toEqual([ev1, ev2]);

    const first = await runQueue([{ tenant_id: t.tenantId, event_ids: [ev1, ev2] }]);
    expect(first.result.explicitAcks).toEqual(first.ids);
    expect(first.result.retryMessages).toEqual([]);
    expect(await pending([ev1, ev2])).toEqual([]);
    const d1 = await deliveredAt(ev1);
    const d2 = await deliveredAt(ev2);
    expect(d1).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(d2).toBe(d1);
    const viaApi = (await listEvents(t.auth, `entity_id=${e.id}`)).data.filter((x) => x.id === ev1 || x.id === ev2);
    expect(viaApi.map((x) => x.delivered_at)).toEqual([d1, d1]);

    // The same message again (a queue redelivery): acked, and delivered_at unchanged. The recorded
    // deliveries are moved an hour back first, so a redelivery that wrote them again would show.
    await systemQuery("UPDATE event_deliveries SET delivered_at = delivered_at - interval '1 hour' WHERE event_id = ANY($1::uuid[])", [[ev1, ev2]]);
    const [b1, b2] = [await deliveredAt(ev1), await deliveredAt(ev2)];
    expect(Date.parse(d1!) - Date.parse(b1!)).toBe(3_600_000);
    const again = await runQueue([{ tenant_id: t.tenantId, event_ids: [ev1, ev2] }]);
    expect(again.result.explicitAcks).toEqual(again.ids);
    expect(again.result.retryMessages).toEqual([]);
    expect(await deliveredAt(ev1)).toBe(b1);
    expect(await deliveredAt(ev2)).toBe(b2);
    const [{ n }] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_deliveries WHERE event_id = ANY($1::uuid[])", [[ev1, ev2]]);
    expect(n).toBe(2);
  });

  it("two consumers racing on one message record each event's delivery once", async () => {
    const t = await createTenant();
    const type = await createProductType(t.auth);
    const e = await createEntity(t.auth, "Product", "A", { sku: "1", title: "t" });
    const ids = [await insertEvent(t.tenantId, { id: e.id, typeId: type.id }), await insertEvent(t.tenantId, { id: e.id, typeId: type.id })];
    const message = { tenant_id: t.tenantId, event_ids: ids };
    const [a, b] = await Promise.all([runQueue([message]), runQueue([message])]);
    expect([...a.result.explicitAcks, ...b.result.explicitAcks]).toEqual([...a.ids, ...b.ids]);
    expect([...a.result.retryMessages, ...b.result.retryMessages]).toEqual([]);
    const rows = await systemQuery<{ event_id: string }>("SELECT event_id FROM event_deliveries WHERE event_id = ANY($1::uuid[]) ORDER BY event_id", [ids]);
    expect(rows.map((r) => r.event_id)).toEqual([...ids].sort());
    expect(await pending(ids)).toEqual([]);
  });

  it("acks and drops malformed messages without touching any event", async () => {
    const t = await createTenant();
    const type = await createProductType(t.auth);
    const e = await createEntity(t.auth, "Product", "A", { sku: "1", title: "t" });
    const ev = await insertEvent(t.tenantId, { id: e.id, typeId: type.id });
    const malformed = [
      null,
      "hello",
      { foo: 1 },
      { tenant_id: "not-a-uuid", event_ids: [ev] },
      { tenant_id: t.tenantId, event_ids: ["not-a-uuid", ev] },
      { tenant_id: t.tenantId, event_ids: ev },
      { event_ids: [ev] },
    ];
    const { ids, result } = await runQueue(malformed);
    expect(result.explicitAcks).toEqual(ids);
    expect(result.retryMessages).toEqual([]);
    expect(await deliveredAt(ev)).toBeNull();
    expect(await pending([ev])).toEqual([ev]);
  });

  it("does not deliver another tenant's events or suppressed events named in a message", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const type = await createProductType(a.auth);
    const e = await createEntity(a.auth, "Product", "A", { sku: "1", title: "t" });
    const ev = await insertEvent(a.tenantId, { id: e.id, typeId: type.id });
    const suppressed = await insertEvent(a.tenantId, { id: e.id, typeId: type.id }, { suppressed: true, action: "deleted" });
    const wrongTenant = await runQueue([{ tenant_id: b.tenantId, event_ids: [ev] }]);
    expect(wrongTenant.result.explicitAcks).toEqual(wrongTenant.ids);
    expect(await deliveredAt(ev)).toBeNull();
    expect(await pending([ev])).toEqual([ev]);
    await runQueue([{ tenant_id: a.tenantId, event_ids: [suppressed] }]);
    expect(await deliveredAt(suppressed)).toBeNull();
  });

  it("delivers API-written events end to end: the message a write sends is one the consumer claims", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const { sent, queue } = recordingQueue();
    const res = await callWithQueue(queue, "POST", "/entity/entities", t.auth, { type_name: "Product", name: "A", attributes: { sku: "1", title: "t" } });
    expect(res.status).toBe(201);
    const [created] = (await eventsOf(t.auth, res.json.data.id)) as unknown as EventView[];
    expect(sent).toEqual([{ tenant_id: t.tenantId, event_ids: [created.id] }]);
    expect(await pending([created.id])).toEqual([created.id]);

    const { ids, result } = await runQueue(sent);
    expect(result.explicitAcks).toEqual(ids);
    expect(await deliveredViaApi(t.auth, [created.id])).toEqual([expect.any(String)]);
    expect(await pending([created.id])).toEqual([]);
  });
});

describe("cron re-queue of undelivered events (crash between commit and send)", () => {
  it("re-queues events whose send was lost once their grace period is over; the consumer then delivers them", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    // Both writers of events: a single create and a batch upsert, each committed with the queue down.
    const created = await callWithLostSend("POST", "/entity/entities", t.auth, { type_name: "Product", name: "A", attributes: { sku: "A", title: "a" } });
    expect(created.status).toBe(201);
    const upserted = await callWithLostSend("POST", "/entity/entities/upsert", t.auth, {
      type_name: "Product",
      data: [
        { name: "B", attributes: { sku: "B", title: "b" } },
        { name: "C", attributes: { sku: "C", title: "c" } },
      ],
    });
    expect(upserted.status).toBe(200);
    expect(upserted.json.data.created).toBe(2);
    const entityIds = [created.json.data.id, ...upserted.json.data.ids];
    const lost = (await listEvents(t.auth)).data;
    expect(lost.map((x) => [x.entity_id, x.action, x.delivered_at])).toEqual(entityIds.map((id) => [id, "created", null]));
    const lostIds = lost.map((x) => x.id);
    expect(await pending(lostIds)).toEqual(lostIds);

    // Within the grace period the tick leaves them alone.
    const early = recordingQueue();
    await runScheduled({ ...env, EVENTS: early.queue });
    expect(early.sent.flatMap((m) => m.event_ids).filter((id) => lostIds.includes(id))).toEqual([]);

    const late = recordingQueue();
    await runScheduled({ ...env, EVENTS: late.queue }, afterGrace());
    const requeued = late.sent.filter((m) => m.tenant_id === t.tenantId);
    expect(requeued.flatMap((m) => m.event_ids).sort()).toEqual([...lostIds].sort());
    const { ids, result } = await runQueue(requeued);
    expect(result.explicitAcks).toEqual(ids);
    expect(await deliveredViaApi(t.auth, lostIds)).toEqual(lostIds.map(() => expect.any(String)));
    expect(await pending(lostIds)).toEqual([]);
  });

  it("sends due events as pointer messages, and never re-queues suppressed or not-yet-due events", async () => {
    const t = await createTenant();
    const type = await createProductType(t.auth);
    const e = await createEntity(t.auth, "Product", "A", { sku: "1", title: "t" });
    const ref = { id: e.id, typeId: type.id };
    const due = await insertEvent(t.tenantId, ref, { minutesAgo: 10 });
    const suppressed = await insertEvent(t.tenantId, ref, { minutesAgo: 10, suppressed: true, action: "deleted" });
    const fresh = await insertEvent(t.tenantId, ref, { minutesAgo: 0 });

    const { sent, queue } = recordingQueue();
    await runScheduled({ ...env, EVENTS: queue });
    const mine = sent.filter((m) => m.tenant_id === t.tenantId);
    expect(mine.flatMap((m) => m.event_ids)).toEqual([due]);
    for (const m of sent) {
      expect(m.event_ids).not.toContain(suppressed);
      expect(m.event_ids).not.toContain(fresh);
    }

    // End to end: the tick's messages, consumed, deliver the due one and leave the suppressed one alone.
    await runQueue(mine);
    expect(await deliveredViaApi(t.auth, [due])).toEqual([expect.any(String)]);
    expect(await deliveredAt(suppressed)).toBeNull();
  });

  it("does not re-queue events that were already delivered", async () => {
    const t = await createTenant();
    const type = await createProductType(t.auth);
    const e = await createEntity(t.auth, "Product", "A", { sku: "1", title: "t" });
    const ev = await insertEvent(t.tenantId, { id: e.id, typeId: type.id }, { minutesAgo: 10 });
    await runQueue([{ tenant_id: t.tenantId, event_ids: [ev] }]);
    expect(await deliveredAt(ev)).not.toBeNull();
    const { sent, queue } = recordingQueue();
    await runScheduled({ ...env, EVENTS: queue });
    expect(sent.flatMap((m) => m.event_ids)).not.toContain(ev);
  });

  it("never queues suppressed events: upserts with suppress_events and deletes leave nothing pending", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const up = await call("POST", "/entity/entities/upsert", {
      auth: t.auth,
      body: {
        type_name: "Product",
        suppress_events: true,
        data: [
          { name: "A", attributes: { sku: "A", title: "a" } },
          { name: "B", attributes: { sku: "B", title: "b" } },
        ],
      },
    });
    expect(up.status).toBe(200);
    const [a, b] = up.json.data.ids as string[];
    expect((await call("DELETE", `/entity/entities/${a}`, { auth: t.auth })).status).toBe(200);
    const events = (await listEvents(t.auth)).data;
    expect(events.map((x) => [x.entity_id, x.action, x.suppressed, x.delivered_at])).toEqual([
      [a, "created", true, null],
      [b, "created", true, null],
      [a, "deleted", true, null],
    ]);
    const ids = events.map((x) => x.id);
    expect(await pending(ids)).toEqual([]);

    const { sent, queue } = recordingQueue();
    await runScheduled({ ...env, EVENTS: queue }, afterGrace());
    expect(sent.flatMap((m) => m.event_ids).filter((id) => ids.includes(id))).toEqual([]);
  });
});
