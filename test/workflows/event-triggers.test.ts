// Event triggers through the whole path: an entity write through the gateway,
// its event on the real queue, the consumer claiming it and starting runs.
import { describe, expect, it } from "vitest";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType, createType } from "../support/entities";
import { activeWorkflow, createWorkflow } from "./fixture";

const JOBS = [{ id: "a", actions: [{ name: "pipe", config: {} }] }];

type RunRow = {
  id: string;
  workflow_id: string;
  trigger_key: string;
  trigger_type: string;
  entity_id: string | null;
  event_id: string | null;
  idempotency_key: string | null;
  context: any;
};

/** A workflow with one event trigger `on`; answers its id and the trigger row's uuid. */
async function eventWorkflow(creds: TenantCreds, source: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { id, activation } = await activeWorkflow(creds, { jobs: JOBS, triggers: [{ id: "on", source: { attributeFilters: [], ...source }, ...extra }] });
  return { id, triggerId: activation.triggers[0].trigger_id };
}

/** Waits until the tenant's outbox is empty: the claim and the runs commit together, so every run is then visible. */
async function settle(tenantId: string) {
  for (let i = 0; i < 200; i++) {
    const [row] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE tenant_id = $1", [tenantId]);
    if (row.n === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("events were not delivered");
}

async function runsOf(workflowId: string): Promise<RunRow[]> {
  return systemQuery<RunRow>(
    "SELECT id, workflow_id, trigger_key, trigger_type, entity_id, event_id, idempotency_key, context FROM workflow_runs WHERE workflow_id = $1 ORDER BY created_at, id",
    [workflowId],
  );
}

async function put(auth: string, id: string, attributes: Record<string, unknown>, name?: string) {
  const res = await call("PUT", `/entity/entities/${id}`, { auth, body: { attributes, ...(name ? { name } : {}) } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data;
}

async function tenantWithProducts() {
  const creds = await createTenant();
  const type = await createProductType(creds.auth, "Product", { indexed_attributes: [{ path: ["price"], type: "numeric" }] });
  return { creds, type };
}

describe("event triggers: type and action", () => {
  it("a created trigger fires once per create with the event as context.input; an updated trigger on updates only", async () => {
    const { creds, type } = await tenantWithProducts();
    const onCreate = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created" });
    const onUpdate = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "updated" });

    const e = await createEntity(creds.auth, "Product", "A", { sku: "1", title: "t" });
    await settle(creds.tenantId);
    const created = await runsOf(onCreate.id);
    expect(created).toHaveLength(1);
    expect(await runsOf(onUpdate.id)).toEqual([]);
    const [event] = await systemQuery<{ id: string; created_at: string }>("SELECT id FROM events WHERE entity_id = $1 AND action = 'created'", [e.id]);
    const [apiEvent] = (await call("GET", `/event/events?entity_id=${e.id}`, { auth: creds.auth })).json.data;
    expect(created[0]).toMatchObject({ trigger_key: "on", trigger_type: "event", entity_id: e.id, event_id: event.id, idempotency_key: null });
    expect(created[0].context).toEqual({
      input: {
        event: { id: event.id, action: "created", occurred_at: apiEvent.created_at },
        entity: {
          id: e.id,
          name: "A",
          type: { id: type.id, name: "Product" },
          attributes: { sku: "1", title: "t" },
          identifier_key: "1",
          created_at: e.created_at,
          updated_at: e.updated_at,
          deleted_at: null,
        },
      },
      trigger: { id: "on", type: "event" },
      run: { id: created[0].id },
    });

    const after = await put(creds.auth, e.id, { sku: "1", title: "t2" }, "B");
    // The same content again is no change: no event, no run.
    await put(creds.auth, e.id, { sku: "1", title: "t2" }, "B");
    await settle(creds.tenantId);
    expect(await runsOf(onCreate.id)).toHaveLength(1);
    const updated = await runsOf(onUpdate.id);
    expect(updated).toHaveLength(1);
    expect(updated[0].context.input.event.action).toBe("updated");
    expect(updated[0].context.input.entity).toEqual({
      id: e.id,
      name: "B",
      type: { id: type.id, name: "Product" },
      attributes: { sku: "1", title: "t2" },
      identifier_key: "1",
      created_at: e.created_at,
      updated_at: after.updated_at,
      deleted_at: null,
    });
    expect(updated[0].context.input.previous).toEqual({ attributes: { sku: "1", title: "t" }, name: "A" });

    // Deleting records a suppressed event: nothing fires.
    expect((await call("DELETE", `/entity/entities/${e.id}`, { auth: creds.auth })).status).toBe(200);
    await settle(creds.tenantId);
    expect((await runsOf(onCreate.id)).length + (await runsOf(onUpdate.id)).length).toBe(2);
  });

  it("a trigger fires for its entity type only", async () => {
    const { creds, type } = await tenantWithProducts();
    await createType(creds.auth, { name: "Note", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    const wf = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created" });
    await createEntity(creds.auth, "Note", "n", { code: "x" });
    await settle(creds.tenantId);
    expect(await runsOf(wf.id)).toEqual([]);
    const p = await createEntity(creds.auth, "Product", "p", { sku: "2", title: "t" });
    await settle(creds.tenantId);
    expect((await runsOf(wf.id)).map((r) => r.entity_id)).toEqual([p.id]);
  });

  it("upserted rows fire created and updated triggers with the entity's timestamps", async () => {
    const { creds, type } = await tenantWithProducts();
    const onCreate = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created" });
    const onUpdate = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "updated" });
    const upsert = (title: string) =>
      call("POST", "/entity/entities/upsert", {
        auth: creds.auth,
        body: { type_name: "Product", on_conflict: "replace", data: [{ name: "U", attributes: { sku: "u1", title } }] },
      });
    expect((await upsert("first")).status).toBe(200);
    expect((await upsert("second")).status).toBe(200);
    await settle(creds.tenantId);
    const [c] = await runsOf(onCreate.id);
    const [u] = await runsOf(onUpdate.id);
    const got = (await call("GET", `/entity/entities/${u.entity_id}`, { auth: creds.auth })).json.data;
    expect(c.context.input.entity).toMatchObject({
      attributes: { sku: "u1", title: "first" },
      identifier_key: "u1",
      created_at: got.created_at,
      deleted_at: null,
    });
    expect(u.context.input.entity).toEqual(got);
    // As after a PUT, an updated run sees what the entity was; a created one has no previous.
    expect(u.context.input.previous).toEqual({ attributes: { sku: "u1", title: "first" }, name: "U" });
    expect(c.context.input).not.toHaveProperty("previous");
  });

  it("an upsert by id (and by key with merge) gives its updated runs the entity as it was", async () => {
    const { creds, type } = await tenantWithProducts();
    const onUpdate = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "updated" });
    const first = await call("POST", "/entity/entities/upsert", {
      auth: creds.auth,
      body: { type_name: "Product", data: [{ name: "V", attributes: { sku: "v1", title: "one" } }] },
    });
    const id = first.json.data.ids[0];
    const byId = await call("POST", "/entity/entities/upsert", {
      auth: creds.auth,
      body: { type_name: "Product", data: [{ id, name: "V2", attributes: { sku: "v1", title: "two" } }] },
    });
    expect(byId.status).toBe(200);
    const merged = await call("POST", "/entity/entities/upsert", {
      auth: creds.auth,
      body: { type_name: "Product", on_conflict: "merge", data: [{ name: "V3", attributes: { sku: "v1", title: "three" } }] },
    });
    expect(merged.json.data.updated).toBe(1);
    await settle(creds.tenantId);
    const previous = (await runsOf(onUpdate.id)).map((r) => r.context.input.previous).sort((a, b) => a.name.localeCompare(b.name));
    expect(previous).toEqual([
      { attributes: { sku: "v1", title: "one" }, name: "V" },
      { attributes: { sku: "v1", title: "two" }, name: "V2" },
    ]);
  });
});

