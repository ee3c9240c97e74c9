// The entity actions through real runs: a workflow bound to a policy runs one
// action, and what it did is read back through the REST API (entities,
// links, events), beside the answer the REST route gives for the same body.
import { describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createEntity, createProductType, createType, eventsOf } from "../support/entities";
import { policyGranting } from "./actions-support";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

const READ = ["entity:read"];
const WRITE = ["entity:read", "entity:update"];
/** A new row needs entity:create on its type as well, as over REST. */
const UPSERT = ["entity:read", "entity:create", "entity:update"];
const DELETE = ["entity:read", "entity:delete"];

/** Runs `name` with `config` as the only action of a workflow bound to a policy granting `permissions`. */
async function runAction(t: TenantCreds, name: string, config: unknown, permissions: string[]) {
  const policy_id = await policyGranting(t, permissions);
  const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "s", name, config }] }], {}, { policy_id });
  const run = await runRecord(t, await dispatched(t, id));
  const action = run.job_runs[0].action_runs[0];
  return { status: run.status as string, result: run.outputs?.a?.s, error: action.error, log: run.job_runs[0].action_log };
}

async function succeeded(t: TenantCreds, name: string, config: unknown, permissions: string[]) {
  const run = await runAction(t, name, config, permissions);
  expect([run.status, run.error], JSON.stringify(run)).toEqual(["success", null]);
  return run.result;
}

async function failed(t: TenantCreds, name: string, config: unknown, permissions: string[]) {
  const run = await runAction(t, name, config, permissions);
  expect(run.status, JSON.stringify(run)).toBe("error");
  // The action log carries the same error as the action run.
  expect(run.log.at(-1)).toMatchObject({ step_id: "s", status: "error", error: run.error });
  return run.error;
}

/** Products and categories, linked by `in_category`: a product in at most 2 categories, a category holding at most 3 products. */
async function catalogTenant() {
  const t = await createTenant();
  await createProductType(t.auth);
  await createType(t.auth, {
    name: "Category",
    schema: { type: "object", required: ["code"], properties: { code: { type: "string" } } },
    config: { identifier_key: ["code"] },
  });
  const rule = await call("POST", "/entity/relationship-rules", {
    auth: t.auth,
    body: { name: "in_category", from_entity_type_name: "Product", to_entity_type_name: "Category", max_to_cardinality: 2, max_from_cardinality: 3 },
  });
  expect(rule.status, rule.text).toBe(201);
  const product = (sku: string, title = "t") => createEntity(t.auth, "Product", `P-${sku}`, { sku, title });
  const category = (code: string) => createEntity(t.auth, "Category", `C-${code}`, { code });
  return { t, rule: rule.json.data as { id: string; name: string }, product, category };
}

