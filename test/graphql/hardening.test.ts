// Hostile GraphQL arguments: nested conditions on related entities stay
// within the filter cap, a relationship field's filter on type.name treats a
// value of another type as POST /entity/query does, and a condition whose
// variable is unset (or that names no operator) is refused, not dropped.
import { beforeAll, describe, expect, it } from "vitest";
import { catalogue, gql, type Catalogue } from "./fixture";

let t: Catalogue;
beforeAll(async () => {
  t = await catalogue();
});

type Answer = Awaited<ReturnType<typeof gql>>;

/** Each error as [path, code, status, validation lines]. */
const errorsOf = (r: Answer) => r.errors?.map((e) => [e.path, e.extensions.code, e.extensions.status, e.extensions.details?.validation_errors]);
const refused = (path: (string | number)[], lines: string[]) => [[path, "VALIDATION_FAILED", 422, lines]];
const capLine = (at: string) => `${at}: filters nest at most 25 levels`;

describe("nested conditions on related entities", () => {
  const leaf = { operator: "eq", path: ["name"], value: "nobody" };
  const relNest = (n: number) =>
    Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "rel_exists", path: ["relationships", "Item"], value: f }), leaf);
  const whereNest = (n: number) => `${"{ related: { Item: ".repeat(n)}{ name: { eq: "nobody" } }${" } }".repeat(n)}`;

  it("the filter argument: 25 nested rel_exists answer, 26 are refused naming the place", async () => {
    const query = `query($f: JSON) { Item(filter: $f) { nodes { id } } }`;
    const ok = await gql(t.auth, query, { f: relNest(25) });
    expect(ok).toEqual({ data: { Item: { nodes: [] } } });
    const deep = await gql(t.auth, query, { f: relNest(26) });
    expect(deep.data).toEqual({ Item: null });
    expect(errorsOf(deep)).toEqual(refused(["Item"], [capLine(`filter${".value".repeat(25)}`)]));
  });

  it("a relationship field's filter: 25 answer, 26 are refused", async () => {
    const query = `query($f: JSON) { Item(where: { sku: { eq: "A1" } }) { nodes { similar_to(filter: $f) { id } } } }`;
    expect(await gql(t.auth, query, { f: relNest(25) })).toEqual({ data: { Item: { nodes: [{ similar_to: [] }] } } });
    const deep = await gql(t.auth, query, { f: relNest(26) });
    expect(deep.data).toEqual({ Item: { nodes: [{ similar_to: null }] } });
    expect(errorsOf(deep)).toEqual(refused(["Item", "nodes", 0, "similar_to"], [capLine(`include_specs[0].filter${".value".repeat(25)}`)]));
  });

  it("where: related nested 25 deep answers, 26 deep is refused", async () => {
    expect(await gql(t.auth, `{ Item(where: ${whereNest(25)}) { nodes { id } } }`)).toEqual({ data: { Item: { nodes: [] } } });
    const deep = await gql(t.auth, `{ Item(where: ${whereNest(26)}) { nodes { id } } }`);
    expect(errorsOf(deep)).toEqual(refused(["Item"], [capLine(`filter${".value".repeat(25)}`)]));
  });
});

describe("a relationship field's filter on type.name with a value of another type", () => {
  const query = `query($f: JSON) { Item(where: { sku: { eq: "A1" } }) { nodes { made_by(filter: $f) { id } } } }`;
  const typeName = (operator: string, value: unknown) => ({ operator, path: ["type", "name"], value });
  const madeBy = async (filter: unknown) => {
    const r = await gql(t.auth, query, { f: filter });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data.Item.nodes[0].made_by.map((m: { id: string }) => m.id);
  };

  it("a number or a boolean equals no name: eq and in match nothing, neq everything", async () => {
    for (const value of [5, true]) {
      expect(await madeBy(typeName("eq", value))).toEqual([]);
      expect(await madeBy(typeName("in", [value]))).toEqual([]);
      expect(await madeBy(typeName("neq", value))).toEqual([t.makerIds.acme]);
    }
    expect(await madeBy(typeName("is", null))).toEqual([]);
    expect(await madeBy(typeName("eq", "Maker"))).toEqual([t.makerIds.acme]);
  });

  it("null, an object and an array are refused naming the place", async () => {
    const cases: [unknown, string][] = [
      [null, "must not be null for eq (use is)"],
      [{ a: 1 }, "must be a string, number or boolean for eq"],
      [["Maker"], "must be a string, number or boolean for eq"],
    ];
    for (const [value, reason] of cases) {
      const r = await gql(t.auth, query, { f: typeName("eq", value) });
      expect(r.data).toEqual({ Item: { nodes: [{ made_by: null }] } });
      expect(errorsOf(r)).toEqual(refused(["Item", "nodes", 0, "made_by"], [`include_specs[0].filter.value: ${reason}`]));
    }
  });
});

