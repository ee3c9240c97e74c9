// The filter compiler on its own: what SQL text and parameters it produces.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { compileFilter, newCompilation, relatedTypeNames } from "../../src/entity/query/filter";
import type { QueryType } from "../../src/entity/query/operands";
import { Params } from "../../src/db/params";
import { orderKeys, sortPathAt } from "../../src/entity/query/sort";
import type { ReadScope } from "../../src/db/entity-access";

const TENANT = "11111111-1111-4111-8111-111111111111";
const item: QueryType = {
  id: "22222222-2222-4222-8222-222222222222",
  name: "Item",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: {
      color: { type: "string" },
      price: { type: "number" },
      qty: {},
      dims: { type: "object", additionalProperties: false, properties: { w: { type: "number" } } },
    },
  },
  config: {
    name_search: false,
    indexed_attributes: [
      { path: ["color"], type: "text", filterable: true, sortable: false, searchable: true },
      { path: ["price"], type: "numeric", filterable: true, sortable: true, searchable: false },
    ],
  },
};
const maker: QueryType = {
  id: "33333333-3333-4333-8333-333333333333",
  name: "Maker",
  schema: {
    type: "object",
    additionalProperties: false,
    properties: { country: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
    patternProperties: { "^x_": { type: "string" } },
  },
  config: { name_search: false, indexed_attributes: [] },
};
const everything: ReadScope = { tenantId: TENANT, typeNames: null, entityIds: [], shared: null };

function compile(filter: unknown, first = 1, scope = everything) {
  const params = new Params(first);
  const c = newCompilation(params, scope, (name) => (name === "Maker" ? maker : undefined));
  const sql = compileFilter(filter, item, "e", c);
  return { sql, values: params.values, c };
}

function failure(filter: unknown): string[] {
  try {
    compile(filter);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(422);
    return (e as ApiError).details.validation_errors as string[];
  }
  throw new Error("expected a 422");
}

describe("compileFilter", () => {
  it("binds values and attribute names; the SQL text holds neither", () => {
    const name = "x'); DROP TABLE entities; --";
    const value = "'; DELETE FROM entities; --";
    const { sql, values } = compile({ operator: "eq", path: ["attributes", name], value });
    expect(sql).toBe("((e.attributes #> $1::text[]) = $2::jsonb)");
    expect(values).toEqual([[name], JSON.stringify(value)]);
  });

  it("uses the index expression of an indexed attribute, typed by its declaration", () => {
    const { sql, values } = compile({ operator: "gt", path: ["attributes", "price"], value: 10 });
    expect(sql).toBe("(platform_numeric(e.attributes #>> $2::text[]) > $1::numeric)");
    expect(values).toEqual([10, ["price"]]);
  });

  it("numbers placeholders from the collector's first number", () => {
    const { sql, values } = compile({ operator: "eq", path: ["attributes", "color"], value: "red" }, 6);
    expect(sql).toBe("((e.attributes #>> $7::text[]) = $6::text)");
    expect(values).toEqual(["red", ["color"]]);
  });

  it("wraps only negations in COALESCE, so a missing value negates to true", () => {
    const { sql } = compile({ operator: "not", filters: [{ operator: "eq", path: ["name"], value: "a" }] });
    expect(sql).toBe("(NOT COALESCE(((e.name = $1::text)), false))");
  });

  it("a particle that compiles to a constant binds nothing", () => {
    expect(compile({ operator: "in", path: ["attributes", "qty"], value: [] })).toMatchObject({ sql: "FALSE", values: [] });
    expect(compile({ operator: "eq", path: ["id"], value: "nope" })).toMatchObject({ sql: "FALSE", values: [] });
    expect(compile({ operator: "eq", path: ["relationships", "Ghost", "name"], value: "x" })).toMatchObject({ sql: "FALSE", values: [] });
    expect(compile({ operator: "eq", path: ["colour"], value: "x" })).toMatchObject({ sql: "FALSE", values: [] });
  });

  it("relationship paths look both ways and confine every table to the tenant", () => {
    const { sql, values } = compile({ operator: "eq", path: ["relationships", "Maker", "attributes", "country"], value: "DE" });
    expect(sql.match(/EXISTS/g)).toHaveLength(2);
    expect(sql).toContain("r.from_entity_id = e.id");
    expect(sql).toContain("r.to_entity_id = e.id");
    expect(sql.match(/tenant_id = \$\d+::uuid/g)).toHaveLength(4);
    expect(values).toContain(TENANT);
    expect(values).toContain(maker.id);
  });

  it("collects the thresholds of trigram fuzzy particles", () => {
    const { c } = compile({
      operator: "or",
      filters: [
        { operator: "fuzzy", path: ["attributes", "color"], value: "red", threshold: 0.3 },
        { operator: "fuzzy", path: ["attributes", "color"], value: "blu" },
      ],
    });
    expect(c.trigramThresholds).toEqual([0.3, 0.6]);
  });

  it("names the place of every error", () => {
    expect(failure({ operator: "and", filters: [{ operator: "eq", path: ["name"], value: [1] }] })).toEqual([
      "filter.filters[0].value: must be a string, number or boolean for eq",
    ]);
    expect(failure({ operator: "eq", path: ["attributes", "price"], value: "1" })).toEqual([
      "filter.value: must be a number for attributes.price (indexed numeric)",
    ]);
    expect(failure({ operator: "eq", path: ["name"], value: "x".repeat(10_001) })).toEqual(["filter.value: must be at most 10000 characters"]);
    expect(failure(null)).toEqual(["filter: must be an object"]);
  });

  it("refuses what Postgres would reject at run time: a LIKE pattern ending in its escape, impossible dates", () => {
    expect(failure({ operator: "like", path: ["name"], value: "50%\\" })).toEqual([
      "filter.value: must not end with an unescaped backslash (write \\\\ for a literal one)",
    ]);
    expect(compile({ operator: "like", path: ["name"], value: "50%\\\\" }).values).toEqual(["50%\\\\"]);
    for (const value of ["2025-02-29T00:00:00Z", "2026-04-31", "0000-01-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T10:00:00+16:00"]) {
      expect(failure({ operator: "eq", path: ["created_at"], value })).toEqual(["filter.value: must be an RFC 3339 timestamp"]);
    }
    expect(compile({ operator: "eq", path: ["created_at"], value: "2024-02-29T23:59:59.123456+15:59" }).values).toEqual(["2024-02-29T23:59:59.123456+15:59"]);
  });

  it("treats a fuzzy threshold too small for any similarity as 0", () => {
    const { values } = compile({ operator: "fuzzy", path: ["attributes", "color"], value: "red", threshold: 5e-324 });
    expect(values).toContain(0);
  });

  it("accepts 25 nested composites and refuses 26", () => {
    const nest = (n: number) =>
      Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "and", filters: [f] }), { operator: "eq", path: ["name"], value: "a" });
    expect(compile(nest(25)).sql).toBe("(e.name = $1::text)");
    expect(failure(nest(26))[0]).toMatch(/^filter(\.filters\[0\]){25}: filters nest at most 25 levels$/);
  });
});