async function link(t: TenantCreds, from: string, to: string) {
  const res = await call("POST", "/entity/relationships", { auth: t.auth, body: { rule_name: "in_category", from_entity_id: from, to_entity_id: to } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string };
}

/** The categories a product is linked to, read through POST /entity/query-graph. */
async function categoriesOf(t: TenantCreds, productId: string): Promise<string[]> {
  const res = await call("POST", "/entity/query-graph", {
    auth: t.auth,
    body: { type_name: "Product", filter: { operator: "eq", path: ["id"], value: productId }, include: [{ type_name: "Category", rule_name: "in_category" }] },
  });
  expect(res.status, res.text).toBe(200);
  return (res.json.data.edges as { to_id: string }[]).map((e) => e.to_id).sort();
}

async function getEntity(t: TenantCreds, id: string) {
  return call("GET", `/entity/entities/${id}`, { auth: t.auth });
}

describe("queryEntity", () => {
  it("answers what POST /entity/query answers for the same body, and pages by the keyset cursor of its result", async () => {
    const { t, product } = await catalogTenant();
    for (const sku of ["c", "a", "b"]) await product(sku);
    const config = { typeName: "Product", sort: [{ path: ["attributes", "sku"], direction: "asc" }], limit: 2, includeCount: true };
    const first = await succeeded(t, "queryEntity", config, READ);
    expect(first.data.map((e: any) => e.attributes.sku)).toEqual(["a", "b"]);
    expect(first.count).toBe(3);
    expect(typeof first.next_cursor).toBe("string");
    const rest = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Product", sort: config.sort, limit: 2, include_count: true } });
    expect(first).toEqual(rest.json);

    const second = await succeeded(t, "queryEntity", { ...config, cursor: first.next_cursor }, READ);
    expect(second.data.map((e: any) => e.attributes.sku)).toEqual(["c"]);
    expect(second.next_cursor).toBeUndefined();
  });

  it("keeps filter values as written and maps includeSpecs to the route's include_specs", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("x");
    await product("y");
    const c = await category("k1");
    await link(t, p.id, c.id);
    const result = await succeeded(
      t,
      "queryEntity",
      {
        typeName: "Product",
        filter: { operator: "in", path: ["attributes", "sku"], value: ["x", "zz"] },
        includeSpecs: [{ typeName: "Category", ruleName: "in_category" }],
      },
      READ,
    );
    expect(result.data.map((e: any) => e.id)).toEqual([p.id]);
    expect(result.data[0].relationships).toHaveLength(1);
    expect(result.data[0].relationships[0]).toMatchObject({ rule: { name: "in_category" }, direction: "to", entity: { id: c.id } });
  });

  it("answers 404 for a type it does not hold (another tenant's too) and 422 for a bad filter", async () => {
    const { t } = await catalogTenant();
    const other = await createTenant();
    await createProductType(other.auth, "Gadget");
    expect(await failed(t, "queryEntity", { typeName: "Gadget" }, READ)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(await failed(t, "queryEntity", { typeName: "Product", filter: { operator: "nope", path: ["name"] } }, READ)).toMatchObject({ status: 422 });
  });
});

describe("queryEntityGraph", () => {
  it("answers what POST /entity/query-graph answers, nested include entries in camelCase", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("g1");
    const c = await category("k");
    await link(t, p.id, c.id);
    const result = await succeeded(
      t,
      "queryEntityGraph",
      { typeName: "Product", include: [{ typeName: "Category", ruleName: "in_category", limit: 5 }], nodeBudget: 10 },
      READ,
    );
    expect(result.data.roots).toEqual([p.id]);
    expect(Object.keys(result.data.nodes).sort()).toEqual([p.id, c.id].sort());
    expect(result.data.edges).toEqual([{ rule: { id: expect.any(String), name: "in_category" }, from_id: p.id, to_id: c.id }]);
    const rest = await call("POST", "/entity/query-graph", {
      auth: t.auth,
      body: { type_name: "Product", include: [{ type_name: "Category", rule_name: "in_category", limit: 5 }], node_budget: 10 },
    });
    expect(result).toEqual(rest.json);
  });
});

