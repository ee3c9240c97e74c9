// The filter compiler on its own: what SQL text and parameters it produces.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { compileFilter, newCompilation, relatedTypeNames } from "../../src/entity/query/filter";
import type { QueryType } from "../../src/entity/query/operands";
import { Params } from "../../src/entity/query/params";

const TENANT = "11111111-1111-4111-8111-111111111111";
const item: QueryType = {
  id: "22222222-2222-4222-8222-222222222222",
  name: "Item",
  config: {
    name_search: false,
    indexed_attributes: [
      { path: ["color"], type: "text", filterable: true, sortable: false, searchable: true },
      { path: ["price"], type: "numeric", filterable: true, sortable: true, searchable: false },
    ],
  },
};
const maker: QueryType = { id: "33333333-3333-4333-8333-333333333333", name: "Maker", config: { name_search: false, indexed_attributes: [] } };

function compile(filter: unknown, first = 1) {
  const params = new Params(first);
  const c = newCompilation(params, TENANT, (name) => (name === "Maker" ? maker : undefined));
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
    const { c } = compile({ operator: "or", filters: [{ operator: "fuzzy", path: ["attributes", "color"], value: "red", threshold: 0.3 }, { operator: "fuzzy", path: ["attributes", "color"], value: "blu" }] });
    expect(c.trigramThresholds).toEqual([0.3, 0.6]);
  });

  it("names the place of every error", () => {
    expect(failure({ operator: "and", filters: [{ operator: "eq", path: ["name"], value: [1] }] })).toEqual(["filter.filters[0].value: must be a string, number or boolean for eq"]);
    expect(failure({ operator: "eq", path: ["attributes", "price"], value: "1" })).toEqual(["filter.value: must be a number for attributes.price (indexed numeric)"]);
    expect(failure({ operator: "eq", path: ["name"], value: "x".repeat(10_001) })).toEqual(["filter.value: must be at most 10000 characters"]);
    expect(failure(null)).toEqual(["filter: must be an object"]);
  });

  it("refuses what Postgres would reject at run time: a LIKE pattern ending in its escape, impossible dates", () => {
    expect(failure({ operator: "like", path: ["name"], value: "50%\\" })).toEqual(["filter.value: must not end with an unescaped backslash (write \\\\ for a literal one)"]);
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
    const nest = (n: number) => Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "and", filters: [f] }), { operator: "eq", path: ["name"], value: "a" });
    expect(compile(nest(25)).sql).toBe("(e.name = $1::text)");
    expect(failure(nest(26))[0]).toMatch(/^filter(\.filters\[0\]){25}: filters nest at most 25 levels$/);
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
