// Shared rows as the receiving tenant sees them: read-only, marked
// `source_type: "shared"`, reachable by the owner's type name, shadowed by a
// type of its own with the same name, gone at the next request after
// revocation; and an unshared row of the owner stays 404 on every verb.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { attachArtifact, createRule, expectNotFound, ids, link, policyOnRoleToken, share, snapshot, upsertRows } from "./fixture";

const loose = { type: "object", required: ["code"], properties: { code: { type: "string" } } };

/** Owner A: Products p1, p2 (the shared type) made_by Makers m1, m2 (unshared type, m1 shared as one entity), and a Ledger l1 (never shared). */
interface Pair {
  a: TenantCreds;
  b: TenantCreds;
  product: { p1: string; p2: string };
  maker: { m1: string; m2: string };
  ledger: string;
  shares: { products: string; m1: string };
}

async function pair(): Promise<Pair> {
  const [a, b] = await Promise.all([createTenant(), createTenant()]);
  const product = await createType(a.auth, {
    name: "Product",
    schema: loose,
    config: { identifier_key: ["code"], indexed_attributes: [{ path: ["code"], type: "text" }] },
  });
  await createType(a.auth, { name: "Maker", schema: loose, config: { identifier_key: ["code"] } });
  await createType(a.auth, { name: "Ledger", schema: loose, config: { identifier_key: ["code"] } });
  await createRule(a.auth, "made_by", "Product", "Maker");
  await createRule(a.auth, "booked_in", "Product", "Ledger");
  const [p1, p2] = await upsertRows(a.auth, "Product", [
    { name: "P1", attributes: { code: "p1" } },
    { name: "P2", attributes: { code: "p2" } },
  ]);
  const [m1, m2] = await upsertRows(a.auth, "Maker", [
    { name: "M1", attributes: { code: "m1" } },
    { name: "M2", attributes: { code: "m2" } },
  ]);
  const [ledger] = await upsertRows(a.auth, "Ledger", [{ name: "L1", attributes: { code: "l1" } }]);
  await link(a.auth, "made_by", p1, m1);
  await link(a.auth, "made_by", p1, m2);
  await link(a.auth, "booked_in", p1, ledger);
  const products = (await share(a, "entity_type", product.id, b)).id;
  const m1Share = (await share(a, "entity", m1, b)).id;
  return { a, b, product: { p1, p2 }, maker: { m1, m2 }, ledger, shares: { products, m1: m1Share } };
}

const query = (auth: string, body: Record<string, unknown>) => call("POST", "/entity/query", { auth, body: { limit: 1000, ...body } });

