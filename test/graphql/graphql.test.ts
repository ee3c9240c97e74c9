// GET /entity/graphql/schema and POST /entity/graphql through the gateway:
// the generated schema, answers equal to POST /entity/query's, relationship
// fields, errors, limits and access.
import { buildSchema, type GraphQLInputObjectType, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";
import { catalogue, gql, rest, type Catalogue } from "./fixture";

let t: Catalogue;
beforeAll(async () => {
  t = await catalogue();
});

const attr = (...path: string[]) => ["attributes", ...path];
const p = (operator: string, path: string[], value?: unknown) => ({ operator, path, ...(value === undefined ? {} : { value }) });
const bySku = [{ path: attr("sku") }];
const idsOf = (nodes: { id: string }[]) => nodes.map((n) => n.id);
const skusOf = (ids: string[]) => ids.map((id) => t.skuOf[id]);

async function schemaOf(auth: string): Promise<GraphQLSchema> {
  const res = await call("GET", "/entity/graphql/schema", { auth });
  expect(res.status, res.text).toBe(200);
  return buildSchema(res.text);
}

/** A type's fields (or input fields) as `name: type` strings, in schema order. */
function fieldsOf(schema: GraphQLSchema, typeName: string): Record<string, string> {
  const type = schema.getType(typeName) as GraphQLObjectType | GraphQLInputObjectType;
  return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, String(f.type)]));
}

