// The owner path (statements run without row-level security, db/client.ts
// Database.tenantRead): it takes only statements the query compiler built,
// and what it answers stays within the tenant. Rows are checked one by one
// by the code (assertTenantRows); values and counts carry no tenant, so here
// two tenants hold the same type names and the same values, and every read
// for one must answer exactly that tenant's share.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { compiled } from "../../src/db/params";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createProductType } from "../support/entities";

let a: TenantCreds;
let b: TenantCreds;

const INDEXED = {
  indexed_attributes: [
    { path: ["region"], type: "text" },
    { path: ["price"], type: "numeric", sortable: true },
    { path: ["tags"], type: "text_array" },
  ],
};

/** Both tenants: the same type, the same shared rows, and one row of their own. */
async function seed(t: TenantCreds, own: string, extra: number) {
  await createProductType(t.auth, "Product", INDEXED);
  const shared = [
    { name: "red", attributes: { sku: "S1", title: "x", region: "eu", price: 1, tags: ["sale"] } },
    { name: "blue", attributes: { sku: "S2", title: "x", region: "us", price: 2, tags: ["new"] } },
  ];
  const mine = Array.from({ length: extra }, (_, i) => ({
    name: `${own}-${i}`,
    attributes: { sku: `${own}-${i}`, title: "x", region: own, price: 100 + i, tags: [own] },
  }));
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Product", data: [...shared, ...mine] } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}

beforeAll(async () => {
  [a, b] = await Promise.all([createTenant(), createTenant()]);
  await seed(a, "only-a", 1);
  await seed(b, "only-b", 3);
});

const distinct = (t: TenantCreds, body: Record<string, unknown>) =>
  call("POST", "/entity/query/distinct", { auth: t.auth, body: { type_name: "Product", ...body } });
const query = (t: TenantCreds, body: Record<string, unknown>) => call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Product", ...body } });

describe("owner path: values and counts stay within the tenant", () => {
  it("distinct answers only the tenant's values, by loose index scan, with a filter, and over arrays", async () => {
    for (const [t, own, price] of [
      [a, "only-a", [1, 2, 100]],
      [b, "only-b", [1, 2, 100, 101, 102]],
    ] as const) {
      expect((await distinct(t, { attribute_name: "region" })).json.data).toEqual(["eu", own, "us"]);
      expect((await distinct(t, { attribute_name: "price" })).json.data).toEqual(price);
      expect((await distinct(t, { attribute_name: "region", filter: { operator: "gte", path: ["attributes", "price"], value: 2 } })).json.data).toEqual([
        own,
        "us",
      ]);
      expect((await distinct(t, { attribute_name: "tags" })).json.data).toEqual(["new", own, "sale"]);
    }
  });

  it("counts only the tenant's rows, exact and capped, with and without distinct_on", async () => {
    for (const [t, n] of [
      [a, 3],
      [b, 5],
    ] as const) {
      for (const count_strategy of ["exact", "capped"]) {
        const res = await query(t, { include_count: true, count_strategy, limit: 1 });
        expect(res.json.count).toBe(n);
        const offset = await query(t, { page: 1, limit: 1, count_strategy });
        expect(offset.json.pagination).toEqual({ page: 1, limit: 1, total: n, total_pages: n });
      }
      const regions = await query(t, { distinct_on: { paths: [["attributes", "region"]] }, include_count: true, count_strategy: "exact" });
      expect(regions.json.count).toBe(3);
    }
  });

  it("query, query-graph and export answer only the tenant's entities", async () => {
    const names = (res: { json: { data: { name: string }[] } }) => res.json.data.map((e) => e.name).sort();
    expect(names(await query(a, { sort: [{ path: ["name"] }] }))).toEqual(["blue", "only-a-0", "red"]);
    const graph = await call("POST", "/entity/query-graph", { auth: a.auth, body: { type_name: "Product" } });
    expect(
      Object.values(graph.json.data.nodes as Record<string, { name: string }>)
        .map((e) => e.name)
        .sort(),
    ).toEqual(["blue", "only-a-0", "red"]);
    const csv = await call("POST", "/entity/entities/export", { auth: a.auth, body: { type_name: "Product", columns: ["name"], sort: [{ path: ["name"] }] } });
    expect(csv.status).toBe(200);
    expect(csv.text).toBe("name\r\nblue\r\nonly-a-0\r\nred\r\n");
  });
});

describe("owner path: only compiled statements", () => {
  it("refuses statement text that did not come from the query compiler", async () => {
    const db = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
    try {
      const refused = await db.tenantRead(a.tenantId, (reader) => reader.run("SELECT 1" as never)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TypeError);
      expect((refused as Error).message).toBe("the owner path runs only statements built by the query compiler");
      const ran = await db.tenantRead(a.tenantId, (reader) => reader.run(compiled("SELECT $1::int AS n", [7])));
      expect(ran.rows).toEqual([{ n: 7 }]);
    } finally {
      await db.close();
    }
  });
});