describe("upsertEntity", () => {
  it("writes through the upsert path: counts and ids, inline links, created events; suppressEvents keeps the update's event undispatched", async () => {
    const { t, category } = await catalogTenant();
    const c = await category("home");
    const result = await succeeded(
      t,
      "upsertEntity",
      {
        typeName: "Product",
        data: [
          { name: "Lamp", attributes: { sku: "u1", title: "Lamp" } },
          { name: "Desk", attributes: { sku: "u2", title: "Desk" }, relationships: [{ ruleName: "in_category", targetEntityId: c.id }] },
        ],
      },
      UPSERT,
    );
    expect(result).toEqual({ created: 2, updated: 0, unchanged: 0, ignored: 0, ids: [expect.any(String), expect.any(String)], errors: [] });
    const [lamp, desk] = result.ids;
    const got = await getEntity(t, lamp);
    expect([got.status, got.json.data.name, got.json.data.attributes]).toEqual([200, "Lamp", { sku: "u1", title: "Lamp" }]);
    expect(await categoriesOf(t, desk)).toEqual([c.id]);
    expect((await eventsOf(t.auth, lamp)).map((e) => [e.action, e.suppressed])).toEqual([["created", false]]);

    const again = await succeeded(
      t,
      "upsertEntity",
      { typeName: "Product", data: [{ name: "Lamp", attributes: { sku: "u1", title: "Lamp 2" } }], suppressEvents: true },
      UPSERT,
    );
    expect(again).toEqual({ created: 0, updated: 1, unchanged: 0, ignored: 0, ids: [lamp], errors: [] });
    expect((await getEntity(t, lamp)).json.data.attributes.title).toBe("Lamp 2");
    const events = await eventsOf(t.auth, lamp);
    expect(events.map((e) => [e.action, e.suppressed]).sort()).toEqual([
      ["created", false],
      ["updated", true],
    ]);
  });

  it("refuses rows the type's schema refuses at their config path, and a row id of another tenant's entity as unknown; nothing is written", async () => {
    const { t } = await catalogTenant();
    const other = await createTenant();
    await createProductType(other.auth);
    const foreign = await createEntity(other.auth, "Product", "F", { sku: "f", title: "f" });

    const bad = await failed(
      t,
      "upsertEntity",
      {
        typeName: "Product",
        data: [
          { name: "ok", attributes: { sku: "v1", title: "t" } },
          { name: "no title", attributes: { sku: "v2" } },
        ],
      },
      UPSERT,
    );
    expect(bad).toMatchObject({ status: 422, code: "VALIDATION_FAILED" });
    expect(bad.details.errors).toEqual(["config.data[1].attributes.title: is required"]);

    await createEntity(t.auth, "Product", "Taken", { sku: "taken", title: "t" });
    const raised = await failed(
      t,
      "upsertEntity",
      { typeName: "Product", onConflict: "raise", data: [{ name: "again", attributes: { sku: "taken", title: "t2" } }] },
      UPSERT,
    );
    expect(raised).toMatchObject({ status: 409, code: "CONFLICT", details: { identifier_keys: ["taken"] } });

    const notFound = await failed(
      t,
      "upsertEntity",
      { typeName: "Product", data: [{ id: foreign.id, name: "mine", attributes: { sku: "f", title: "f" } }] },
      UPSERT,
    );
    expect(notFound).toMatchObject({ status: 404, code: "NOT_FOUND", details: { missing_ids: [foreign.id] } });
    expect((await getEntity(other, foreign.id)).json.data.name).toBe("F");
    const list = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Product" } });
    expect(list.json.data.map((e: any) => [e.name, e.attributes.title])).toEqual([["Taken", "t"]]);
  });
});

describe("removeEntities", () => {
  it("soft-deletes the ids it holds through the bulk-delete path; unknown and other tenants' ids are not_found", async () => {
    const { t, product, category } = await catalogTenant();
    const other = await createTenant();
    await createProductType(other.auth);
    const foreign = await createEntity(other.auth, "Product", "F", { sku: "f", title: "f" });
    const a = await product("r1");
    const b = await product("r2");
    const c = await category("rc");
    await link(t, a.id, c.id);
    const unknown = crypto.randomUUID();

    const result = await succeeded(t, "removeEntities", { ids: [a.id, b.id, unknown, foreign.id] }, DELETE);
    expect(result).toEqual({ deleted: [a.id, b.id], not_found: [unknown, foreign.id] });
    expect((await getEntity(t, a.id)).status).toBe(404);
    expect((await getEntity(other, foreign.id)).status).toBe(200);
    expect((await eventsOf(t.auth, a.id)).map((e) => [e.action, e.suppressed]).sort()).toEqual([
      ["created", false],
      ["deleted", true],
    ]);
    // The links went with the entity.
    const graph = await call("POST", "/entity/query-graph", { auth: t.auth, body: { type_name: "Category", include: [{ type_name: "Product" }] } });
    expect(graph.json.data.edges).toEqual([]);
  });
});