describe("rows shared with another tenant", () => {
  let s: Pair;
  beforeAll(async () => {
    s = await pair();
  });

  it("GET by id: a shared row 200 with source_type shared; the owner sees its own row without source_type", async () => {
    for (const id of [s.product.p1, s.product.p2, s.maker.m1]) {
      const res = await call("GET", `/entity/entities/${id}`, { auth: s.b.auth });
      expect(res.status, res.text).toBe(200);
      expect(res.json.data).toMatchObject({ id, source_type: "shared" });
    }
    const own = await call("GET", `/entity/entities/${s.product.p1}`, { auth: s.a.auth });
    expect(own.status).toBe(200);
    expect(own.json.data).not.toHaveProperty("source_type");
  });

  it("list and query by the owner's type name: every row of a shared type, only the shared row of an entity share", async () => {
    const list = await call("GET", "/entity/entities?type_name=Product", { auth: s.b.auth });
    expect(list.status, list.text).toBe(200);
    expect(ids(list.json.data)).toEqual([s.product.p1, s.product.p2].sort());
    expect(list.json.data.map((e: any) => e.source_type)).toEqual(["shared", "shared"]);
    const products = await query(s.b.auth, { type_name: "Product" });
    expect(products.status, products.text).toBe(200);
    expect(ids(products.json.data)).toEqual([s.product.p1, s.product.p2].sort());
    const filtered = await query(s.b.auth, { type_name: "Product", filter: { operator: "eq", path: ["attributes", "code"], value: "p2" } });
    expect(ids(filtered.json.data)).toEqual([s.product.p2]);
    const makers = await query(s.b.auth, { type_name: "Maker" });
    expect(makers.status, makers.text).toBe(200);
    expect(makers.json.data.map((e: any) => [e.id, e.source_type])).toEqual([[s.maker.m1, "shared"]]);
  });

  it("includes and query-graph from a shared row reach only related rows that are shared too", async () => {
    const included = await query(s.b.auth, { type_name: "Product", include: ["Maker"] });
    expect(included.status, included.text).toBe(200);
    const p1 = included.json.data.find((e: any) => e.id === s.product.p1);
    expect(p1.relationships.map((r: any) => [r.rule.name, r.entity.id, r.direction, r.entity.source_type])).toEqual([["made_by", s.maker.m1, "to", "shared"]]);
    const graph = await call("POST", "/entity/query-graph", { auth: s.b.auth, body: { type_name: "Product", include: [{ type_name: "Maker" }] } });
    expect(graph.status, graph.text).toBe(200);
    expect(Object.keys(graph.json.data.nodes).sort()).toEqual([s.product.p1, s.product.p2, s.maker.m1].sort());
    expect(Object.values(graph.json.data.nodes).map((n: any) => n.source_type)).toEqual(["shared", "shared", "shared"]);
    expect(graph.json.data.edges.map((e: any) => [e.from_id, e.to_id])).toEqual([[s.product.p1, s.maker.m1]]);
    for (const f of [
      { operator: "exists", path: ["relationships", "Maker"] },
      { operator: "eq", path: ["relationships", "rule", "name"], value: "booked_in" },
    ]) {
      const res = await query(s.b.auth, { type_name: "Product", filter: f });
      expect(ids(res.json.data), JSON.stringify(f)).toEqual(f.operator === "exists" ? [s.product.p1] : []);
    }
  });

  it("an unshared row of the owner is 404 on every verb, and nothing changes", async () => {
    const before = await snapshot(s.a.tenantId);
    const id = s.ledger;
    const answers = {
      get: await call("GET", `/entity/entities/${id}`, { auth: s.b.auth }),
      getUnsharedMaker: await call("GET", `/entity/entities/${s.maker.m2}`, { auth: s.b.auth }),
      put: await call("PUT", `/entity/entities/${id}`, { auth: s.b.auth, body: { attributes: { code: "x" } } }),
      patch: await call("PATCH", `/entity/entities/${id}/attributes`, { auth: s.b.auth, body: { attributes: { code: "x" } } }),
      delete: await call("DELETE", `/entity/entities/${id}`, { auth: s.b.auth }),
      artifacts: await call("GET", `/entity/entities/${id}/artifacts`, { auth: s.b.auth }),
      upload: await call("POST", `/entity/entities/${id}/artifacts/upload-url`, {
        auth: s.b.auth,
        body: { artifact_type: "doc", filename: "x.txt", content_type: "text/plain" },
      }),
      queryType: await query(s.b.auth, { type_name: "Ledger" }),
    };
    const codes = Object.fromEntries(Object.entries(answers).map(([verb, res]) => [verb, `${res.status} ${res.json?.error?.code}`]));
    expect(codes).toEqual(Object.fromEntries(Object.keys(answers).map((verb) => [verb, "404 NOT_FOUND"])));
    const bulk = await call("POST", "/entity/entities/bulk-delete", { auth: s.b.auth, body: { ids: [id] } });
    expect(bulk.json.data).toEqual({ deleted: [], not_found: [id] });
    expect(await snapshot(s.a.tenantId)).toEqual(before);
  });

  it("a third tenant sees none of it", async () => {
    const c = await createTenant();
    for (const id of [s.product.p1, s.maker.m1]) expectNotFound(await call("GET", `/entity/entities/${id}`, { auth: c.auth }));
    expectNotFound(await query(c.auth, { type_name: "Product" }));
  });
});

describe("shared rows are read-only", () => {
  it("PUT, PATCH, DELETE, bulk delete, artifact upload and artifact delete on a shared row: 403 FORBIDDEN, nothing changed", async () => {
    const s = await pair();
    await attachArtifact(s.a.auth, s.product.p1);
    const id = s.product.p1;
    const before = await snapshot(s.a.tenantId);
    const [artifact] = (await call("GET", `/entity/entities/${id}/artifacts`, { auth: s.a.auth })).json.data;
    const answers = {
      put: await call("PUT", `/entity/entities/${id}`, { auth: s.b.auth, body: { name: "Mine", attributes: { code: "p1" } } }),
      patch: await call("PATCH", `/entity/entities/${id}/attributes`, { auth: s.b.auth, body: { attributes: { note: "x" } } }),
      delete: await call("DELETE", `/entity/entities/${id}`, { auth: s.b.auth }),
      upload: await call("POST", `/entity/entities/${id}/artifacts/upload-url`, {
        auth: s.b.auth,
        body: { artifact_type: "doc", filename: "x.txt", content_type: "text/plain" },
      }),
      artifactDelete: await call("DELETE", `/entity/entities/${id}/artifacts/${artifact.id}`, { auth: s.b.auth }),
      bulkDelete: await call("POST", "/entity/entities/bulk-delete", { auth: s.b.auth, body: { ids: [id] } }),
    };
    const codes = Object.fromEntries(Object.entries(answers).map(([verb, res]) => [verb, `${res.status} ${res.json?.error?.code}`]));
    expect(codes).toEqual(Object.fromEntries(Object.keys(answers).map((verb) => [verb, "403 FORBIDDEN"])));
    expect(await snapshot(s.a.tenantId)).toEqual(before);
  });
});

