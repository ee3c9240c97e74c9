// The one cardinality module links, upsert and merge share: one statement
// over many (rule, side, entity) ends, one violation shape, oldest retired first.
import { describe, expect, it } from "vitest";
import { tenantDb, type Sql } from "../../src/db/client";
import { overCap, retireOldest, type RuleEnd } from "../../src/entity/relationships/cardinality";
import { call, createTenant, expectError, systemQuery, withSystemDb } from "../support/api";
import { createEntity, createType } from "../support/entities";

const loose = { type: "object" };

async function rule(auth: string, body: Record<string, unknown>) {
  const res = await call("POST", "/entity/relationship-rules", { auth, body: { from_entity_type_name: "Person", to_entity_type_name: "Car", ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string };
}

async function linkOk(auth: string, name: string, from: string, to: string) {
  const res = await call("POST", "/entity/relationships", { auth, body: { rule_name: name, from_entity_id: from, to_entity_id: to } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string };
}

async function liveTargets(ruleId: string, fromId: string) {
  const rows = await systemQuery<{ to_entity_id: string }>(
    "SELECT to_entity_id FROM relationships WHERE rule_id = $1 AND from_entity_id = $2 AND deleted_at IS NULL ORDER BY created_at, id",
    [ruleId, fromId],
  );
  return rows.map((r) => r.to_entity_id);
}

/** Person and Car; `drives` caps a person at 2 cars, `owned-by` a car at 1 person, `knows` is uncapped. */
async function world() {
  const t = await createTenant();
  await createType(t.auth, { name: "Person", schema: loose, config: { identifier_key: ["pid"] } });
  await createType(t.auth, { name: "Car", schema: loose, config: { identifier_key: ["vin"] } });
  const drives = await rule(t.auth, { name: "drives", max_to_cardinality: 2 });
  const ownedBy = await rule(t.auth, { name: "owned-by", max_from_cardinality: 1 });
  const knows = await rule(t.auth, { name: "knows" });
  const people = [];
  for (const pid of ["p1", "p2", "p3"]) people.push(await createEntity(t.auth, "Person", pid, { pid }));
  const cars = [];
  for (const vin of ["c1", "c2", "c3"]) cars.push(await createEntity(t.auth, "Car", vin, { vin }));
  return { ...t, drives, ownedBy, knows, people, cars };
}

/** Runs `fn` in one of the tenant's transactions, as the link writers do. */
function inTenant<T>(tenantId: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return withSystemDb((db) => tenantDb(db, tenantId).tx(fn));
}

describe("overCap", () => {
  it("reports, in one statement over many ends, each end without room once, in the order given; uncapped ends never", async () => {
    const w = await world();
    const [p1, p2] = w.people;
    const [c1, c2, c3] = w.cars;
    await linkOk(w.auth, "drives", p1.id, c1.id);
    await linkOk(w.auth, "drives", p1.id, c2.id);
    await linkOk(w.auth, "drives", p2.id, c1.id);
    await linkOk(w.auth, "owned-by", p1.id, c3.id);
    await linkOk(w.auth, "knows", p1.id, c1.id);
    const ends: RuleEnd[] = [
      { ruleId: w.ownedBy.id, side: "to", entityId: c3.id },
      { ruleId: w.drives.id, side: "from", entityId: p1.id },
      { ruleId: w.drives.id, side: "from", entityId: p2.id },
      { ruleId: w.drives.id, side: "to", entityId: c1.id },
      { ruleId: w.knows.id, side: "from", entityId: p1.id },
      { ruleId: w.drives.id, side: "from", entityId: p1.id },
    ];
    // No room for one more: p1 drives 2 of 2, c3 is owned by 1 of 1; p2 (1 of 2) has room, c1's side of drives is uncapped.
    expect(await inTenant(w.tenantId, (sql) => overCap(sql, ends, 1))).toEqual([
      { ruleId: w.ownedBy.id, side: "to", entityId: c3.id, rule: "owned-by", cap: 1, live: 1 },
      { ruleId: w.drives.id, side: "from", entityId: p1.id, rule: "drives", cap: 2, live: 2 },
    ]);
    // At the cap is not over it.
    expect(await inTenant(w.tenantId, (sql) => overCap(sql, ends))).toEqual([]);
    expect(await inTenant(w.tenantId, (sql) => overCap(sql, []))).toEqual([]);
  });

  it("retireOldest retires each end's oldest links, leaving the room asked for", async () => {
    const w = await world();
    const [p1] = w.people;
    const [c1, c2, c3] = w.cars;
    for (const c of [c1, c2]) await linkOk(w.auth, "drives", p1.id, c.id);
    await inTenant(w.tenantId, async (sql) => {
      const over = await overCap(sql, [{ ruleId: w.drives.id, side: "from", entityId: p1.id }], 1);
      await retireOldest(sql, over, 1);
    });
    expect(await liveTargets(w.drives.id, p1.id)).toEqual([c2.id]);
    await linkOk(w.auth, "drives", p1.id, c3.id);
    expect(await liveTargets(w.drives.id, p1.id)).toEqual([c2.id, c3.id]);
  });
});

describe("one violation shape", () => {
  it("a refused link lists its violations with rule, side, entity_id, cap and live", async () => {
    const w = await world();
    const [p1, p2] = w.people;
    const [c1, c2, c3] = w.cars;
    await linkOk(w.auth, "drives", p1.id, c1.id);
    await linkOk(w.auth, "drives", p1.id, c2.id);
    const raised = expectError(
      await call("POST", "/entity/relationships", { auth: w.auth, body: { rule_name: "drives", from_entity_id: p1.id, to_entity_id: c3.id } }),
      409,
      "CONFLICT",
    );
    expect(raised.details).toMatchObject({
      code: "CARDINALITY_VIOLATION",
      rule: "drives",
      violations: [{ rule: "drives", side: "from", entity_id: p1.id, cap: 2, live: 2 }],
    });
    await linkOk(w.auth, "owned-by", p1.id, c3.id);
    const body = { rule_name: "owned-by", from_entity_id: p2.id, to_entity_id: c3.id, on_cardinality_violation: "ignore" };
    const ignored = expectError(await call("POST", "/entity/relationships", { auth: w.auth, body }), 422, "UNPROCESSABLE_ENTITY");
    expect(ignored.details).toMatchObject({
      code: "CARDINALITY_VIOLATION_IGNORED",
      rule: "owned-by",
      violations: [{ rule: "owned-by", side: "to", entity_id: c3.id, cap: 1, live: 1 }],
    });
  });

  it("an upsert over a cap lists the same shape, counted after its own links", async () => {
    const w = await world();
    const [c1, c2, c3] = w.cars;
    const res = await call("POST", "/entity/entities/upsert", {
      auth: w.auth,
      body: {
        type_name: "Person",
        data: [{ name: "p4", attributes: { pid: "p4" }, relationships: [c1, c2, c3].map((c) => ({ rule_name: "drives", target_entity_id: c.id })) }],
      },
    });
    const err = expectError(res, 409, "CONFLICT");
    // The row committed before its links were refused; the answer says which.
    expect(err.message).toBe("Cardinality constraint violated; 1 of 1 rows (data[0]) were already written by 1 committed batch and stay written");
    expect(err.details.violations).toEqual([{ rule: "drives", side: "from", entity_id: expect.any(String), cap: 2, live: 3 }]);
    expect(err.details.committed).toEqual({ batches: 1, rows: 1, ranges: [[0, 0]], links: 0 });
  });
});

describe("merge", () => {
  /** p1 drives c1 and c2 (the oldest), p2 drives c3; rekeying p1 to p2's key merges p2 into p1 with 3 links under a cap of 2. */
  async function overfullMerge(mode: "raise" | "trim") {
    const w = await world();
    const [p1, p2] = w.people;
    const [c1, c2, c3] = w.cars;
    await linkOk(w.auth, "drives", p1.id, c1.id);
    await linkOk(w.auth, "drives", p1.id, c2.id);
    await linkOk(w.auth, "drives", p2.id, c3.id);
    const res = await call("PUT", `/entity/entities/${p1.id}`, { auth: w.auth, body: { attributes: { pid: "p2" }, merge_cardinality: mode } });
    return { w, res, p1, cars: w.cars };
  }

  it("raise refuses the merge with the rules over their cap, and writes nothing", async () => {
    const { w, res, p1, cars } = await overfullMerge("raise");
    const err = expectError(res, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details).toMatchObject({ code: "MERGE_CARDINALITY_EXCEEDED", rules: ["drives"] });
    expect(await liveTargets(w.drives.id, p1.id)).toEqual([cars[0].id, cars[1].id]);
  });

  it("trim keeps the survivor's newest links up to the cap", async () => {
    const { w, res, p1, cars } = await overfullMerge("trim");
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(await liveTargets(w.drives.id, p1.id)).toEqual([cars[1].id, cars[2].id]);
  });
});