describe("upsertRelationship", () => {
  it("links two entities as POST /entity/relationships does; the same link again answers the live link", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("l1");
    const c = await category("lc");
    const config = { ruleName: "in_category", fromEntityId: p.id, toEntityId: c.id };
    const result = await succeeded(t, "upsertRelationship", config, WRITE);
    expect(result).toEqual({
      id: expect.any(String),
      rule: { id: expect.any(String), name: "in_category" },
      from_entity_id: p.id,
      to_entity_id: c.id,
      created_at: expect.any(String),
    });
    const rest = await call("GET", `/entity/relationships/${result.id}`, { auth: t.auth });
    expect(rest.json.data).toEqual(result);
    expect(await succeeded(t, "upsertRelationship", config, WRITE)).toEqual(result);
    expect(await categoriesOf(t, p.id)).toEqual([c.id]);
  });

  it("applies onCardinalityViolation: raise is 409 and writes nothing, replace retires the oldest link", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("cap");
    const [c1, c2, c3] = [await category("c1"), await category("c2"), await category("c3")];
    await link(t, p.id, c1.id);
    await link(t, p.id, c2.id);
    const raised = await failed(t, "upsertRelationship", { ruleName: "in_category", fromEntityId: p.id, toEntityId: c3.id }, WRITE);
    expect(raised).toMatchObject({ status: 409, code: "CONFLICT", message: "Cardinality constraint violated", details: { code: "CARDINALITY_VIOLATION" } });
    expect(await categoriesOf(t, p.id)).toEqual([c1.id, c2.id].sort());
    await succeeded(t, "upsertRelationship", { ruleName: "in_category", fromEntityId: p.id, toEntityId: c3.id, onCardinalityViolation: "replace" }, WRITE);
    expect(await categoriesOf(t, p.id)).toEqual([c2.id, c3.id].sort());
  });

  it("cannot reach another tenant's entity or rule", async () => {
    const { t, product, rule } = await catalogTenant();
    const other = await catalogTenant();
    const p = await product("mine");
    const foreign = await other.category("theirs");
    expect(await failed(t, "upsertRelationship", { ruleName: "in_category", fromEntityId: p.id, toEntityId: foreign.id }, WRITE)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(await failed(other.t, "upsertRelationship", { ruleId: rule.id, fromEntityId: p.id, toEntityId: foreign.id }, WRITE)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      message: `Relationship rule ${rule.id} not found`,
    });
  });
});

describe("removeRelationships", () => {
  it("by ids: removes the live links; unknown and other tenants' link ids are not_found", async () => {
    const { t, product, category } = await catalogTenant();
    const other = await catalogTenant();
    const foreignLink = await link(other.t, (await other.product("o")).id, (await other.category("o")).id);
    const p = await product("d1");
    const c = await category("d1");
    const l = await link(t, p.id, c.id);
    const unknown = crypto.randomUUID();
    const result = await succeeded(t, "removeRelationships", { ids: [l.id, unknown, foreignLink.id] }, WRITE);
    expect(result).toEqual({ deleted: [l.id], not_found: [unknown, foreignLink.id] });
    expect((await call("GET", `/entity/relationships/${l.id}`, { auth: t.auth })).status).toBe(404);
    expect((await call("GET", `/entity/relationships/${foreignLink.id}`, { auth: other.t.auth })).status).toBe(200);
  });

  it("by ends: every link of the rule from an entity, or only the one to toEntityId; an unknown end is 404", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("e1");
    const q = await product("e2");
    const [c1, c2] = [await category("e1"), await category("e2")];
    const l1 = await link(t, p.id, c1.id);
    const l2 = await link(t, p.id, c2.id);
    await link(t, q.id, c1.id);

    expect(await succeeded(t, "removeRelationships", { ruleName: "in_category", fromEntityId: p.id, toEntityId: c2.id }, WRITE)).toEqual({
      deleted: [l2.id],
      not_found: [],
    });
    expect(await categoriesOf(t, p.id)).toEqual([c1.id]);
    expect(await succeeded(t, "removeRelationships", { ruleName: "in_category", fromEntityId: p.id }, WRITE)).toEqual({ deleted: [l1.id], not_found: [] });
    expect(await categoriesOf(t, p.id)).toEqual([]);
    expect(await categoriesOf(t, q.id)).toEqual([c1.id]);
    expect(await failed(t, "removeRelationships", { ruleName: "in_category", fromEntityId: crypto.randomUUID() }, WRITE)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
    expect(await failed(t, "removeRelationships", { ruleName: "no_such_rule", fromEntityId: p.id }, WRITE)).toMatchObject({
      status: 404,
      message: "Relationship rule no_such_rule not found",
    });
  });
});