describe("rel_exists nesting", () => {
  const relNest = (n: number, inner: unknown = { operator: "eq", path: ["name"], value: "a" }) =>
    Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "rel_exists", path: ["relationships", "Maker"], value: f }), inner);
  // Placeholders and aliases gain digits as they count up; the rest of the text must not grow faster than the filter.
  const shape = (sql: string) => sql.replace(/\$\d+/g, "$").replace(/\bx\d+/g, "x");
  // The innermost level is a pair of correlated EXISTS (one per direction); each level around it, one set.
  const levels = (sql: string) => (sql.match(/ IN \(WITH /g)?.length ?? 0) + (sql.match(/EXISTS \(/g)?.length ?? 0) / 2;

  it("compiles to SQL that grows by the same text per level, each level's condition written once", () => {
    const one = shape(compile(relNest(1)).sql).length;
    const step = shape(compile(relNest(2)).sql).length - one;
    expect(step).toBeLessThan(500);
    // Asserted level by level, so a compiler that doubles the text fails at the second level, long before it eats the memory.
    for (let n = 1; n <= 25; n++) {
      const { sql, values } = compile(relNest(n));
      expect(shape(sql).length).toBe(one + (n - 1) * step);
      expect(levels(sql)).toBe(n);
      // The tenant, the filter's value, and one related type id per level.
      expect(values).toHaveLength(n + 2);
    }
  });

  it("accepts 25 nested rel_exists and refuses 26, naming the place", () => {
    expect(levels(compile(relNest(25)).sql)).toBe(25);
    expect(failure(relNest(26))).toEqual([`filter${".value".repeat(25)}: filters nest at most 25 levels`]);
  });

  it("counts rel_exists as a level together with composites, also on an unknown related type", () => {
    const ands = (n: number, inner: unknown) => Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "and", filters: [f] }), inner);
    expect(levels(compile(ands(24, relNest(1))).sql)).toBe(1);
    expect(failure(ands(25, relNest(1)))).toEqual([`filter${".filters[0]".repeat(25)}: filters nest at most 25 levels`]);
    const ghost = { operator: "rel_exists", path: ["relationships", "Ghost"], value: { operator: "eq", path: ["name"], value: "a" } };
    expect(compile(ands(24, ghost)).sql).toBe("FALSE");
    expect(failure(ands(25, ghost))).toEqual([`filter${".filters[0]".repeat(25)}: filters nest at most 25 levels`]);
  });
});

