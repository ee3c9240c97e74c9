// `<Type>_aggregate` through POST /entity/graphql: the groups POST
// /entity/query/aggregate answers for the same arguments, where and filter
// combined, paging by cursor, the route's 422s as field errors, and the
// schema's shared aggregate types.
import { buildSchema, type GraphQLInputObjectType } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/api";
import { catalogue, gql, type Catalogue } from "./fixture";

let t: Catalogue;
beforeAll(async () => {
  t = await catalogue();
});

async function restGroups(body: Record<string, unknown>) {
  const res = await call("POST", "/entity/query/aggregate", { auth: t.auth, body: { type_name: "Item", ...body } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

describe("<Type>_aggregate", () => {
  it("the schema has one aggregate field per type, with the shared input types", async () => {
    const res = await call("GET", "/entity/graphql/schema", { auth: t.auth });
    const schema = buildSchema(res.text);
    const field = schema.getQueryType()!.getFields().Item_aggregate;
    expect(Object.fromEntries(field.args.map((a) => [a.name, String(a.type)]))).toEqual({
      where: "ItemWhere",
      filter: "JSON",
      group_by: "[GroupBySpec!]",
      aggregates: "[AggregateSpec!]!",
      sort: "[AggregateOrder!]",
      limit: "Int!",
      cursor: "String",
    });
    const spec = schema.getType("AggregateSpec") as GraphQLInputObjectType;
    expect(Object.keys(spec.getFields())).toEqual(["fn", "path", "as"]);
  });

  it("answers the REST route's groups for the same arguments, where and filter both holding", async () => {
    const r = await gql(
      t.auth,
      `query($f: JSON) { Item_aggregate(where: { price: { gt: 9 } }, filter: $f, group_by: [{ path: ["attributes", "color"], as: "color" }],
        aggregates: [{ fn: count, as: "n" }, { fn: sum, path: ["attributes", "price"], as: "total" }, { fn: max, path: ["created_at"], as: "newest" }],
        sort: [{ key: "total", direction: desc }]) { groups next_cursor warnings } }`,
      { f: { operator: "neq", path: ["attributes", "color"], value: "black" } },
    );
    expect(r.errors).toBeUndefined();
    const rest = await restGroups({
      filter: {
        operator: "and",
        filters: [
          { operator: "neq", path: ["attributes", "color"], value: "black" },
          { operator: "gt", path: ["attributes", "price"], value: 9 },
        ],
      },
      group_by: [{ path: ["attributes", "color"], as: "color" }],
      aggregates: [
        { fn: "count", as: "n" },
        { fn: "sum", path: ["attributes", "price"], as: "total" },
        { fn: "max", path: ["created_at"], as: "newest" },
      ],
      sort: [{ key: "total", direction: "desc" }],
    });
    expect(r.data.Item_aggregate).toEqual({ groups: rest.data, next_cursor: null, warnings: null });
    expect(r.data.Item_aggregate.groups.map((g: { group: { color: string }; n: number; total: number }) => [g.group.color, g.n, g.total])).toEqual([
      ["red", 3, 272.5],
      ["green", 1, 100],
      ["Rouge", 1, 10],
    ]);
  });

  it("pages with limit and cursor over every group once; without group_by, one row", async () => {
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const r: Awaited<ReturnType<typeof gql>> = await gql(
        t.auth,
        `query($c: String) { Item_aggregate(group_by: [{ path: ["name"] }], aggregates: [{ fn: count, as: "n" }], limit: 2, cursor: $c) { groups next_cursor } }`,
        { c: cursor },
      );
      expect(r.errors).toBeUndefined();
      seen.push(...r.data.Item_aggregate.groups.map((g: { group: { name: string } }) => g.group.name));
      cursor = r.data.Item_aggregate.next_cursor;
    } while (cursor);
    expect(seen).toEqual(
      (await restGroups({ group_by: [["name"]], aggregates: [{ fn: "count", as: "n" }], limit: 1000 })).data.map(
        (g: { group: { name: string } }) => g.group.name,
      ),
    );
    expect(seen).toHaveLength(7);
    const one = await gql(t.auth, `{ Item_aggregate(aggregates: [{ fn: avg, path: ["attributes", "price"], as: "mean" }]) { groups } }`);
    expect(one.data.Item_aggregate.groups).toEqual([{ group: {}, mean: 98.78571428571429 }]);
  });

  it("a refused aggregate is the route's 422 in errors, the field null", async () => {
    const r = await gql(t.auth, `{ Item_aggregate(aggregates: [{ fn: sum, path: ["attributes", "color"], as: "s" }]) { groups } }`);
    expect(r.data).toEqual({ Item_aggregate: null });
    expect(r.errors!.map((e) => [e.extensions.code, e.extensions.status, e.extensions.details.validation_errors])).toEqual([
      ["VALIDATION_FAILED", 422, ["aggregates[0].path: sum applies to numeric values, not attributes.color (indexed text)"]],
    ]);
    const bucket = await gql(t.auth, `{ Item_aggregate(group_by: [{ path: ["name"], bucket: month }], aggregates: [{ fn: count, as: "n" }]) { groups } }`);
    expect(bucket.errors!.map((e) => e.extensions.details.validation_errors[0])).toEqual([
      expect.stringMatching(/^group_by\[0\]\.bucket: applies to timestamps/),
    ]);
    const six = await gql(
      t.auth,
      `{ Item_aggregate(group_by: [{ path: ["a"] }, { path: ["b"] }, { path: ["c"] }, { path: ["d"] }, { path: ["e"] }, { path: ["f"] }], aggregates: [{ fn: count, as: "n" }]) { groups } }`,
    );
    expect(six.errors!.map((e) => e.extensions.details.validation_errors[0])).toEqual([expect.stringMatching(/^group_by: /)]);
  });
});
