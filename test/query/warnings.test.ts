// Paths and types a query names that nothing answers to: they still match
// nothing, sort as a constant or bring nothing, and the answer says so in
// `warnings`, worded alike for a type that does not exist and one the caller
// may not read.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { policyOnRoleToken } from "../access/fixture";

const productSchema = {
  type: "object",
  additionalProperties: false,
  required: ["sku"],
  properties: { sku: { type: "string" }, color: { type: "string" }, price: { type: "number" }, extra: { type: "object" } },
};

let t: TenantCreds;
/** A token reading Products and Makers only: Secret is, to it, a type that does not exist. */
let narrowed: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTenant();
  await createType(t.auth, {
    name: "Product",
    schema: productSchema,
    config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["color"], type: "text" }] },
  });
  await createType(t.auth, {
    name: "Maker",
    schema: { type: "object", additionalProperties: false, properties: { code: { type: "string" }, country: { type: "string" } } },
    config: { identifier_key: ["code"] },
  });
  await createType(t.auth, {
    name: "Secret",
    schema: { type: "object", additionalProperties: false, properties: { code: { type: "string" } } },
    config: { identifier_key: ["code"] },
  });
  for (const [name, to] of [
    ["made_by", "Maker"],
    ["kept_in", "Secret"],
  ]) {
    const rule = await call("POST", "/entity/relationship-rules", { auth: t.auth, body: { name, from_entity_type_name: "Product", to_entity_type_name: to } });
    expect(rule.status, rule.text).toBe(201);
  }
  for (const [type, code] of [
    ["Maker", "acme"],
    ["Secret", "vault"],
  ]) {
    const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: type, data: [{ name: code, attributes: { code } }] } });
    expect(res.status, res.text).toBe(200);
  }
  const links = [
    { rule_name: "made_by", target_type_name: "Maker", target_identifier: { code: "acme" } },
    { rule_name: "kept_in", target_type_name: "Secret", target_identifier: { code: "vault" } },
  ];
  const data = ["p1", "p2", "p3"].map((sku, i) => ({
    name: sku,
    attributes: { sku, color: i === 0 ? "red" : "blue", price: i },
    relationships: i === 0 ? links : undefined,
  }));
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Product", data } });
  expect(res.status, res.text).toBe(200);
  ["p1", "p2", "p3"].forEach((sku, i) => (ids[sku] = res.json.data.ids[i]));
  narrowed = (
    await policyOnRoleToken(t.auth, [
      { resource: "entity", actions: ["read"], resource_name: "Product" },
      { resource: "entity", actions: ["read"], resource_name: "Maker" },
    ])
  ).auth;
});

const query = (body: Record<string, unknown>, auth = t.auth) => call("POST", "/entity/query", { auth, body: { type_name: "Product", ...body } });
const skus = (data: { attributes: { sku: string } }[]) => data.map((e) => e.attributes.sku);
const NO_FIELD = "names no field of an entity (a path starts with name, id, created_at, updated_at, type.name, attributes or relationships)";

