// The consumer side of event triggers, driven directly: repeated and racing
// deliveries of one message, and the pure parts (filter checks, the input).
import { createExecutionContext, createMessageBatch, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { Database } from "../../src/db/client";
import { claimDelivery, consumeEvents } from "../../src/events/delivery";
import type { EventPointerMessage } from "../../src/db/outbox";
import { attributeFilterProblems } from "../../src/definition/language/attribute-filters";
import { eventInput, startEventRuns, type Claim } from "../../src/workflows/triggers/events";
import { BASE, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createProductType } from "../support/entities";
import { activeWorkflow } from "./fixture";

const JOBS = [{ id: "a", actions: [{ name: "pipe", config: {} }] }];

/** Creates entities through the Worker with an events queue that only records: the events wait in the outbox for the test to deliver. */
async function createUndelivered(creds: TenantCreds, count: number): Promise<EventPointerMessage> {
  const sent: EventPointerMessage[] = [];
  const queue = {
    async send(body: EventPointerMessage) {
      sent.push(body);
    },
    async sendBatch(messages: Iterable<{ body: EventPointerMessage }>) {
      for (const m of messages) sent.push(m.body);
    },
  } as unknown as Queue;
  const data = Array.from({ length: count }, (_, i) => ({ name: `p${i}`, attributes: { sku: `s${i}`, title: "t", price: i } }));
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}/entity/entities/upsert`, {
      method: "POST",
      headers: { Authorization: creds.auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type_name: "Product", data }),
    }),
    { ...env, EVENTS: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  expect(sent).toHaveLength(1);
  return sent[0];
}

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function setup(count: number) {
  const creds = await createTenant();
  const type = await createProductType(creds.auth);
  const wf = (eventAction = "created") =>
    activeWorkflow(creds, { jobs: JOBS, triggers: [{ id: "on", source: { entityTypeId: type.id, eventAction, attributeFilters: [] } }] });
  const a = await wf();
  const b = await wf();
  const message = await createUndelivered(creds, count);
  return { creds, a, b, message };
}

async function runCounts(workflowIds: string[]) {
  const rows = await systemQuery<{ workflow_id: string; runs: number; events: number }>(
    "SELECT workflow_id, count(*)::int AS runs, count(DISTINCT event_id)::int AS events FROM workflow_runs WHERE workflow_id = ANY($1::uuid[]) GROUP BY workflow_id",
    [workflowIds],
  );
  return workflowIds.map((id) => rows.find((r) => r.workflow_id === id) ?? { runs: 0, events: 0 });
}

describe("delivering one message", () => {
  it("the same message twice starts each (event, trigger) run once", async () => {
    const { a, b, message } = await setup(5);
    const batch = () => createMessageBatch("entity-events", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message }]);
    await withDatabase((db) => consumeEvents(batch() as MessageBatch<unknown>, db));
    await withDatabase((db) => consumeEvents(batch() as MessageBatch<unknown>, db));
    expect((await runCounts([a.id, b.id])).map((c) => [c.runs, c.events])).toEqual([
      [5, 5],
      [5, 5],
    ]);
  });

  it("two consumers racing on separate connections: one run per (event, trigger), one claim", async () => {
    const { a, b, message } = await setup(50);
    const started = await Promise.all([withDatabase((db) => claimDelivery(db, message)), withDatabase((db) => claimDelivery(db, message))]);
    expect(started.map((ids) => ids.length).sort((x, y) => x - y)).toEqual([0, 100]);
    const counts = await runCounts([a.id, b.id]);
    expect(counts.map((c) => [c.runs, c.events])).toEqual([
      [50, 50],
      [50, 50],
    ]);
    const [delivered] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_deliveries WHERE event_id = ANY($1::uuid[])", [
      message.event_ids,
    ]);
    expect(delivered.n).toBe(50);
  });

  it("runs started twice for the same claim are refused by the (trigger, event) key", async () => {
    const { creds, a, message } = await setup(1);
    await withDatabase((db) => claimDelivery(db, message));
    const [run] = await systemQuery<{ event_id: string; trigger_id: string; context: any }>(
      "SELECT event_id, trigger_id, context FROM workflow_runs WHERE workflow_id = $1",
      [a.id],
    );
    const [trigger] = await systemQuery<{ id: string; key: string; definition: any }>("SELECT id, key, definition FROM workflow_triggers WHERE id = $1", [
      run.trigger_id,
    ]);
    const [event] = await systemQuery<{ payload: any; entity_type_id: string; entity_id: string }>(
      "SELECT payload, entity_type_id, entity_id FROM events WHERE id = $1",
      [run.event_id],
    );
    const claim: Claim = {
      events: [
        {
          id: run.event_id,
          entity_id: event.entity_id,
          entity_type_id: event.entity_type_id,
          action: "created",
          payload: event.payload,
          occurred_at: "x",
          trigger_ids: [trigger.id],
        },
      ],
      triggers: [
        {
          id: trigger.id,
          key: trigger.key,
          workflow_id: a.id,
          entity_type_id: event.entity_type_id,
          version: 1,
          definition: trigger.definition,
          type_config: null,
        },
      ],
    };
    const again = await withDatabase((db) => db.tenantTx(creds.tenantId, (sql) => startEventRuns(sql, creds.tenantId, claim)));
    expect(again).toEqual([]);
    expect((await runCounts([a.id]))[0].runs).toBe(1);
  });

  it("events with no trigger are claimed without starting anything", async () => {
    const creds = await createTenant();
    await createProductType(creds.auth);
    const message = await createUndelivered(creds, 3);
    expect(await withDatabase((db) => claimDelivery(db, message))).toEqual([]);
    const [left] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE event_id = ANY($1::uuid[])", [message.event_ids]);
    expect(left.n).toBe(0);
  });
});

describe("attributeFilterProblems", () => {
  const at = "source.attributeFilters";
  it("accepts particles with dotted or array paths", () => {
    expect(
      attributeFilterProblems(
        [
          { operator: "eq", path: "region", value: "EU" },
          { operator: "in", path: ["a", "b"], value: [1, "x"] },
          { operator: "is", path: "x", value: null },
          { operator: "like", path: "t", value: "a%" },
        ],
        at,
      ),
    ).toEqual([]);
  });

  it("names each problem by its place", () => {
    expect(attributeFilterProblems("eq", at)).toEqual([`${at}: must be an array`]);
    const problems = attributeFilterProblems(
      [
        { operator: "exists", path: ["relationships", "Shop"] },
        { operator: "rel_exists", path: "x", value: {} },
        { operator: "and", filters: [] },
        { operator: "eq", path: "", value: 1 },
        { operator: "eq", path: ["a", 3], value: 1 },
        { operator: "eq", path: "a", value: "x\u0000" },
        { operator: "eq", path: "a", value: "\ud800" },
        { operator: "gt", path: "a", value: true },
        { operator: "nope", path: "a", value: 1 },
        { operator: "in", path: "a", value: "x" },
        { operator: "eq", path: "a", value: 1, extra: 1 },
        7,
        { operator: "eq", path: "a.b.c.d.e.f.g.h.i.j.k.l", value: 1 },
      ],
      at,
    );
    expect(problems).toHaveLength(13);
    expect(problems[0]).toBe(`${at}[0].operator: exists cannot be used in attributeFilters (each filter compares one attribute of the event's entity)`);
    expect(problems[1]).toMatch(/^source\.attributeFilters\[1\]\.operator: rel_exists/);
    expect(problems[2]).toMatch(/^source\.attributeFilters\[2\]\.operator: and/);
    expect(problems[3]).toBe(`${at}[3].path: must be a dotted string or an array of 1 to 11 non-empty strings`);
    expect(problems[4]).toBe(`${at}[4].path: must be a dotted string or an array of 1 to 11 non-empty strings`);
    expect(problems[5]).toBe(`${at}[5].value: must not contain NUL characters or unpaired surrogates`);
    expect(problems[6]).toBe(`${at}[6].value: must not contain NUL characters or unpaired surrogates`);
    expect(problems[7]).toBe(`${at}[7].value: must be a string or number for gt`);
    expect(problems[8]).toMatch(/^source\.attributeFilters\[8\]\.operator: must be one of/);
    expect(problems[9]).toBe(`${at}[9].value: must be an array for in`);
    expect(problems[10]).toBe(`${at}[10].extra: is not allowed on a particle`);
    expect(problems[11]).toBe(`${at}[11]: must be an object { operator, path, value }`);
    expect(problems[12]).toBe(`${at}[12].path: must be a dotted string or an array of 1 to 11 non-empty strings`);
  });
});

describe("eventInput", () => {
  const entity = { id: "e", name: "N", type: { id: "t", name: "T" }, attributes: { a: 1 }, identifier_key: "k", created_at: "c", updated_at: "u" };
  const base = { id: "ev", entity_id: "e", entity_type_id: "t", occurred_at: "o", trigger_ids: [] };
  it("created: the event and the entity as the API answers it", () => {
    expect(eventInput({ ...base, action: "created", payload: { entity } })).toEqual({
      event: { id: "ev", action: "created", occurred_at: "o" },
      entity: { ...entity, deleted_at: null },
    });
  });
  it("updated: previous is the name and attributes before", () => {
    const payload = { entity, previous: { name: "M", attributes: { a: 0 }, identifier_key: "j" } };
    expect(eventInput({ ...base, action: "updated", payload })).toEqual({
      event: { id: "ev", action: "updated", occurred_at: "o" },
      entity: { ...entity, deleted_at: null },
      previous: { attributes: { a: 0 }, name: "M" },
    });
  });
});
