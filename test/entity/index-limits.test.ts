// Values too large for a btree entry (Postgres refuses index rows over about
// 2,700 bytes): a key or an indexed attribute over MAX_INDEXED_BYTES is a
// 422 naming its path on every write path, with nothing written.
import { describe, expect, it } from "vitest";
import { MAX_INDEXED_BYTES, indexedValueBytes } from "../../src/entity/indexed-attributes";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createType } from "../support/entities";

const HUGE = "x".repeat(500 * 1024);
/** Pseudo-random text from `alphabet`: it does not compress, so Postgres cannot squeeze it into an index row. */
function noise(length: number, alphabet: string): string {
  let x = 12345;
  return Array.from({ length }, () => alphabet[((x = (x * 1103515245 + 12345) & 0x7fffffff) >>> 8) % alphabet.length]).join("");
}
const INCOMPRESSIBLE = noise(3000, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
const AT_LIMIT = "é".repeat(MAX_INDEXED_BYTES / 2);

async function setup() {
  const creds = await createTenant();
  await createType(creds.auth, {
    name: "Item",
    schema: { type: "object" },
    config: {
      identifier_key: ["sku"],
      indexed_attributes: [
        { path: ["title"], type: "text", sortable: true },
        { path: ["price"], type: "numeric" },
        { path: ["tags"], type: "text_array" },
      ],
    },
  });
  await createType(creds.auth, { name: "Pair", schema: { type: "object" }, config: { identifier_key: ["a", "b"] } });
  return creds;
}

async function liveCount(tenantId: string) {
  const [row] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL", [tenantId]);
  const [events] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE tenant_id = $1", [tenantId]);
  return { entities: row.n, events: events.n };
}

function refused(res: { status: number; json: any }, line: string) {
  expect(expectError(res, 422, "VALIDATION_FAILED").details.validation_errors).toEqual([line]);
}

describe("indexed value sizes", () => {
  it("measures UTF-8 bytes of the text Postgres indexes", () => {
    expect(indexedValueBytes("abc")).toBe(3);
    expect(indexedValueBytes("é€😀")).toBe(2 + 3 + 4);
    expect(indexedValueBytes(12.5)).toBe(0);
    expect(indexedValueBytes(null)).toBe(0);
    // Objects count by their JSON text with a space after each separator, as jsonb prints it.
    expect(indexedValueBytes({ a: [1, 2] })).toBe('{"a": [1, 2]}'.length);
  });

  it("refuses a huge key or indexed value on create, with nothing written", async () => {
    const { auth, tenantId } = await setup();
    const post = (type_name: string, attributes: Record<string, unknown>) =>
      call("POST", "/entity/entities", { auth, body: { type_name, name: "n", attributes } });
    refused(
      await post("Item", { sku: HUGE }),
      `attributes.sku: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed as the identifier key (got ${HUGE.length})`,
    );
    refused(await post("Item", { sku: "k", title: INCOMPRESSIBLE }), `attributes.title: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed (got 3000)`);
    refused(
      await post("Item", { sku: "k", title: { text: HUGE } }),
      `attributes.title: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed (got ${HUGE.length + 12})`,
    );
    refused(
      await post("Item", { sku: "k", price: `1${noise(5000, "0123456789")}` }),
      `attributes.price: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed (got 5001)`,
    );
    // A composite key names its longest part and the key's total size.
    refused(
      await post("Pair", { a: "x", b: INCOMPRESSIBLE }),
      `attributes.b: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed as the identifier key (got ${3000 + 4})`,
    );
    expect(await liveCount(tenantId)).toEqual({ entities: 0, events: 0 });
  });

  it("accepts values at the limit, and text_array elements of any size (their index hashes long values)", async () => {
    const { auth } = await setup();
    const e = await createEntity(auth, "Item", "n", { sku: AT_LIMIT, title: AT_LIMIT, tags: [HUGE] });
    expect(e.identifier_key).toBe(AT_LIMIT);
  });

  it("refuses them on PUT and PATCH, leaving the entity as it was", async () => {
    const { auth, tenantId } = await setup();
    const e = await createEntity(auth, "Item", "n", { sku: "k1", title: "t" });
    refused(
      await call("PUT", `/entity/entities/${e.id}`, { auth, body: { attributes: { sku: HUGE } } }),
      `attributes.sku: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed as the identifier key (got ${HUGE.length})`,
    );
    refused(
      await call("PATCH", `/entity/entities/${e.id}/attributes`, { auth, body: { attributes: { title: INCOMPRESSIBLE } } }),
      `attributes.title: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed (got 3000)`,
    );
    const now = await call("GET", `/entity/entities/${e.id}`, { auth });
    expect(now.json.data.attributes).toEqual({ sku: "k1", title: "t" });
    expect(await liveCount(tenantId)).toEqual({ entities: 1, events: 1 });
  });

  it("refuses them in upsert and CSV import, naming the row, with nothing written", async () => {
    const { auth, tenantId } = await setup();
    const upsert = await call("POST", "/entity/entities/upsert", {
      auth,
      body: {
        type_name: "Item",
        data: [
          { name: "ok", attributes: { sku: "fine" } },
          { name: "bad", attributes: { sku: "k2", title: INCOMPRESSIBLE } },
        ],
      },
    });
    refused(upsert, `data[1].attributes.title: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed (got 3000)`);
    const config = encodeURIComponent(JSON.stringify({ entity_type_name: "Item" }));
    const csv = `name,sku\nok,fine\nbad,${INCOMPRESSIBLE}\n`;
    const imported = await call("POST", "/entity/entities/import", { auth, rawBody: csv, headers: { "Content-Type": "text/csv", "X-Import-Config": config } });
    refused(imported, `line 3, column "sku": must be at most ${MAX_INDEXED_BYTES} bytes to be indexed as the identifier key (got 3000)`);
    expect(await liveCount(tenantId)).toEqual({ entities: 0, events: 0 });
  });
});