describe("event triggers: narrowing", () => {
  it("entityId narrows to one entity", async () => {
    const { creds, type } = await tenantWithProducts();
    const x = await createEntity(creds.auth, "Product", "x", { sku: "x", title: "t" });
    const y = await createEntity(creds.auth, "Product", "y", { sku: "y", title: "t" });
    const wf = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "updated", entityId: x.id });
    await put(creds.auth, y.id, { sku: "y", title: "changed" });
    await put(creds.auth, x.id, { sku: "x", title: "changed" });
    await settle(creds.tenantId);
    expect((await runsOf(wf.id)).map((r) => r.entity_id)).toEqual([x.id]);
  });

  it("relationshipRuleId narrows to entities linked by that rule, at either end", async () => {
    const { creds, type } = await tenantWithProducts();
    const shopType = await createType(creds.auth, { name: "Shop", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    const rule = (
      await call("POST", "/entity/relationship-rules", {
        auth: creds.auth,
        body: { name: "sells", from_entity_type_name: "Shop", to_entity_type_name: "Product" },
      })
    ).json.data;
    const other = (
      await call("POST", "/entity/relationship-rules", {
        auth: creds.auth,
        body: { name: "lists", from_entity_type_name: "Shop", to_entity_type_name: "Product" },
      })
    ).json.data;
    const shop = await createEntity(creds.auth, "Shop", "s", { code: "s" });
    const sold = await createEntity(creds.auth, "Product", "sold", { sku: "sold", title: "t" });
    const listed = await createEntity(creds.auth, "Product", "listed", { sku: "listed", title: "t" });
    const alone = await createEntity(creds.auth, "Product", "alone", { sku: "alone", title: "t" });
    for (const [r, to] of [
      ["sells", sold.id],
      ["lists", listed.id],
    ]) {
      expect(
        (await call("POST", "/entity/relationships", { auth: creds.auth, body: { rule_name: r, from_entity_id: shop.id, to_entity_id: to } })).status,
      ).toBe(201);
    }
    const onProducts = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "updated", relationshipRuleId: rule.id });
    const onShops = await eventWorkflow(creds, { entityTypeId: shopType.id, eventAction: "updated", relationshipRuleId: other.id });
    for (const p of [sold, listed, alone]) await put(creds.auth, p.id, { sku: p.attributes.sku, title: "changed" });
    await put(creds.auth, shop.id, { code: "s", note: "changed" });
    await settle(creds.tenantId);
    expect((await runsOf(onProducts.id)).map((r) => r.entity_id)).toEqual([sold.id]);
    expect((await runsOf(onShops.id)).map((r) => r.entity_id)).toEqual([shop.id]);
  });

  it("attributeFilters: each operator family, with a twin that does not match", async () => {
    const { creds, type } = await tenantWithProducts();
    // Each case: a filter, an entity it matches and one it does not.
    const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
      ["eq", { operator: "eq", path: "region", value: "EU" }, { region: "EU" }, { region: "US" }],
      ["neq", { operator: "neq", path: ["region"], value: "EU" }, { region: "US" }, { region: "EU" }],
      ["gt indexed", { operator: "gt", path: "price", value: 10 }, { price: 11 }, { price: 9 }],
      ["lte indexed", { operator: "lte", path: "price", value: 10 }, { price: 10 }, { price: 10.5 }],
      ["gte unindexed", { operator: "gte", path: "meta.rank", value: 3 }, { meta: { rank: 3 } }, { meta: { rank: "3" } }],
      ["in", { operator: "in", path: "region", value: ["EU", "APAC"] }, { region: "APAC" }, { region: "US" }],
      ["like", { operator: "like", path: "title", value: "Red%" }, { title: "Red shoe" }, { title: "red shoe" }],
      ["ilike", { operator: "ilike", path: "title", value: "%SHOE" }, { title: "blue shoe" }, { title: "blue shoes" }],
      ["is null", { operator: "is", path: "region", value: null }, {}, { region: "EU" }],
      ["is true", { operator: "is", path: "meta.vip", value: true }, { meta: { vip: true } }, { meta: { vip: false } }],
      ["cs", { operator: "cs", path: "tags", value: ["a", "b"] }, { tags: ["b", "c", "a"] }, { tags: ["a"] }],
      ["ov", { operator: "ov", path: "tags", value: ["x", "y"] }, { tags: ["y"] }, { tags: ["z"] }],
      ["segment", { operator: "segment", path: "path", value: "b" }, { path: "a|b|c" }, { path: "a|bc" }],
    ];
    const workflows = [];
    for (const [label, filter] of cases)
      workflows.push({ label, ...(await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created", attributeFilters: [filter] })) });
    const made: { label: string; hit: string; miss: string }[] = [];
    for (const [i, [label, , hit, miss]] of cases.entries()) {
      const a = await createEntity(creds.auth, "Product", `${label} hit`, { sku: `h${i}`, title: "t", ...hit });
      const b = await createEntity(creds.auth, "Product", `${label} miss`, { sku: `m${i}`, title: "t", ...miss });
      made.push({ label, hit: a.id, miss: b.id });
    }
    await settle(creds.tenantId);
    for (const [i, wf] of workflows.entries()) {
      const entities = (await runsOf(wf.id)).map((r) => r.entity_id);
      expect(entities, wf.label).toContain(made[i].hit);
      expect(entities, wf.label).not.toContain(made[i].miss);
    }
  });

  it("several attributeFilters must all hold", async () => {
    const { creds, type } = await tenantWithProducts();
    const wf = await eventWorkflow(creds, {
      entityTypeId: type.id,
      eventAction: "created",
      attributeFilters: [
        { operator: "eq", path: "region", value: "EU" },
        { operator: "gt", path: "price", value: 5 },
      ],
    });
    const both = await createEntity(creds.auth, "Product", "both", { sku: "1", title: "t", region: "EU", price: 6 });
    await createEntity(creds.auth, "Product", "region only", { sku: "2", title: "t", region: "EU", price: 4 });
    await createEntity(creds.auth, "Product", "price only", { sku: "3", title: "t", region: "US", price: 6 });
    await settle(creds.tenantId);
    expect((await runsOf(wf.id)).map((r) => r.entity_id)).toEqual([both.id]);
  });
});