describe("a condition that would be dropped", () => {
  const unset = (at: string, name: string) => `${at}: variable $${name} is not set (an unset variable would leave the condition out)`;

  it("an operator whose variable is unset is refused, as an explicit null is", async () => {
    const query = `query($x: String) { Item(where: { name: { eq: $x } }) { nodes { id } } }`;
    for (const variables of [undefined, {}]) {
      const r = await gql(t.auth, query, variables);
      expect(r.data).toEqual({ Item: null });
      expect(errorsOf(r)).toEqual(refused(["Item"], [unset("where.name.eq", "x")]));
    }
    expect(await gql(t.auth, query, { x: "Red Chair" })).toEqual({ data: { Item: { nodes: [{ id: t.ids.A1 }] } } });
    expect(errorsOf(await gql(t.auth, query, { x: null }))).toEqual(
      refused(["Item"], ["where.name.eq: must not be null (use is_null to match missing values)"]),
    );
  });

  it("unset variables anywhere inside where: in lists, not, related and whole operator inputs", async () => {
    const cases: [string, string][] = [
      [`query($x: String) { Item(where: { and: [{ color: { eq: "red" } }, { name: { eq: $x } }] }) { nodes { id } } }`, unset("where.and[1].name.eq", "x")],
      [`query($w: ItemWhere) { Item(where: { not: $w }) { nodes { id } } }`, unset("where.not", "w")],
      [`query($c: String) { Item(where: { related: { Maker: { country: { eq: $c } } } }) { nodes { id } } }`, unset("where.related.Maker.country.eq", "c")],
      [`query($s: StringFilter) { Item(where: { name: $s }) { nodes { id } } }`, unset("where.name", "s")],
    ];
    for (const [query, line] of cases) {
      const r = await gql(t.auth, query);
      expect(r.data, query).toEqual({ Item: null });
      expect(errorsOf(r), query).toEqual(refused(["Item"], [line]));
    }
  });

  it("a field with no operator is refused", async () => {
    const r = await gql(t.auth, `{ Item(where: { name: {} }) { nodes { id } } }`);
    expect(r.data).toEqual({ Item: null });
    expect(errorsOf(r)).toEqual(refused(["Item"], ["where.name: must name at least one operator"]));
    const inner = await gql(t.auth, `{ Item(where: { or: [{ color: { eq: "blue" } }, { price: {} }] }) { nodes { id } } }`);
    expect(errorsOf(inner)).toEqual(refused(["Item"], ["where.or[1].price: must name at least one operator"]));
  });

  it("on a relationship field too, reported once for all its parents", async () => {
    const empty = await gql(t.auth, `{ Item(where: { sku: { in: ["A1", "A3"] } }) { nodes { made_by(where: { country: {} }) { id } } } }`);
    expect(empty.data).toEqual({ Item: { nodes: [{ made_by: null }, { made_by: null }] } });
    expect(errorsOf(empty)).toEqual(refused(["Item", "nodes", 0, "made_by"], ["where.country: must name at least one operator"]));
    const variable = await gql(t.auth, `query($c: String) { Item(where: { sku: { eq: "A1" } }) { nodes { made_by(where: { country: { eq: $c } }) { id } } } }`);
    expect(errorsOf(variable)).toEqual(refused(["Item", "nodes", 0, "made_by"], [unset("where.country.eq", "c")]));
  });

  it("the where argument itself unset is no condition, as a body without filter", async () => {
    const r = await gql(t.auth, `query($w: ItemWhere) { Item(where: $w) { nodes { id } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.Item.nodes).toHaveLength(7);
  });
});