describe("type.name against a value of another type", () => {
  it("compiles to a constant binding nothing, so an include statement numbering from $7 gets no stray parameter", () => {
    for (const value of [5, true]) {
      expect(compile({ operator: "eq", path: ["type", "name"], value }, 7)).toMatchObject({ sql: "FALSE", values: [] });
      expect(compile({ operator: "neq", path: ["type", "name"], value }, 7)).toMatchObject({ sql: "TRUE", values: [] });
      expect(compile({ operator: "in", path: ["type", "name"], value: [value] }, 7)).toMatchObject({ sql: "FALSE", values: [] });
    }
    expect(compile({ operator: "is", path: ["type", "name"], value: null }, 7)).toMatchObject({ sql: "FALSE", values: [] });
    const { sql, values } = compile({ operator: "eq", path: ["type", "name"], value: "Item" }, 7);
    expect(sql).toBe("((SELECT tt.name FROM entity_types tt WHERE tt.id = e.type_id AND tt.tenant_id = $8::uuid) = $7::text)");
    expect(values).toEqual(["Item", TENANT]);
  });

  it("refuses null, objects and arrays for eq as on any column", () => {
    expect(failure({ operator: "eq", path: ["type", "name"], value: null })).toEqual(["filter.value: must not be null for eq (use is)"]);
    expect(failure({ operator: "eq", path: ["type", "name"], value: { a: 1 } })).toEqual(["filter.value: must be a string, number or boolean for eq"]);
    expect(failure({ operator: "eq", path: ["type", "name"], value: ["Item"] })).toEqual(["filter.value: must be a string, number or boolean for eq"]);
  });
});

describe("relatedTypeNames", () => {
  it("collects the types of relationship paths, inside rel_exists too", () => {
    const names = relatedTypeNames({
      operator: "or",
      filters: [
        { operator: "eq", path: ["relationships", "Maker", "name"], value: "a" },
        { operator: "rel_exists", path: ["relationships", "Shop"], value: { operator: "exists", path: ["relationships", "City"] } },
        { operator: "eq", path: ["relationships", "rule", "name"], value: "x" },
      ],
    });
    expect([...names].sort()).toEqual(["City", "Maker", "Shop", "rule"]);
  });
});