describe("event triggers: condition, contextData, idempotencyKey", () => {
  it("condition gates; contextData lands in context.data", async () => {
    const { creds, type } = await tenantWithProducts();
    const wf = await eventWorkflow(
      creds,
      { entityTypeId: type.id, eventAction: "updated" },
      {
        condition: "context.input.entity.attributes.price > context.input.previous.attributes.price",
        contextData: { sku: "{{ context.input.entity.attributes.sku }}", was: { $jsonata: "context.input.previous.attributes.price" } },
      },
    );
    const e = await createEntity(creds.auth, "Product", "p", { sku: "c1", title: "t", price: 5 });
    await put(creds.auth, e.id, { sku: "c1", title: "t", price: 4 });
    await put(creds.auth, e.id, { sku: "c1", title: "t", price: 7 });
    await settle(creds.tenantId);
    const runs = await runsOf(wf.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].context.data).toEqual({ sku: "c1", was: 4 });
    expect(runs[0].context.input.entity.attributes.price).toBe(7);
  });

  it("idempotencyKey: one run per key", async () => {
    const { creds, type } = await tenantWithProducts();
    const wf = await eventWorkflow(
      creds,
      { entityTypeId: type.id, eventAction: "updated" },
      { idempotencyKey: "{{ context.input.entity.attributes.region }}" },
    );
    const e = await createEntity(creds.auth, "Product", "p", { sku: "k1", title: "t", region: "EU" });
    await put(creds.auth, e.id, { sku: "k1", title: "t2", region: "EU" });
    await put(creds.auth, e.id, { sku: "k1", title: "t3", region: "EU" });
    await put(creds.auth, e.id, { sku: "k1", title: "t3", region: "US" });
    await settle(creds.tenantId);
    expect((await runsOf(wf.id)).map((r) => r.idempotency_key)).toEqual(["EU", "US"]);
  });

  it("an expression that fails skips its own pair only", async () => {
    const { creds, type } = await tenantWithProducts();
    const failing = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created" }, { condition: '$number("abc") > 1' });
    // A string compared with an indexed numeric attribute cannot compile for this type.
    const unfit = await eventWorkflow(creds, {
      entityTypeId: type.id,
      eventAction: "created",
      attributeFilters: [{ operator: "gt", path: "price", value: "abc" }],
    });
    const fine = await eventWorkflow(creds, {
      entityTypeId: type.id,
      eventAction: "created",
      attributeFilters: [{ operator: "eq", path: "region", value: "EU" }],
    });
    const e = await createEntity(creds.auth, "Product", "p", { sku: "f1", title: "t", region: "EU" });
    await settle(creds.tenantId);
    expect(await runsOf(failing.id)).toEqual([]);
    expect(await runsOf(unfit.id)).toEqual([]);
    expect((await runsOf(fine.id)).map((r) => r.entity_id)).toEqual([e.id]);
  });
});

