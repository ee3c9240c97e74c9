// Rekeys racing onto one key: each loser of the race merges
// into the entity that got there first, or answers 409 when merging is off.
// Never a 500, and the end state is the one some serial order gives.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createProductType, productSchema } from "../support/entities";

const RACERS = 8;

async function racers(auth: string) {
  await createProductType(auth);
  return Promise.all(Array.from({ length: RACERS }, (_, i) => createEntity(auth, "Product", `P${i}`, { sku: `OWN-${i}`, title: `p${i}` })));
}

/** Live holders of `key`, soft-deleted racers and the merged events, straight from the tables. */
async function endState(tenantId: string, ids: string[], key: string) {
  const live = await systemQuery<{ id: string }>("SELECT id FROM entities WHERE tenant_id = $1 AND identifier_key = $2 AND deleted_at IS NULL", [
    tenantId,
    key,
  ]);
  const deleted = await systemQuery<{ id: string }>("SELECT id FROM entities WHERE id = ANY($1::uuid[]) AND deleted_at IS NOT NULL", [ids]);
  const merged = await systemQuery<{ entity_id: string; merged: string }>(
    "SELECT entity_id, payload->>'merged_entity_id' AS merged FROM events WHERE tenant_id = $1 AND action = 'merged' ORDER BY created_at",
    [tenantId],
  );
  return { live: live.map((r) => r.id), deleted: deleted.map((r) => r.id).sort(), merged };
}

describe("concurrent rekeys onto one key", () => {
  it(`merges ${RACERS} concurrent PATCHes into one survivor, a merged event for each absorbed entity`, async () => {
    const { auth, tenantId } = await createTenant();
    const entities = await racers(auth);
    const ids = entities.map((e) => e.id);
    const responses = await Promise.all(
      entities.map((e) => call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { sku: "SAME" } } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(RACERS).fill(200));
    const { live, deleted, merged } = await endState(tenantId, ids, "SAME");
    expect(live).toHaveLength(1);
    expect(deleted).toEqual(ids.filter((id) => id !== live[0]).sort());
    // A chain: each merge absorbed the previous holder, and the last survivor absorbed the one before it.
    expect(merged).toHaveLength(RACERS - 1);
    expect(merged.map((m) => m.merged).sort()).toEqual(deleted);
    expect(merged[merged.length - 1].entity_id).toBe(live[0]);
  });

  it(`answers 409 to all but one of ${RACERS} concurrent PUTs with merge_on_conflict false`, async () => {
    const { auth, tenantId } = await createTenant();
    const entities = await racers(auth);
    const responses = await Promise.all(
      entities.map((e) => call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { sku: "SAME", title: "t" }, merge_on_conflict: false } })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(RACERS - 1).fill(409)]);
    for (const r of responses.filter((r) => r.status === 409)) expect(expectError(r, 409, "CONFLICT").details.identifier_key).toBe("SAME");
    const { live, deleted, merged } = await endState(
      tenantId,
      entities.map((e) => e.id),
      "SAME",
    );
    expect(live).toEqual([responses.find((r) => r.status === 200)!.json.data.id]);
    expect(deleted).toEqual([]);
    expect(merged).toEqual([]);
  });

  it(`merges ${RACERS} concurrent upserts by id onto one key`, async () => {
    const { auth, tenantId } = await createTenant();
    const entities = await racers(auth);
    const ids = entities.map((e) => e.id);
    const responses = await Promise.all(
      entities.map((e) =>
        call("POST", "/entity/entities/upsert", {
          auth,
          body: { type_name: "Product", data: [{ id: e.id, name: e.name, attributes: { sku: "SAME", title: "t" } }] },
        }),
      ),
    );
    expect(responses.map((r) => [r.status, r.json?.data?.updated])).toEqual(Array(RACERS).fill([200, 1]));
    const { live, deleted, merged } = await endState(tenantId, ids, "SAME");
    expect(live).toHaveLength(1);
    expect(deleted).toEqual(ids.filter((id) => id !== live[0]).sort());
    expect(merged).toHaveLength(RACERS - 1);
    expect(merged.map((m) => m.merged).sort()).toEqual(deleted);
  });

  it("merges a rekey that races a create of the same key", async () => {
    const { auth, tenantId } = await createTenant();
    const entities = await racers(auth);
    const responses = await Promise.all([
      ...entities.map((e) => call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { sku: "RACE" } } })),
      call("POST", "/entity/entities", { auth, body: { type_name: "Product", name: "new", attributes: { sku: "RACE", title: "n" } } }),
    ]);
    const created = responses.pop()!;
    expect(responses.map((r) => r.status)).toEqual(Array(RACERS).fill(200));
    // The create either came first (and was absorbed) or found the key taken.
    expect([201, 409]).toContain(created.status);
    const { live, merged } = await endState(tenantId, [], "RACE");
    expect(live).toHaveLength(1);
    expect(merged).toHaveLength(created.status === 201 ? RACERS : RACERS - 1);
  });
});

describe("concurrent entity type writes across tenants", () => {
  it("builds every type's indexes when types are created at once in two tenants (concurrent index builds on one table would deadlock)", async () => {
    const tenants = await Promise.all([createTenant(), createTenant()]);
    const indexed = {
      indexed_attributes: [
        { path: ["price"], type: "numeric", sortable: true },
        { path: ["region"], type: "text" },
      ],
    };
    const created = await Promise.all(
      tenants.flatMap((t) =>
        [0, 1, 2].map((i) =>
          call("POST", "/entity/entity-types", {
            auth: t.auth,
            body: { status: "active", name: `Racer${i}`, schema: productSchema, config: { identifier_key: ["sku"], ...indexed } },
          }),
        ),
      ),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const prefixes = created.map((r) => `et_${String(r.json.data.id).replace(/-/g, "")}_`);
    const built = await systemQuery<{ name: string; valid: boolean }>(
      "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE ANY($1::text[])",
      [prefixes.map((p) => `${p}%`)],
    );
    for (const prefix of prefixes) expect(built.filter((b) => b.name.startsWith(prefix) && b.valid).length, prefix).toBeGreaterThanOrEqual(2);
  });
});
