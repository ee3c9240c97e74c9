// The small upsert in one tenant batch (upsert/service.ts upsertEntities): up
// to 1000 rows, all matched by key, no inline relationships, written by one
// statement conditioned on the type the isolate holds being the type as it is
// now. Each check goes through the gateway, as a caller sees it.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { roleToken } from "../access/fixture";
import { createProductType, createType } from "../support/entities";

const rows = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => ({ name: `P${from + k}`, attributes: { sku: `S${from + k}`, title: `T${from + k}` } }));

const upsert = (auth: string, body: Record<string, unknown>, typeName = "Product") =>
  call("POST", "/entity/entities/upsert", { auth, body: { type_name: typeName, ...body } });

const count = async (table: "entities" | "events", tenantId: string) =>
  Number((await systemQuery(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenantId]))[0].n);

const strictSchema = (required: string[]) => ({
  type: "object",
  required,
  properties: { sku: { type: "string" }, color: { type: "string" }, size: { type: "string" } },
});

describe("a small upsert in one batch", () => {
  it("on_conflict raise with one key taken is 409 naming it, and writes no row and no event of the other nine", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    // The first upsert caches the type in the isolate.
    expect((await upsert(t.auth, { data: rows(1, 3) })).status).toBe(200);
    const before = { entities: await count("entities", t.tenantId), events: await count("events", t.tenantId) };
    const refused = expectError(await upsert(t.auth, { data: rows(10), on_conflict: "raise" }), 409, "CONFLICT");
    expect(refused.message).toBe("Rows match existing entities and on_conflict is raise; nothing was written");
    expect(refused.details.identifier_keys).toEqual(["S3"]);
    expect(await count("entities", t.tenantId)).toBe(before.entities);
    expect(await count("events", t.tenantId)).toBe(before.events);
    const free = await upsert(t.auth, { data: rows(3, 20), on_conflict: "raise" });
    expect(free.json.data).toMatchObject({ created: 3, updated: 0, unchanged: 0, ignored: 0, errors: [] });
  });

  it("a type changed since the isolate cached it is read again: a looser schema accepts, a stricter one refuses", async () => {
    const t = await createTenant();
    const type = await createType(t.auth, { name: "Strict", schema: strictSchema(["sku", "color"]), config: { identifier_key: ["sku"] } });
    expect((await upsert(t.auth, { data: [{ name: "a", attributes: { sku: "A", color: "red" } }] }, "Strict")).status).toBe(200);
    expectError(await upsert(t.auth, { data: [{ name: "b", attributes: { sku: "B" } }] }, "Strict"), 422, "VALIDATION_FAILED");
    const loosened = await call("PATCH", `/entity/entity-types/${type.id}`, { auth: t.auth, body: { schema: strictSchema(["sku"]) } });
    expect(loosened.status, loosened.text).toBe(200);
    const accepted = await upsert(t.auth, { data: [{ name: "b", attributes: { sku: "B" } }] }, "Strict");
    expect(accepted.json.data).toMatchObject({ created: 1, updated: 0 });
    // The cache now holds the loose schema; the type turns strict again.
    const tightened = await call("PATCH", `/entity/entity-types/${type.id}`, { auth: t.auth, body: { schema: strictSchema(["sku", "color", "size"]) } });
    expect(tightened.status, tightened.text).toBe(200);
    const refused = expectError(await upsert(t.auth, { data: [{ name: "c", attributes: { sku: "C", color: "blue" } }] }, "Strict"), 422, "VALIDATION_FAILED");
    expect(JSON.stringify(refused)).toContain("size");
    // A by-id row takes the batches of writeRows, by the type as it is now too.
    const byId = await upsert(t.auth, { data: [{ id: accepted.json.data.ids[0], name: "b", attributes: { sku: "B", color: "red" } }] }, "Strict");
    expectError(byId, 422, "VALIDATION_FAILED");
    expect(await count("entities", t.tenantId)).toBe(2);
  });

  it("upserts racing for one key end with one row, every answer naming it", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => upsert(t.auth, { data: [...rows(2, 10 * (i + 1)), { name: "R", attributes: { sku: "R-1", title: `t${i}` } }] })),
    );
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const [held] = await systemQuery("SELECT id FROM entities WHERE tenant_id = $1 AND identifier_key = 'R-1' AND deleted_at IS NULL", [t.tenantId]);
    expect(answers.map((r) => r.json.data.ids[2])).toEqual(Array(6).fill(held.id));
    expect(answers.reduce((n, r) => n + r.json.data.created, 0)).toBe(13);
    expect(await count("entities", t.tenantId)).toBe(13);
  });

  it("raise racing for one key: one upsert writes, every other is 409 and writes none of its rows", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        upsert(t.auth, { data: [...rows(2, 10 * (i + 1)), { name: "R", attributes: { sku: "R-1", title: "R" } }], on_conflict: "raise" }),
      ),
    );
    expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([200, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status !== 200)) expectError(r, 409, "CONFLICT");
    expect(await count("entities", t.tenantId)).toBe(3);
  });

  it("a cached caller whose token was revoked is 401 and writes nothing", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const { tokenId, auth } = await roleToken(t.auth, ["entity:create", "entity:update", "entity:read"]);
    for (let i = 0; i < 3; i++) expect((await upsert(auth, { data: rows(1, i) })).status).toBe(200);
    expect((await call("DELETE", `/access/api-tokens/${tokenId}`, { auth: t.auth })).status).toBe(200);
    const events = await count("events", t.tenantId);
    expectError(await upsert(auth, { data: rows(5, 50) }), 401, "UNAUTHORIZED");
    expect(await count("entities", t.tenantId)).toBe(3);
    expect(await count("events", t.tenantId)).toBe(events);
  });
});