describe("event triggers: what never fires", () => {
  it("a disabled trigger, a definition never activated, another tenant's trigger", async () => {
    const { creds, type } = await tenantWithProducts();
    const disabled = await eventWorkflow(creds, { entityTypeId: type.id, eventAction: "created" });
    await systemQuery("UPDATE workflow_triggers SET enabled = false WHERE id = $1", [disabled.triggerId]);
    const draft = await createWorkflow(creds, {
      jobs: JOBS,
      triggers: [{ id: "on", source: { entityTypeId: type.id, eventAction: "created", attributeFilters: [] } }],
    });

    // Another tenant's trigger row naming this tenant's type (activation would refuse it; written directly).
    const other = await createTenant();
    const foreign = await createWorkflow(other, { jobs: JOBS, triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] });
    await systemQuery("INSERT INTO workflow_activations (workflow_id, tenant_id, version) VALUES ($1, $2, 1)", [foreign.id, other.tenantId]);
    await systemQuery(
      `INSERT INTO workflow_triggers (tenant_id, workflow_id, key, type, definition, entity_type_id, event_action)
       VALUES ($1, $2, 'on', 'event', $3::jsonb, $4, 'created')`,
      [other.tenantId, foreign.id, JSON.stringify({ id: "on", source: { entityTypeId: type.id, eventAction: "created" } }), type.id],
    );

    await createEntity(creds.auth, "Product", "p", { sku: "n1", title: "t" });
    await settle(creds.tenantId);
    expect(await runsOf(disabled.id)).toEqual([]);
    expect(await runsOf(draft.id)).toEqual([]);
    expect(await runsOf(foreign.id)).toEqual([]);
  });
});