describe("syncRelationships", () => {
  it("adds the missing links, removes the others and counts the rest, all in one go", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("s1");
    const [c1, c2, c3] = [await category("s1"), await category("s2"), await category("s3")];
    const l1 = await link(t, p.id, c1.id);
    await link(t, p.id, c2.id);

    const result = await succeeded(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [c2.id, c3.id] }, WRITE);
    expect(result.unchanged).toBe(1);
    expect(result.added).toEqual([
      {
        id: expect.any(String),
        rule: { id: expect.any(String), name: "in_category" },
        from_entity_id: p.id,
        to_entity_id: c3.id,
        created_at: expect.any(String),
      },
    ]);
    expect(result.removed).toEqual([
      {
        id: l1.id,
        rule: { id: expect.any(String), name: "in_category" },
        from_entity_id: p.id,
        to_entity_id: c1.id,
        created_at: expect.any(String),
        deleted_at: expect.any(String),
      },
    ]);
    expect(await categoriesOf(t, p.id)).toEqual([c2.id, c3.id].sort());
    expect((await call("GET", `/entity/relationships/${result.added[0].id}`, { auth: t.auth })).status).toBe(200);

    // The same set again changes nothing; an empty set removes every link.
    expect(await succeeded(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [c3.id, c2.id] }, WRITE)).toEqual({
      added: [],
      removed: [],
      unchanged: 2,
    });
    const cleared = await succeeded(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [] }, WRITE);
    expect([cleared.added, cleared.removed.map((l: any) => l.to_entity_id).sort(), cleared.unchanged]).toEqual([[], [c2.id, c3.id].sort(), 0]);
    expect(await categoriesOf(t, p.id)).toEqual([]);
  });

  it("syncs from the `to` side: a category's products", async () => {
    const { t, product, category, rule } = await catalogTenant();
    const c = await category("to");
    const [p1, p2] = [await product("t1"), await product("t2")];
    await link(t, p1.id, c.id);
    const result = await succeeded(t, "syncRelationships", { ruleId: rule.id, entityId: c.id, side: "to", targetIds: [p2.id] }, WRITE);
    expect([result.added.map((l: any) => [l.from_entity_id, l.to_entity_id]), result.removed.map((l: any) => l.from_entity_id), result.unchanged]).toEqual([
      [[p2.id, c.id]],
      [p1.id],
      0,
    ]);
    expect(await categoriesOf(t, p1.id)).toEqual([]);
    expect(await categoriesOf(t, p2.id)).toEqual([c.id]);
  });

  it("over a cap, on either end, it is 409 and nothing changes, removals included", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("over");
    const [c1, c2, c3, c4] = [await category("o1"), await category("o2"), await category("o3"), await category("o4")];
    await link(t, p.id, c1.id);
    // The product may hold 2 categories: 3 targets are one too many, though c1's link would be kept.
    const own = await failed(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [c1.id, c2.id, c3.id] }, WRITE);
    expect(own).toMatchObject({
      status: 409,
      code: "CONFLICT",
      details: { code: "CARDINALITY_VIOLATION", rule: "in_category", violations: [{ side: "from", entity_id: p.id, cap: 2, live: 1 }] },
    });
    expect(await categoriesOf(t, p.id)).toEqual([c1.id]);

    // c4 holds 3 products already (its cap): re-pointing p from c1 to c4 fails and keeps c1.
    for (const sku of ["f1", "f2", "f3"]) await link(t, (await product(sku)).id, c4.id);
    const far = await failed(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [c4.id] }, WRITE);
    expect(far).toMatchObject({ status: 409, details: { code: "CARDINALITY_VIOLATION", violations: [{ side: "to", entity_id: c4.id, cap: 3, live: 3 }] } });
    expect(await categoriesOf(t, p.id)).toEqual([c1.id]);
  });

  it("refuses unknown or other tenants' targets (404) and targets of the wrong type (422), changing nothing", async () => {
    const { t, product, category } = await catalogTenant();
    const other = await catalogTenant();
    const foreign = await other.category("x");
    const p = await product("w");
    const q = await product("w2");
    const c = await category("w");
    await link(t, p.id, c.id);
    expect(await failed(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [foreign.id] }, WRITE)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      message: `Entity ${foreign.id} not found`,
    });
    expect(await failed(t, "syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [q.id] }, WRITE)).toMatchObject({
      status: 422,
      code: "UNPROCESSABLE_ENTITY",
    });
    expect(await categoriesOf(t, p.id)).toEqual([c.id]);
  });
});