describe("POST /entity/query warnings", () => {
  it("leaves warnings out when every path and type is known", async () => {
    const res = await query({
      filter: {
        operator: "and",
        filters: [
          { operator: "eq", path: ["attributes", "color"], value: "red" },
          { operator: "exists", path: ["relationships", "Maker"] },
        ],
      },
      sort: [{ path: ["attributes", "price"] }],
      include: ["Maker"],
    });
    expect(res.status, res.text).toBe(200);
    expect(skus(res.json.data)).toEqual(["p1"]);
    expect(Object.keys(res.json)).toEqual(["data"]);
  });

  it("names each unknown filter path and related type at its place; those particles still match nothing", async () => {
    const res = await query({
      filter: {
        operator: "or",
        filters: [
          { operator: "eq", path: ["attributes", "color"], value: "red" },
          { operator: "eq", path: ["attributes", "colour"], value: "blue" },
          { operator: "exists", path: ["relationships", "Ghost"] },
          { operator: "eq", path: ["relationships", "Maker", "attributes", "contry"], value: "DE" },
          { operator: "eq", path: ["colour"], value: "blue" },
          { operator: "eq", path: ["attributes", "extra", "anything"], value: 1 },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(skus(res.json.data)).toEqual(["p1"]);
    expect(res.json.warnings).toEqual([
      "filter.filters[1].path: attributes.colour is not defined by the schema of Product",
      "filter.filters[2].path: no entity type Ghost the caller can read",
      "filter.filters[3].path: attributes.contry is not defined by the schema of Maker",
      `filter.filters[4].path: colour ${NO_FIELD}`,
    ]);
  });

  it("names unknown sort, distinct_on, include and include_specs paths and types", async () => {
    const res = await query({
      sort: [{ path: ["attributes", "cost"] }, { path: ["name"], direction: "desc" }],
      distinct_on: { paths: [["attributes", "size"]], sort: [{ path: ["attributes", "age"] }] },
      include_specs: [
        { type_name: "Maker", filter: { operator: "eq", path: ["attributes", "land"], value: "DE" }, sort: [{ path: ["attributes", "rank"] }] },
        { type_name: "Ghost", filter: { operator: "eq", path: ["attributes", "x"], value: 1 } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    // Every row ties on the unknown keys, so the first real key decides; distinct_on over a constant keeps one row.
    expect(res.json.data).toHaveLength(1);
    expect(res.json.warnings).toEqual([
      "sort[0].path: attributes.cost is not defined by the schema of Product",
      "distinct_on.paths[0]: attributes.size is not defined by the schema of Product",
      "distinct_on.sort[0].path: attributes.age is not defined by the schema of Product",
      "include_specs[0].filter.path: attributes.land is not defined by the schema of Maker",
      "include_specs[0].sort[0].path: attributes.rank is not defined by the schema of Maker",
      "include_specs[1].type_name: no entity type Ghost the caller can read",
    ]);
    const included = await query({ include: ["Maker", "Ghost"], filter: { operator: "eq", path: ["attributes", "sku"], value: "p1" } });
    expect(included.json.data[0].relationships.map((r: any) => r.entity.name)).toEqual(["acme"]);
    expect(included.json.warnings).toEqual(["include[1]: no entity type Ghost the caller can read"]);
  });

  it("keeps twenty lines and counts the rest, as error lines do", async () => {
    const filters = Array.from({ length: 25 }, (_, i) => ({ operator: "eq", path: ["attributes", `a${i}`], value: 1 }));
    const res = await query({ filter: { operator: "or", filters } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.warnings).toHaveLength(21);
    expect(res.json.warnings[19]).toBe("filter.filters[19].path: attributes.a19 is not defined by the schema of Product");
    expect(res.json.warnings[20]).toBe("... and 5 more warnings");
  });

  it("keeps keyset cursors working, each page carrying the warnings", async () => {
    const body = { sort: [{ path: ["attributes", "cost"] }], limit: 2 };
    const first = await query(body);
    expect(first.status, first.text).toBe(200);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await query({ ...body, cursor: first.json.next_cursor });
    expect(second.status, second.text).toBe(200);
    expect([...skus(first.json.data), ...skus(second.json.data)].sort()).toEqual(["p1", "p2", "p3"]);
    for (const page of [first, second]) expect(page.json.warnings).toEqual(["sort[0].path: attributes.cost is not defined by the schema of Product"]);
    const offset = await query({ ...body, page: 1 });
    expect(Object.keys(offset.json)).toEqual(["data", "pagination", "warnings"]);
  });

  it("words a type the caller may not read exactly as one that does not exist, and tells nothing of its schema", async () => {
    const body = (type: string) => ({
      filter: {
        operator: "or",
        filters: [
          { operator: "exists", path: ["relationships", type] },
          { operator: "eq", path: ["relationships", type, "attributes", "nope"], value: 1 },
          { operator: "rel_exists", path: ["relationships", type], value: { operator: "eq", path: ["attributes", "nope"], value: 1 } },
        ],
      },
      include_specs: [{ type_name: type, filter: { operator: "eq", path: ["attributes", "nope"], value: 1 } }],
    });
    const expected = (type: string) => [
      `filter.filters[0].path: no entity type ${type} the caller can read`,
      `filter.filters[1].path: no entity type ${type} the caller can read`,
      `filter.filters[2].path: no entity type ${type} the caller can read`,
      `include_specs[0].type_name: no entity type ${type} the caller can read`,
    ];
    const secret = await query(body("Secret"), narrowed);
    const ghost = await query(body("Ghost"), narrowed);
    expect(secret.status, secret.text).toBe(200);
    expect(secret.json).toEqual({ data: [], warnings: expected("Secret") });
    expect(ghost.json).toEqual({ data: [], warnings: expected("Ghost") });
    const plain = await query({ include: ["Secret", "Ghost"] }, narrowed);
    expect(plain.json.warnings).toEqual(["include[0]: no entity type Secret the caller can read", "include[1]: no entity type Ghost the caller can read"]);
    // The owner reads Secret: its schema is checked instead.
    const owner = await query(body("Secret"));
    expect(skus(owner.json.data)).toEqual(["p1"]);
    expect(owner.json.warnings).toEqual([
      "filter.filters[1].path: attributes.nope is not defined by the schema of Secret",
      "filter.filters[2].value.path: attributes.nope is not defined by the schema of Secret",
      "include_specs[0].filter.path: attributes.nope is not defined by the schema of Secret",
    ]);
  });
});

describe("POST /entity/query-graph warnings", () => {
  it("puts the root page's and the include tree's warnings beside data, never in page_info", async () => {
    const res = await call("POST", "/entity/query-graph", {
      auth: t.auth,
      body: {
        type_name: "Product",
        filter: { operator: "eq", path: ["attributes", "sku"], value: "p1" },
        sort: [{ path: ["attributes", "cost"] }],
        include: [
          {
            type_name: "Maker",
            filter: { operator: "neq", path: ["attributes", "land"], value: "x" },
            include: [{ type_name: "Product", sort: [{ path: ["attributes", "weight"] }] }],
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.roots).toEqual([ids.p1]);
    expect(Object.keys(res.json.data.nodes)).toEqual([ids.p1]);
    expect(Object.keys(res.json.data.page_info)).toEqual(["truncated", "truncations"]);
    expect(res.json.warnings).toEqual([
      "sort[0].path: attributes.cost is not defined by the schema of Product",
      "include[0].filter.path: attributes.land is not defined by the schema of Maker",
      "include[0].include[0].sort[0].path: attributes.weight is not defined by the schema of Product",
    ]);
    const clean = await call("POST", "/entity/query-graph", { auth: t.auth, body: { type_name: "Product", include: [{ type_name: "Maker" }] } });
    expect(Object.keys(clean.json)).toEqual(["data"]);
  });

  it("says nothing of the schema of an include type the caller may not read", async () => {
    const res = await call("POST", "/entity/query-graph", {
      auth: narrowed,
      body: { type_name: "Product", include: [{ type_name: "Secret", filter: { operator: "eq", path: ["attributes", "nope"], value: 1 } }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.roots).toHaveLength(3);
    expect(Object.keys(res.json.data.nodes)).toHaveLength(3);
    expect(res.json.warnings).toBeUndefined();
  });
});

describe("POST /entity/query/distinct warnings", () => {
  it("names the filter's unknown paths beside the values", async () => {
    const distinct = (filter?: unknown) =>
      call("POST", "/entity/query/distinct", { auth: t.auth, body: { type_name: "Product", attribute_name: "color", filter } });
    const res = await distinct({
      operator: "or",
      filters: [
        { operator: "eq", path: ["attributes", "sku"], value: "p1" },
        { operator: "exists", path: ["relationships", "Ghost"] },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ data: ["red"], warnings: ["filter.filters[1].path: no entity type Ghost the caller can read"] });
    expect((await distinct()).json).toEqual({ data: ["blue", "red"] });
  });
});

describe("the OpenAPI document", () => {
  it("describes warnings on every answer that carries them", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    for (const path of ["/entity/query", "/entity/query-graph", "/entity/query/distinct"]) {
      const schema = doc.paths[path].post.responses["200"].content["application/json"].schema;
      expect(schema.properties.warnings, path).toMatchObject({ type: "array", minItems: 1, items: { type: "string" } });
    }
  });
});