describe("GET /entity/graphql/schema", () => {
  it("answers SDL with one object type per active entity type: entity fields, attributes typed from the JSON schema, rule fields", async () => {
    const res = await call("GET", "/entity/graphql/schema", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const schema = buildSchema(res.text);
    expect(fieldsOf(schema, "Item")).toEqual({
      id: "ID!",
      name: "String!",
      type: "EntityTypeRef!",
      identifier_key: "String!",
      created_at: "String!",
      updated_at: "String!",
      attributes: "JSON!",
      active: "Boolean",
      color: "String",
      dims: "JSON",
      attr_id: "String",
      price: "Float",
      qty: "Int",
      serial: "Float",
      sku: "String",
      tags: "[String]",
      weird_name: "String",
      made_by: "[Maker!]",
      similar_to: "[Item!]",
      similar_to_inverse: "[Item!]",
    });
    expect(fieldsOf(schema, "Maker")).toMatchObject({ code: "String", country: "String", made_by_inverse: "[Item!]" });
    expect(Object.keys(fieldsOf(schema, "Maker"))).not.toContain("made_by");
    expect(fieldsOf(schema, "Query")).toEqual({
      _entity_types: "[String!]!",
      Item: "ItemConnection",
      Maker: "MakerConnection",
      Item_aggregate: "AggregateGroups",
      Maker_aggregate: "AggregateGroups",
    });
    expect(fieldsOf(schema, "ItemConnection")).toEqual({ nodes: "[Item!]!", next_cursor: "String", count: "Int", count_strategy: "CountStrategy" });
    // The draft type and the rule to it are not served.
    expect(schema.getType("Sketch")).toBeUndefined();
    expect(res.text).not.toContain("sketched_as");
    expect(schema.getMutationType() ?? null).toBeNull();
    expect(schema.getSubscriptionType() ?? null).toBeNull();
  });

  it("types where from the same fields, with related types by name, and list arguments on every list field", async () => {
    const schema = await schemaOf(t.auth);
    expect(fieldsOf(schema, "ItemWhere")).toEqual({
      and: "[ItemWhere!]",
      or: "[ItemWhere!]",
      not: "ItemWhere",
      related: "ItemRelated",
      id: "IDFilter",
      name: "StringFilter",
      created_at: "TimestampFilter",
      updated_at: "TimestampFilter",
      active: "BooleanFilter",
      color: "StringFilter",
      attr_id: "StringFilter",
      price: "NumberFilter",
      qty: "NumberFilter",
      serial: "NumberFilter",
      sku: "StringFilter",
      tags: "StringListFilter",
      weird_name: "StringFilter",
    });
    expect(fieldsOf(schema, "ItemRelated")).toEqual({ Item: "ItemWhere", Maker: "MakerWhere" });
    expect(fieldsOf(schema, "ItemOrder")).toEqual({ field: "ItemOrderField", path: "[String!]", direction: "SortDirection!" });
    const madeBy = (schema.getType("Item") as GraphQLObjectType).getFields().made_by;
    expect(madeBy.args.map((a) => [a.name, String(a.type), a.defaultValue])).toEqual([
      ["where", "MakerWhere", undefined],
      ["filter", "JSON", undefined],
      ["sort", "[MakerOrder!]", undefined],
      ["limit", "Int!", 100],
    ]);
    const root = schema.getQueryType()!.getFields().Item;
    expect(root.args.map((a) => a.name)).toEqual(["where", "filter", "sort", "limit", "cursor", "count_strategy"]);
  });

  it("is the tenant's own: another tenant's types are absent, and a tenant without types still has a schema", async () => {
    const other = await createTenant();
    await createType(other.auth, {
      name: "Secret",
      schema: { type: "object", properties: { code: { type: "string" } } },
      config: { identifier_key: ["code"] },
    });
    expect((await schemaOf(t.auth)).getType("Secret")).toBeUndefined();
    const theirs = await schemaOf(other.auth);
    expect(fieldsOf(theirs, "Query")).toEqual({ _entity_types: "[String!]!", Secret: "SecretConnection", Secret_aggregate: "AggregateGroups" });
    expect(theirs.getType("Item")).toBeUndefined();

    const empty = await createTenant();
    expect(fieldsOf(await schemaOf(empty.auth), "Query")).toEqual({ _entity_types: "[String!]!" });
    expect(await gql(empty.auth, "{ _entity_types }")).toEqual({ data: { _entity_types: [] } });
    expect(await gql(other.auth, `{ Secret { nodes { id } } }`)).toEqual({ data: { Secret: { nodes: [] } } });
  });

  it("renames what GraphQL cannot hold as is, and the renamed fields still read and filter", async () => {
    const u = await createTenant();
    const odd = {
      "9lives": { type: "string" },
      __x: { type: "string" },
      "a b": { type: "string" },
      a_b: { type: "string" },
      and: { type: "integer", minimum: 0, maximum: 9 },
      true: { type: "boolean" },
    };
    await createType(u.auth, { name: "Query", schema: { type: "object", properties: odd }, config: { identifier_key: ["a b"] } });
    await createType(u.auth, { name: "QueryConnection", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const schema = await schemaOf(u.auth);
    expect(fieldsOf(schema, "Query")).toEqual({
      _entity_types: "[String!]!",
      Query: "Entity_QueryConnection",
      QueryConnection: "QueryConnectionConnection",
      Query_aggregate: "AggregateGroups",
      QueryConnection_aggregate: "AggregateGroups",
    });
    expect(fieldsOf(schema, "Entity_Query")).toMatchObject({
      f9lives: "String",
      f__x: "String",
      a_b: "String",
      attr_a_b: "String",
      attr_and: "Int",
      attr_true: "Boolean",
    });
    expect(fieldsOf(schema, "QueryConnection")).toMatchObject({ id: "ID!", attributes: "JSON!" });

    const e = await createEntity(u.auth, "Query", "odd one", { "9lives": "cat", __x: "x", "a b": "space", a_b: "underscore", and: 3, true: false });
    expect(
      await gql(
        u.auth,
        `{ Query(where: { attr_and: { gte: 3 }, a_b: { eq: "space" } }, sort: [{ field: attr_true }]) { nodes { id f9lives f__x a_b attr_a_b attr_and attr_true } } }`,
      ),
    ).toEqual({
      data: { Query: { nodes: [{ id: e.id, f9lives: "cat", f__x: "x", a_b: "space", attr_a_b: "underscore", attr_and: 3, attr_true: false }] } },
    });
  });

  it("follows every change at once: a patched schema, an activated draft, a new rule", async () => {
    const u = await createTenant();
    const widget = await createType(u.auth, {
      name: "Widget",
      schema: { type: "object", properties: { sku: { type: "string" } } },
      config: { identifier_key: ["sku"] },
    });
    expect(fieldsOf(await schemaOf(u.auth), "Query")).toEqual({ _entity_types: "[String!]!", Widget: "WidgetConnection", Widget_aggregate: "AggregateGroups" });

    const patched = await call("PATCH", `/entity/entity-types/${widget.id}`, {
      auth: u.auth,
      body: { schema: { type: "object", properties: { sku: { type: "string" }, weight: { type: "number" } } } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(fieldsOf(await schemaOf(u.auth), "Widget")).toMatchObject({ sku: "String", weight: "Float" });

    const gadget = await createType(u.auth, {
      name: "Gadget",
      status: "draft",
      schema: { type: "object", properties: { code: { type: "string" } } },
      config: { identifier_key: ["code"] },
    });
    expect((await schemaOf(u.auth)).getType("Gadget")).toBeUndefined();
    expect((await call("POST", `/entity/entity-types/${gadget.id}/activate`, { auth: u.auth })).status).toBe(200);
    expect(fieldsOf(await schemaOf(u.auth), "Query")).toEqual({
      _entity_types: "[String!]!",
      Gadget: "GadgetConnection",
      Widget: "WidgetConnection",
      Gadget_aggregate: "AggregateGroups",
      Widget_aggregate: "AggregateGroups",
    });

    const rule = await call("POST", "/entity/relationship-rules", {
      auth: u.auth,
      body: { name: "fits", from_entity_type_name: "Widget", to_entity_type_name: "Gadget" },
    });
    expect(rule.status, rule.text).toBe(201);
    const schema = await schemaOf(u.auth);
    expect(fieldsOf(schema, "Widget")).toMatchObject({ fits: "[Gadget!]" });
    expect(fieldsOf(schema, "Gadget")).toMatchObject({ fits_inverse: "[Widget!]" });

    const w = await createEntity(u.auth, "Widget", "Bolt widget", { sku: "W1", weight: 2.5 });
    expect(await gql(u.auth, `{ Widget(where: { weight: { gt: 2 } }) { nodes { id weight fits { id } } } }`)).toEqual({
      data: { Widget: { nodes: [{ id: w.id, weight: 2.5, fits: [] }] } },
    });
  });
});

describe("POST /entity/graphql answers the rows POST /entity/query answers", () => {
  /** The Item ids of the GraphQL query and of the REST body, which must be equal; returns their skus. */
  async function same(args: string, body: Record<string, unknown>, variables?: Record<string, unknown>): Promise<string[]> {
    const g = await gql(t.auth, `query${variables ? "($f: JSON)" : ""} { Item(${args}) { nodes { id } } }`, variables);
    expect(g.errors).toBeUndefined();
    const ids = idsOf(g.data.Item.nodes);
    expect(ids).toEqual(idsOf((await rest(t.auth, body)).data));
    return skusOf(ids);
  }

  it("eq on an indexed attribute", async () => {
    expect(await same(`where: { color: { eq: "red" } }, sort: [{ field: sku }]`, { filter: p("eq", attr("color"), "red"), sort: bySku })).toEqual([
      "A1",
      "A4",
      "A6",
    ]);
  });

  it("a range with a two-key sort", async () => {
    const skus = await same(`where: { price: { gte: 10, lt: 250 } }, sort: [{ field: price, direction: desc }, { field: sku }]`, {
      filter: { operator: "and", filters: [p("gte", attr("price"), 10), p("lt", attr("price"), 250)] },
      sort: [{ path: attr("price"), direction: "desc" }, ...bySku],
    });
    expect(skus).toEqual(["A3", "A6", "A1", "A5"]);
  });

  it("ilike on the name, accent- and case-insensitive", async () => {
    expect(
      await same(`where: { name: { ilike: "%red%" } }, sort: [{ field: name }]`, { filter: p("ilike", ["name"], "%red%"), sort: [{ path: ["name"] }] }),
    ).toEqual(["A1", "A4", "A6"]);
    expect(await same(`where: { name: { ilike: "%CREME%" } }`, { filter: p("ilike", ["name"], "%CREME%") })).toEqual(["A5"]);
  });

  it("unindexed attributes: numbers, string lists and missing values", async () => {
    // qty is not a sortable indexed attribute, so it sorts by its text: "10" before "5".
    expect(await same(`where: { qty: { gt: 4 } }, sort: [{ field: qty }]`, { filter: p("gt", attr("qty"), 4), sort: [{ path: attr("qty") }] })).toEqual([
      "A3",
      "A2",
      "A6",
    ]);
    expect(await same(`where: { tags: { cs: ["home"] } }, sort: [{ field: sku }]`, { filter: p("cs", attr("tags"), ["home"]), sort: bySku })).toEqual([
      "A1",
      "A2",
      "A3",
    ]);
    expect(await same(`where: { qty: { is_null: true } }, sort: [{ field: sku }]`, { filter: p("is", attr("qty"), null), sort: bySku })).toEqual(["A5", "A7"]);
    expect(await same(`where: { active: { eq: false } }, sort: [{ field: sku }]`, { filter: p("eq", attr("active"), false), sort: bySku })).toEqual([
      "A2",
      "A4",
    ]);
  });

  it("a relationship path: linked to a Maker in DE, and linked to any Maker", async () => {
    const de = await same(`where: { related: { Maker: { country: { eq: "DE" } } } }, sort: [{ field: sku }]`, {
      filter: { operator: "rel_exists", path: ["relationships", "Maker"], value: p("eq", attr("country"), "DE") },
      sort: bySku,
    });
    expect(de).toEqual(["A1", "A3", "A6"]);
    // The path form REST clients write says the same.
    expect(idsOf((await rest(t.auth, { filter: p("eq", ["relationships", "Maker", "attributes", "country"], "DE"), sort: bySku })).data)).toEqual(
      de.map((s) => t.ids[s]),
    );
    expect(await same(`where: { related: { Maker: {} } }, sort: [{ field: sku }]`, { filter: p("exists", ["relationships", "Maker"]), sort: bySku })).toEqual([
      "A1",
      "A2",
      "A3",
      "A5",
      "A6",
    ]);
  });

  it("or, not, and raw filters combined with where", async () => {
    const skus = await same(`where: { or: [{ color: { eq: "blue" } }, { price: { gt: 200 } }], not: { name: { like: "%Desk%" } } }, sort: [{ field: sku }]`, {
      filter: {
        operator: "and",
        filters: [
          { operator: "or", filters: [p("eq", attr("color"), "blue"), p("gt", attr("price"), 200)] },
          { operator: "not", filters: [p("like", ["name"], "%Desk%")] },
        ],
      },
      sort: bySku,
    });
    expect(skus).toEqual(["A2", "A4"]);
    const raw = p("gt", attr("price"), 11);
    expect(
      await same(
        `filter: $f, where: { color: { eq: "red" } }, sort: [{ field: sku }]`,
        { filter: { operator: "and", filters: [raw, p("eq", attr("color"), "red")] }, sort: bySku },
        { f: raw },
      ),
    ).toEqual(["A4", "A6"]);
    expect(
      await same(
        `filter: $f, sort: [{ path: ["attributes", "sku"], direction: desc }]`,
        { filter: raw, sort: [{ path: attr("sku"), direction: "desc" }] },
        { f: raw },
      ),
    ).toEqual(["A7", "A6", "A4", "A3"]);
  });

  it("keyset pages through next_cursor to the end, page for page and cursor for cursor", async () => {
    const query = `query($c: String) { Item(limit: 2, sort: [{ field: name }], cursor: $c) { nodes { id } next_cursor } }`;
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const g = (await gql(t.auth, query, cursor ? { c: cursor } : undefined)).data.Item;
      const r = await rest(t.auth, { limit: 2, sort: [{ path: ["name"], direction: "asc" }], ...(cursor ? { cursor } : {}) });
      expect(idsOf(g.nodes)).toEqual(idsOf(r.data));
      expect(g.next_cursor).toEqual(r.next_cursor ?? null);
      pages.push(skusOf(idsOf(g.nodes)));
      cursor = g.next_cursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual([["A7", "A2"], ["A5", "A3"], ["A1", "A4"], ["A6"]]);
  });

  it("count and count_strategy, as include_count gives them", async () => {
    const g = await gql(t.auth, `{ Item(where: { active: { eq: true } }, count_strategy: exact, limit: 1) { count count_strategy next_cursor } }`);
    const r = await rest(t.auth, { filter: p("eq", attr("active"), true), count_strategy: "exact", include_count: true, limit: 1 });
    expect(g.data.Item).toEqual({ count: 3, count_strategy: "exact", next_cursor: r.next_cursor });
    expect(r.count).toBe(3);
  });
});

describe("relationship fields", () => {
  it("list the linked entities in full, as include_specs lists them", async () => {
    const g = await gql(t.auth, `{ Item(sort: [{ field: sku }]) { nodes { sku made_by { id name identifier_key country type { name } created_at } } } }`);
    expect(g.errors).toBeUndefined();
    const r = await rest(t.auth, { sort: bySku, include_specs: [{ type_name: "Maker", rule_name: "made_by" }] });
    const nodes = g.data.Item.nodes as { sku: string; made_by: { id: string; name: string }[] }[];
    expect(nodes.map((n) => idsOf(n.made_by))).toEqual(r.data.map((e) => e.relationships!.map((rel) => rel.entity.id)));
    expect(Object.fromEntries(nodes.map((n) => [n.sku, n.made_by.map((m) => m.name)]))).toEqual({
      A1: ["Acme"],
      A2: ["Bolt"],
      A3: ["Acme"],
      A4: [],
      A5: ["Bolt"],
      A6: ["Acme"],
      A7: [],
    });
    expect(nodes[0].made_by[0]).toEqual({
      id: t.makerIds.acme,
      name: "Acme",
      identifier_key: "acme",
      country: "DE",
      type: { name: "Maker" },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
  });

  it("take where, sort and limit on the inverse side, and nest", async () => {
    const g = await gql(
      t.auth,
      `{ Maker(sort: [{ field: name }]) { nodes { name
          all: made_by_inverse(sort: [{ field: price, direction: desc }]) { sku }
          cheap: made_by_inverse(where: { price: { lt: 11 } }, sort: [{ field: sku }], limit: 1) { sku made_by { name } }
      } } }`,
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.Maker.nodes).toEqual([
      { name: "Acme", all: [{ sku: "A3" }, { sku: "A6" }, { sku: "A1" }], cheap: [{ sku: "A1", made_by: [{ name: "Acme" }] }] },
      { name: "Bolt", all: [{ sku: "A5" }, { sku: "A2" }], cheap: [{ sku: "A2", made_by: [{ name: "Bolt" }] }] },
    ]);
    const r = await call("POST", "/entity/query", {
      auth: t.auth,
      body: {
        type_name: "Maker",
        sort: [{ path: ["name"] }],
        include_specs: [{ type_name: "Item", rule_name: "made_by", sort: [{ path: attr("price"), direction: "desc" }] }],
      },
    });
    expect(r.json.data.map((m: { relationships: { entity: { id: string } }[] }) => m.relationships.map((rel) => t.skuOf[rel.entity.id]))).toEqual([
      ["A3", "A6", "A1"],
      ["A5", "A2"],
    ]);
  });

  it("give each side of a rule from a type to itself", async () => {
    const g = await gql(
      t.auth,
      `{ Item(where: { sku: { in: ["A1", "A6"] } }, sort: [{ field: sku }]) { nodes { sku similar_to { sku } similar_to_inverse { sku } } } }`,
    );
    expect(g.data.Item.nodes).toEqual([
      { sku: "A1", similar_to: [{ sku: "A6" }], similar_to_inverse: [] },
      { sku: "A6", similar_to: [], similar_to_inverse: [{ sku: "A1" }] },
    ]);
  });
});

describe("errors are GraphQL errors with a code, never a 500", () => {
  it("a syntax error", async () => {
    expect(await gql(t.auth, "{ Item(limit: ")).toEqual({
      errors: [{ message: "Syntax Error: Unexpected <EOF>.", locations: [{ line: 1, column: 15 }], extensions: { code: "GRAPHQL_PARSE_FAILED" } }],
    });
  });

  it("an unknown field or type", async () => {
    expect(await gql(t.auth, "{ Item { nodes { nope } } }")).toEqual({
      errors: [
        {
          message: 'Cannot query field "nope" on type "Item". Did you mean "name" or "type"?',
          locations: [{ line: 1, column: 18 }],
          extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
        },
      ],
    });
    const draft = await gql(t.auth, "{ Sketch { nodes { id } } }");
    expect(draft.errors!.map((e) => [e.message, e.extensions.code])).toEqual([['Cannot query field "Sketch" on type "Query".', "GRAPHQL_VALIDATION_FAILED"]]);
  });

  it("a variable of the wrong type", async () => {
    const r = await gql(t.auth, "query($n: Int!) { Item(limit: $n) { nodes { id } } }", { n: "ten" });
    expect(r.data).toBeUndefined();
    expect(r.errors!.map((e) => [e.message, e.extensions.code])).toEqual([
      ['Variable "$n" got invalid value "ten"; Int cannot represent non-integer value: "ten"', "GRAPHQL_VALIDATION_FAILED"],
    ]);
  });

  it("a filter the compiler refuses: its 422 in errors, the field null", async () => {
    const r = await gql(t.auth, "query($f: JSON) { Item(filter: $f) { nodes { id } } }", { f: { operator: "eq", path: ["created_at"], value: "yesterday" } });
    expect(r).toEqual({
      data: { Item: null },
      errors: [
        {
          message: "Filter is invalid",
          locations: [{ line: 1, column: 19 }],
          path: ["Item"],
          extensions: {
            code: "VALIDATION_FAILED",
            status: 422,
            details: { validation_errors: ["filter.value: must be an RFC 3339 timestamp"], errors: ["filter.value: must be an RFC 3339 timestamp"] },
          },
        },
      ],
    });
    const unknown = await gql(t.auth, `{ Item(filter: { operator: "bogus", path: ["name"] }) { nodes { id } } }`);
    expect(unknown.errors!.map((e) => [e.extensions.code, e.extensions.details.validation_errors[0].split(":")[0]])).toEqual([
      ["VALIDATION_FAILED", "filter.operator"],
    ]);
  });

  it("where values GraphQL accepts but the query engine refuses, and bad paging", async () => {
    const detail = async (query: string) => {
      const r = await gql(t.auth, query);
      expect(r.data).toEqual({ Item: null });
      return r.errors!.map((e) => [e.extensions.code, e.extensions.details.validation_errors]);
    };
    expect(await detail(`{ Item(where: { created_at: { gt: "soon" } }) { nodes { id } } }`)).toEqual([
      ["VALIDATION_FAILED", ["filter.value: must be an RFC 3339 timestamp"]],
    ]);
    expect(await detail(`{ Item(where: { color: { eq: null } }) { nodes { id } } }`)).toEqual([
      ["VALIDATION_FAILED", ["where.color.eq: must not be null (use is_null to match missing values)"]],
    ]);
    expect(await detail(`{ Item(where: { name: { fuzzy_threshold: 0.5 } }) { nodes { id } } }`)).toEqual([
      ["VALIDATION_FAILED", ["where.name.fuzzy_threshold: applies only with fuzzy"]],
    ]);
    expect(await detail(`{ Item(sort: [{ direction: desc }]) { nodes { id } } }`)).toEqual([
      ["VALIDATION_FAILED", ["sort[0]: exactly one of field and path is required"]],
    ]);
    expect(await detail(`{ Item(limit: 0) { nodes { id } } }`)).toEqual([["VALIDATION_FAILED", ["limit: 0 is less than 1"]]]);
    expect(await detail(`{ Item(cursor: "forged") { nodes { id } } }`)).toEqual([
      ["VALIDATION_FAILED", ["cursor: is invalid or does not belong to this query"]],
    ]);
  });

  it("a relationship field that fails is one error, not one per parent", async () => {
    const r = await gql(t.auth, `{ Item(sort: [{ field: sku }]) { nodes { sku made_by(filter: { operator: "bogus" }) { id } } } }`);
    expect(r.data.Item.nodes).toEqual(["A1", "A2", "A3", "A4", "A5", "A6", "A7"].map((sku) => ({ sku, made_by: null })));
    expect(r.errors!.map((e) => [e.path, e.extensions.code, e.extensions.status])).toEqual([[["Item", "nodes", 0, "made_by"], "VALIDATION_FAILED", 422]]);
  });

  it("a stored value that no longer fits its field: that field null with an error, attributes intact", async () => {
    const u = await createTenant();
    const part = await createType(u.auth, {
      name: "Part",
      schema: { type: "object", properties: { code: { type: "string" } } },
      config: { identifier_key: ["code"] },
    });
    await createEntity(u.auth, "Part", "odd part", { code: "abc" });
    const patched = await call("PATCH", `/entity/entity-types/${part.id}`, {
      auth: u.auth,
      body: { schema: { type: "object", properties: { code: { type: "integer", minimum: 0, maximum: 9 } } } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await gql(u.auth, `{ Part { nodes { name code attributes } } }`)).toEqual({
      data: { Part: { nodes: [{ name: "odd part", code: null, attributes: { code: "abc" } }] } },
      errors: [
        {
          message: 'Int cannot represent non-integer value: "abc"',
          locations: [{ line: 1, column: 23 }],
          path: ["Part", "nodes", 0, "code"],
          extensions: { code: "GRAPHQL_EXECUTION_FAILED" },
        },
      ],
    });
  });

  it("mutations and subscriptions are refused", async () => {
    for (const op of ["mutation", "subscription"]) {
      expect(await gql(t.auth, `${op} { Item { nodes { id } } }`)).toEqual({
        errors: [
          {
            message: `${op} operations are not supported; this endpoint only reads`,
            locations: [{ line: 1, column: 1 }],
            extensions: { code: "OPERATION_NOT_SUPPORTED" },
          },
        ],
      });
    }
  });

  it("a body without query is the gateway's 422 envelope", async () => {
    const err = expectError(await call("POST", "/entity/graphql", { auth: t.auth, body: { variables: {} } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["query: is required"]);
  });
});

describe("limits", () => {
  const nest = (levels: number) => {
    // Maker > nodes > made_by_inverse > made_by > made_by_inverse > ... > id
    const hops = Array.from({ length: levels - 3 }, (_, i) => (i % 2 ? "made_by" : "made_by_inverse"));
    return `{ Maker(limit: 1, sort: [{ field: name }]) { nodes { ${hops.reduceRight((inner, hop) => `${hop}(limit: 1, sort: [{ field: name }]) { ${inner} }`, "id")} } } }`;
  };

  it("fields nest at most 6 levels", async () => {
    expect(await gql(t.auth, nest(6))).toEqual({ data: { Maker: { nodes: [{ made_by_inverse: [{ made_by: [{ made_by_inverse: [{ id: t.ids.A3 }] }] }] }] } } });
    expect(await gql(t.auth, nest(7))).toEqual({
      errors: [{ message: "The query nests fields more than 6 levels deep", extensions: { code: "QUERY_TOO_COMPLEX", max_depth: 6 } }],
    });
  });

  it("the limits allow at most 25,000 entities in all", async () => {
    const ok = await gql(t.auth, `{ Item(limit: 200) { nodes { made_by(limit: 100) { id } } } }`);
    expect(ok.data.Item.nodes).toHaveLength(7);
    expect(await gql(t.auth, `{ Item(limit: 1000) { nodes { made_by(limit: 100) { id } } } }`)).toEqual({
      errors: [
        {
          message: "The query's limits allow more than 25000 entities; lower the limit arguments",
          extensions: { code: "QUERY_TOO_COMPLEX", max_nodes: 25000 },
        },
      ],
    });
    // Defaults count too: 100 Items, each with 100 Makers, each with 100 Items.
    const defaults = await gql(t.auth, `{ Item { nodes { made_by { made_by_inverse { id } } } } }`);
    expect(defaults.errors!.map((e) => e.extensions.code)).toEqual(["QUERY_TOO_COMPLEX"]);
    // A negative limit is refused when it runs and cannot make room for the others.
    const negative = await gql(t.auth, `{ a: Item(limit: -100000) { nodes { id } } b: Item(limit: 1000) { nodes { made_by(limit: 100) { id } } } }`);
    expect(negative.errors!.map((e) => e.extensions.code)).toEqual(["QUERY_TOO_COMPLEX"]);
  });

  it("at most 20 fields that load entities", async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: Item(limit: 1, sort: [{ field: sku }]) { nodes { sku } }`).join(" ")} }`;
    const twenty = await gql(t.auth, aliases(20));
    expect(Object.values(twenty.data).map((c: any) => c.nodes[0].sku)).toEqual(Array(20).fill("A1"));
    expect(await gql(t.auth, aliases(21))).toEqual({
      errors: [
        {
          message: "The query has more than 20 fields that load entities (type fields and relationship fields)",
          extensions: { code: "QUERY_TOO_COMPLEX", max_loads: 20 },
        },
      ],
    });
  });

  it("introspection is answered", async () => {
    const r = await gql(t.auth, `{ __schema { queryType { name } } __type(name: "Maker") { fields { name } } }`);
    expect(r.data.__schema).toEqual({ queryType: { name: "Query" } });
    expect(r.data.__type.fields.map((f: { name: string }) => f.name)).toEqual([
      "id",
      "name",
      "type",
      "identifier_key",
      "created_at",
      "updated_at",
      "attributes",
      "code",
      "country",
      "made_by_inverse",
    ]);
  });
});

describe("access", () => {
  async function tokenWith(owner: TenantCreds, permissions: string[]): Promise<string> {
    const role = `role-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call("POST", "/access/roles", { auth: owner.auth, body: { name: role, permissions } })).status).toBe(201);
    const minted = await call("POST", "/access/api-tokens", { auth: owner.auth, body: { name: role, role_names: [role] } });
    expect(minted.status, minted.text).toBe(201);
    return basic(minted.json.data.client_id, minted.json.data.client_secret);
  }

  it("no credentials: the 401 envelope on both routes", async () => {
    expectError(await call("POST", "/entity/graphql", { body: { query: "{ _entity_types }" } }), 401, "UNAUTHORIZED");
    expectError(await call("GET", "/entity/graphql/schema"), 401, "UNAUTHORIZED");
  });

  it("a token without entity:read: the 403 envelope; with entity:read alone: answers", async () => {
    const typesOnly = await tokenWith(t, ["entity_type:read"]);
    for (const res of [
      await call("POST", "/entity/graphql", { auth: typesOnly, body: { query: "{ _entity_types }" } }),
      await call("GET", "/entity/graphql/schema", { auth: typesOnly }),
    ]) {
      expect(expectError(res, 403, "FORBIDDEN").details).toMatchObject({ resource: "entity", action: "read" });
    }
    const reader = await tokenWith(t, ["entity:read"]);
    expect(await gql(reader, `{ _entity_types Maker(sort: [{ field: name }]) { nodes { name } } }`)).toEqual({
      data: { _entity_types: ["Item", "Maker"], Maker: { nodes: [{ name: "Acme" }, { name: "Bolt" }] } },
    });
  });
});