describe("every entity action", () => {
  const id = "00000000-0000-4000-8000-000000000001";
  const bad: [string, unknown, string][] = [
    ["queryEntity", { typeName: "Product", limit: "ten" }, "config.limit: must be integer, got string"],
    ["queryEntity", { type_name: "Product" }, "config.type_name: is not allowed"],
    ["queryEntityGraph", { typeName: "Product", include: [{ typeName: "Category", limit: 0 }] }, "config.include[0].limit: 0 is less than 1"],
    ["upsertEntity", { typeName: "Product", data: [{ name: 5, attributes: {} }] }, "config.data[0].name: must be string, got number"],
    ["removeEntities", { ids: ["not-a-uuid"] }, "config.ids[0]: must match the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"],
    ["upsertRelationship", { ruleName: "in_category", fromEntityId: id }, "config.toEntityId: is required"],
    ["removeRelationships", { ids: [] }, "config.ids: Array has too few items (0 < 1)"],
    [
      "removeRelationships",
      { ids: [id], ruleName: "in_category", fromEntityId: id },
      "config: does not match any allowed shape (ruleName: is not allowed; fromEntityId: is not allowed | ids: is not allowed)",
    ],
    [
      "syncRelationships",
      { ruleId: id, ruleName: "in_category", entityId: id, targetIds: [] },
      "config: does not match any allowed shape (ruleName: is not allowed | ruleId: is not allowed)",
    ],
    ["syncRelationships", { ruleName: "in_category", entityId: id, targetIds: [id], side: "up" }, 'config.side: must be one of ["from","to"]'],
  ];

  it("refuses a bad config with the path of the bad field (422 VALIDATION_FAILED)", async () => {
    const { t } = await catalogTenant();
    for (const [name, config, line] of bad) {
      // Wrapped in $literal, so the save leaves it to the run: a literal config the schema refuses is refused at save.
      const error = await failed(t, name, { $literal: config }, ["entity:read", "entity:update", "entity:delete"]);
      expect([name, error.status, error.code], JSON.stringify(error)).toEqual([name, 422, "VALIDATION_FAILED"]);
      expect(error.details.errors, `${name}: ${JSON.stringify(error.details.errors)}`).toContain(line);
    }
  });

  it("is refused (403 FORBIDDEN) when the run's policy lacks the route's permission, and writes nothing", async () => {
    const { t, product, category } = await catalogTenant();
    const p = await product("f");
    const c = await category("f");
    const cases: [string, unknown, string, string[]][] = [
      ["queryEntity", { typeName: "Product" }, "entity:read", ["entity:update"]],
      ["queryEntityGraph", { typeName: "Product" }, "entity:read", ["entity:update"]],
      // An upsert may create: entity:create is checked first, as upsertEntity declares it.
      ["upsertEntity", { typeName: "Product", data: [{ name: "n", attributes: { sku: "new", title: "t" } }] }, "entity:create", READ],
      ["removeEntities", { ids: [p.id] }, "entity:delete", UPSERT],
      ["upsertRelationship", { ruleName: "in_category", fromEntityId: p.id, toEntityId: c.id }, "entity:update", READ],
      ["removeRelationships", { ruleName: "in_category", fromEntityId: p.id }, "entity:update", READ],
      ["syncRelationships", { ruleName: "in_category", entityId: p.id, targetIds: [c.id] }, "entity:update", READ],
    ];
    for (const [name, config, permission, granted] of cases) {
      const error = await failed(t, name, config, granted);
      expect([name, error]).toEqual([
        name,
        {
          status: 403,
          code: "FORBIDDEN",
          message: `The run's policy does not allow ${permission}`,
          details: { resource: "entity", action: permission.split(":")[1] },
        },
      ]);
    }
    expect((await getEntity(t, p.id)).status).toBe(200);
    expect(await categoriesOf(t, p.id)).toEqual([]);
    expect((await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Product" } })).json.data.map((e: any) => e.id)).toEqual([p.id]);
  });
});