describe("the receiving tenant's own grants", () => {
  it("apply on top of shares: a token narrowed to Product reads shared Products and no other shared type", async () => {
    const s = await pair();
    const { auth } = await policyOnRoleToken(s.b.auth, [{ resource: "entity", actions: ["read"], resource_name: "Product" }]);
    const products = await query(auth, { type_name: "Product" });
    expect(products.status, products.text).toBe(200);
    expect(ids(products.json.data)).toEqual([s.product.p1, s.product.p2].sort());
    expect((await call("GET", `/entity/entities/${s.product.p1}`, { auth })).json.data.source_type).toBe("shared");
    expectNotFound(await call("GET", `/entity/entities/${s.maker.m1}`, { auth }));
    expect((await query(auth, { type_name: "Maker" })).json.error.code).toBe("FORBIDDEN");
    const included = await query(auth, { type_name: "Product", include: ["Maker"] });
    expect(included.json.data.flatMap((e: any) => e.relationships)).toEqual([]);
  });
});

describe("a type of the receiving tenant with the same name", () => {
  it("shadows the shared one in lists and queries by name", async () => {
    const s = await pair();
    await createType(s.b.auth, { name: "Product", schema: loose, config: { identifier_key: ["code"] } });
    const [own] = await upsertRows(s.b.auth, "Product", [{ name: "Own", attributes: { code: "own" } }]);
    for (const res of [await call("GET", "/entity/entities?type_name=Product", { auth: s.b.auth }), await query(s.b.auth, { type_name: "Product" })]) {
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.map((e: any) => [e.id, e.source_type ?? null])).toEqual([[own, null]]);
    }
    // The owner still sees its own rows only.
    expect(ids((await query(s.a.auth, { type_name: "Product" })).json.data)).toEqual([s.product.p1, s.product.p2].sort());
  });
});

describe("revocation", () => {
  it("DELETE /access/shares/{id}: the next request of the target no longer sees the rows", async () => {
    const s = await pair();
    // Warm every cache the target's requests go through.
    for (let i = 0; i < 3; i++) expect((await call("GET", `/entity/entities/${s.product.p1}`, { auth: s.b.auth })).status).toBe(200);
    const revoked = await call("DELETE", `/access/shares/${s.shares.products}`, { auth: s.a.auth });
    expect(revoked.status, revoked.text).toBe(200);
    expectNotFound(await call("GET", `/entity/entities/${s.product.p1}`, { auth: s.b.auth }));
    const res = await query(s.b.auth, { type_name: "Product" });
    // The type is gone from the target's view: unknown (404) or empty, never a row.
    if (res.status === 200) expect(res.json.data).toEqual([]);
    else expectNotFound(res);

    expect((await call("GET", `/entity/entities/${s.maker.m1}`, { auth: s.b.auth })).status).toBe(200);
    expect((await call("DELETE", `/access/shares/${s.shares.m1}`, { auth: s.a.auth })).status).toBe(200);
    expectNotFound(await call("GET", `/entity/entities/${s.maker.m1}`, { auth: s.b.auth }));
    const makers = await query(s.b.auth, { type_name: "Maker" });
    if (makers.status === 200) expect(makers.json.data).toEqual([]);
    else expectNotFound(makers);
    // The owner's rows are untouched.
    expect((await call("GET", `/entity/entities/${s.product.p1}`, { auth: s.a.auth })).status).toBe(200);
  });

  it("another tenant cannot revoke the share: 404, and it stays in force", async () => {
    const s = await pair();
    expectNotFound(await call("DELETE", `/access/shares/${s.shares.products}`, { auth: s.b.auth }));
    expect((await call("GET", `/entity/entities/${s.product.p1}`, { auth: s.b.auth })).status).toBe(200);
  });
});

describe("a shared schema version", () => {
  it("is readable by id in the target tenant, marked shared, never by name; gone at the next request after revocation", async () => {
    const [a, b] = await Promise.all([createTenant(), createTenant()]);
    const registered = await call("POST", "/schema/schemas", {
      auth: a.auth,
      body: { name: "address", schema: { type: "object", properties: { zip: { type: "string" } } } },
    });
    expect(registered.status, registered.text).toBe(201);
    const id = registered.json.data.id;
    expectNotFound(await call("GET", `/schema/schemas/${id}`, { auth: b.auth }));

    const made = await call("POST", "/access/shares", { auth: a.auth, body: { resource_type: "schema", resource_id: id, target_tenant_id: b.tenantId } });
    expect(made.status, made.text).toBe(201);
    const seen = await call("GET", `/schema/schemas/${id}`, { auth: b.auth });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.json.data).toEqual({ ...registered.json.data, source_type: "shared" });
    expectNotFound(await call("GET", "/schema/schemas/address", { auth: b.auth }));
    expect((await call("GET", `/schema/schemas/${id}`, { auth: a.auth })).json.data.source_type).toBeUndefined();

    expect((await call("DELETE", `/access/shares/${made.json.data.id}`, { auth: a.auth })).status).toBe(200);
    expectNotFound(await call("GET", `/schema/schemas/${id}`, { auth: b.auth }));
  });
});