describe("warnings", () => {
  const warnings = (filter: unknown, scope = everything) => compile(filter, 1, scope).c.warnings;

  it("name each filter path the type's schema does not define, at its place, and still match nothing there", () => {
    const { sql, c } = compile({
      operator: "and",
      filters: [
        { operator: "eq", path: ["attributes", "color"], value: "red" },
        { operator: "eq", path: ["attributes", "colour"], value: "red" },
        { operator: "not", filters: [{ operator: "gt", path: ["attributes", "dims", "h"], value: 1 }] },
        { operator: "eq", path: ["attributes", "dims", "w"], value: 1 },
        { operator: "eq", path: ["attributes", "qty", "anything"], value: 1 },
      ],
    });
    expect(c.warnings).toEqual([
      "filter.filters[1].path: attributes.colour is not defined by the schema of Item",
      "filter.filters[2].filters[0].path: attributes.dims.h is not defined by the schema of Item",
    ]);
    expect(sql).toContain("(e.attributes #> $3::text[]) = $4::jsonb");
  });

  it("name a path that names no entity field", () => {
    expect(warnings({ operator: "eq", path: ["nmae"], value: "x" })).toEqual([
      "filter.path: nmae names no field of an entity (a path starts with name, id, created_at, updated_at, type.name, attributes or relationships)",
    ]);
    expect(warnings({ operator: "eq", path: ["attributes"], value: "x" })).toHaveLength(1);
    expect(warnings({ operator: "eq", path: ["type", "id"], value: "x" })).toHaveLength(1);
    expect(
      warnings({
        operator: "and",
        filters: [
          { operator: "eq", path: ["name"], value: "x" },
          { operator: "eq", path: ["type", "name"], value: "Item" },
        ],
      }),
    ).toEqual([]);
  });

  it("name an unknown related type, and check related paths against the related type's schema", () => {
    expect(warnings({ operator: "exists", path: ["relationships", "Ghost"] })).toEqual(["filter.path: no entity type Ghost the caller can read"]);
    expect(
      warnings({ operator: "rel_exists", path: ["relationships", "Maker"], value: { operator: "eq", path: ["attributes", "county"], value: "DE" } }),
    ).toEqual(["filter.value.path: attributes.county is not defined by the schema of Maker"]);
    expect(warnings({ operator: "eq", path: ["relationships", "Maker", "attributes", "country"], value: "DE" })).toEqual([]);
    expect(warnings({ operator: "eq", path: ["relationships", "Maker", "attributes", "size"], value: 5 })).toEqual([
      "filter.path: attributes.size is not defined by the schema of Maker",
    ]);
  });

  it("walk the schema as the compiled #> reads the path: an integer reaches an array item, a pattern-matched name is defined", () => {
    const at = (...path: string[]) => warnings({ operator: "eq", path: ["relationships", "Maker", "attributes", ...path], value: "x" });
    expect(at("tags", "0")).toEqual([]);
    expect(at("tags", "-1")).toEqual([]);
    expect(at("x_code")).toEqual([]);
    expect(at("tags", "first")).toEqual(["filter.path: attributes.tags.first is not defined by the schema of Maker"]);
    expect(at("code")).toEqual(["filter.path: attributes.code is not defined by the schema of Maker"]);
  });

  it("word a type the caller cannot read exactly as a type that does not exist, and say nothing of its schema", () => {
    const onlyItems: ReadScope = { ...everything, typeNames: ["Item"] };
    expect(warnings({ operator: "exists", path: ["relationships", "Maker"] }, onlyItems)).toEqual(["filter.path: no entity type Maker the caller can read"]);
    expect(warnings({ operator: "eq", path: ["relationships", "Maker", "attributes", "size"], value: 5 }, onlyItems)).toEqual([
      "filter.path: no entity type Maker the caller can read",
    ]);
    expect(
      warnings({ operator: "rel_exists", path: ["relationships", "Maker"], value: { operator: "eq", path: ["attributes", "size"], value: 5 } }, onlyItems),
    ).toEqual(["filter.path: no entity type Maker the caller can read"]);
  });

  it("say nothing of an optional particle left out", () => {
    expect(warnings({ operator: "eq", path: ["attributes", "colour"], value: "", optional: true })).toEqual([]);
  });

  it("name sort and distinct_on paths the schema does not define, the sort key still a constant", () => {
    const c = newCompilation(new Params(), everything, () => undefined);
    const keys = orderKeys([{ path: ["attributes", "colour"] }, { path: ["attributes", "price"] }, { path: ["nmae"] }], item, "e", c);
    orderKeys([{ path: ["attributes", "size"] }], item, "e", c, sortPathAt("distinct_on.paths", true));
    expect(keys[0].sql).toBe("(e.attributes #>> $1::text[])");
    expect(keys[2].sql).toBe("NULL::text");
    expect(c.warnings).toEqual([
      "sort[0].path: attributes.colour is not defined by the schema of Item",
      "sort[2].path: nmae names no field of an entity (a path starts with name, id, created_at, updated_at, type.name, attributes or relationships)",
      "distinct_on.paths[0]: attributes.size is not defined by the schema of Item",
    ]);
  });
});
