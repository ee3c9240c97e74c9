// POST /entity/query through the gateway: every operator on every path kind,
// composites, sorting, paging, counts, includes, distinct_on and the errors.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createType } from "../support/entities";
import { catalogue, itemConfig, skus, type Catalogue } from "./fixture";

let t: Catalogue;
beforeAll(async () => {
  t = await catalogue();
});

const attr = (...path: string[]) => ["attributes", ...path];
const p = (operator: string, path: string[], value?: unknown, extra: Record<string, unknown> = {}) => ({
  operator,
  path,
  ...(value === undefined ? {} : { value }),
  ...extra,
});
const q = (filter: unknown) => skus(t.auth, { filter });

async function query(body: Record<string, unknown>, auth = t.auth) {
  return call("POST", "/entity/query", { auth, body: { type_name: "Item", ...body } });
}

describe("columns", () => {
  it("name: eq, neq, in, ranges, like (case- and accent-aware), ilike, segment-free text", async () => {
    expect(await q(p("eq", ["name"], "Red Chair"))).toEqual(["A1"]);
    expect(await q(p("neq", ["name"], "Red Chair"))).toEqual(["A2", "A3", "A4", "A5"]);
    expect(await q(p("in", ["name"], ["Red Chair", "Green Lamp", 7]))).toEqual(["A1", "A3"]);
    expect(await q(p("gte", ["name"], "Red"))).toEqual(["A1", "A4"]);
    expect(await q(p("like", ["name"], "Red%"))).toEqual(["A1", "A4"]);
    expect(await q(p("like", ["name"], "%Creme%"))).toEqual(["A5"]);
    expect(await q(p("like", ["name"], "%creme%"))).toEqual([]);
    expect(await q(p("ilike", ["name"], "%CREME s%"))).toEqual(["A5"]);
    expect(await q(p("eq", ["name"], 5))).toEqual([]);
    expect(await q(p("is", ["name"], null))).toEqual([]);
  });

  it("name: fuzzy is a trigram similarity when the type has name_search", async () => {
    expect(await q(p("fuzzy", ["name"], "Gren Lamp", { threshold: 0.4 }))).toEqual(["A3"]);
    expect(await q(p("fuzzy", ["name"], "Gren Lamp", { threshold: 0.95 }))).toEqual([]);
  });

  it("id: eq, neq, in; a value that is not a UUID equals nothing", async () => {
    expect(await q(p("eq", ["id"], t.ids.A1))).toEqual(["A1"]);
    expect(await q(p("neq", ["id"], t.ids.A1))).toEqual(["A2", "A3", "A4", "A5"]);
    expect(await q(p("in", ["id"], [t.ids.A1, t.ids.A2, "x'; --"]))).toEqual(["A1", "A2"]);
    expect(await q(p("eq", ["id"], "not-a-uuid"))).toEqual([]);
    expectError(await query({ filter: p("gt", ["id"], t.ids.A1) }), 422, "VALIDATION_FAILED");
  });

  it("type.name, created_at and updated_at", async () => {
    expect(await q(p("eq", ["type", "name"], "Item"))).toEqual(["A1", "A2", "A3", "A4", "A5"]);
    expect(await q(p("eq", ["type", "name"], "Maker"))).toEqual([]);
    expect(await q(p("gt", ["created_at"], "2000-01-01T00:00:00Z"))).toHaveLength(5);
    expect(await q(p("lt", ["updated_at"], "2000-01-01"))).toEqual([]);
    const err = expectError(await query({ filter: p("eq", ["created_at"], "yesterday") }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["filter.value: must be an RFC 3339 timestamp"]);
  });

  it("a path that names nothing matches nothing, without an error", async () => {
    expect(await q(p("eq", ["colour"], "red"))).toEqual([]);
    expect(await q(p("eq", attr("nope"), 1))).toEqual([]);
    expect(await q({ operator: "not", filters: [p("eq", attr("nope"), 1)] })).toEqual(["A1", "A2", "A3", "A4", "A5"]);
  });
});

describe("indexed attributes compare by their declared type", () => {
  it("text (searchable): eq, neq, in, ranges by code point, like, ilike, is null", async () => {
    expect(await q(p("eq", attr("color"), "red"))).toEqual(["A1", "A4"]);
    expect(await q(p("neq", attr("color"), "red"))).toEqual(["A2", "A3", "A5"]);
    expect(await q(p("in", attr("color"), ["blue", "green"]))).toEqual(["A2", "A3"]);
    // Code-point order: "Rouge" < "m" < "red".
    expect(await q(p("gt", attr("color"), "m"))).toEqual(["A1", "A4"]);
    expect(await q(p("like", attr("color"), "r%"))).toEqual(["A1", "A4"]);
    expect(await q(p("ilike", attr("color"), "R%"))).toEqual(["A1", "A4", "A5"]);
    expect(await q(p("is", attr("color"), null))).toEqual([]);
    expect(await q(p("fuzzy", attr("color"), "gren", { threshold: 0.3 }))).toEqual(["A3"]);
  });

  it("text: segment matches one pipe-delimited segment", async () => {
    expect(await q(p("segment", attr("code"), "y"))).toEqual(["A1", "A2"]);
    expect(await q(p("segment", attr("code"), "x"))).toEqual(["A1", "A4"]);
    expect(await q(p("segment", attr("code"), "x|y"))).toEqual([]);
    expect(await q(p("segment", attr("code"), "%"))).toEqual([]);
  });

  it("numeric: ranges, in, eq", async () => {
    expect(await q(p("gt", attr("price"), 9.5))).toEqual(["A1", "A3", "A4", "A5"]);
    expect(await q(p("lte", attr("price"), 10))).toEqual(["A1", "A2", "A5"]);
    expect(await q(p("in", attr("price"), [10, 100]))).toEqual(["A1", "A3", "A5"]);
    expect(await q(p("eq", attr("price"), 250.5))).toEqual(["A4"]);
    expect(await q(p("lt", attr("price"), -1e300))).toEqual([]);
  });

  it("timestamptz: ranges and is null", async () => {
    expect(await q(p("gte", attr("due"), "2026-01-01T00:00:00Z"))).toEqual(["A1", "A2", "A3"]);
    expect(await q(p("lt", attr("due"), "2026-01-01T00:00:00+00:00"))).toEqual(["A5"]);
    expect(await q(p("eq", attr("due"), "2025-12-31T23:59:59.500Z"))).toEqual(["A5"]);
    expect(await q(p("is", attr("due"), null))).toEqual(["A4"]);
  });

  it("boolean: is true/false/null, eq", async () => {
    expect(await q(p("is", attr("active"), true))).toEqual(["A1", "A3"]);
    expect(await q(p("eq", attr("active"), false))).toEqual(["A2", "A4"]);
    expect(await q(p("is", attr("active"), null))).toEqual(["A5"]);
  });

  it("text_array: cs contains all, ov any", async () => {
    expect(await q(p("cs", attr("tags"), ["home"]))).toEqual(["A1", "A2", "A3"]);
    expect(await q(p("cs", attr("tags"), ["home", "wood"]))).toEqual(["A1"]);
    expect(await q(p("ov", attr("tags"), ["light", "wood"]))).toEqual(["A1", "A3", "A5"]);
    expect(await q(p("ov", attr("tags"), []))).toEqual([]);
  });

  it("a value of the wrong type or an operator that does not apply is 422 naming the place", async () => {
    const cases: [unknown, string][] = [
      [p("eq", attr("price"), "10"), "filter.value: must be a number for attributes.price (indexed numeric)"],
      [p("like", attr("price"), "1%"), "filter.operator: like does not apply to attributes.price (indexed numeric)"],
      [p("eq", attr("color"), 5), "filter.value: must be a string for attributes.color (indexed text)"],
      [p("gt", attr("active"), true), "filter.operator: gt does not apply to attributes.active (indexed boolean)"],
      [p("eq", attr("tags"), "home"), "filter.operator: eq does not apply to attributes.tags (indexed text_array)"],
      [p("cs", attr("tags"), [1]), "filter.value: must be an array of strings for cs"],
      [
        { operator: "and", filters: [p("in", attr("due"), ["2026-01-01", "soon"])] },
        "filter.filters[0].value[1]: must be an RFC 3339 timestamp for attributes.due (indexed timestamptz)",
      ],
    ];
    for (const [filter, line] of cases) {
      const err = expectError(await query({ filter }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([line]);
    }
  });
});

describe("unindexed attributes compare as JSON", () => {
  it("eq and neq never equate a string and a number; neq does not match a missing attribute", async () => {
    expect(await q(p("eq", attr("qty"), 3))).toEqual(["A1"]);
    expect(await q(p("eq", attr("qty"), "3"))).toEqual(["A2"]);
    expect(await q(p("neq", attr("qty"), 3))).toEqual(["A2", "A3", "A4"]);
    expect(await q(p("in", attr("qty"), [10, "3"]))).toEqual(["A2", "A3"]);
  });

  it("ranges compare numbers with numbers and strings with strings", async () => {
    expect(await q(p("gt", attr("qty"), 2))).toEqual(["A1", "A3"]);
    expect(await q(p("gte", attr("qty"), "3"))).toEqual(["A2"]);
  });

  it("is null matches JSON null and missing; nested fields are further path segments", async () => {
    expect(await q(p("is", attr("qty"), null))).toEqual(["A4", "A5"]);
    expect(await q(p("gte", attr("dims", "w"), 40))).toEqual(["A1", "A2"]);
    expect(await q(p("is", attr("dims", "w"), null))).toEqual(["A4", "A5"]);
  });

  it("like and ilike are accent-insensitive; fuzzy without an index is a substring match", async () => {
    expect(await q(p("ilike", attr("note"), "%cafe%"))).toEqual(["A1", "A5"]);
    expect(await q(p("like", attr("note"), "Cafe%"))).toEqual(["A1"]);
    expect(await q(p("fuzzy", attr("note"), "CRÈME"))).toEqual(["A1"]);
    expect(await q(p("segment", attr("note"), "plain"))).toEqual(["A2"]);
    expect(await q(p("cs", attr("tags2"), ["x"]))).toEqual([]);
  });

  it("hostile attribute names and values are data, not SQL", async () => {
    expect(await q(p("eq", attr("x'); DROP TABLE entities; --"), "'; DELETE FROM entities; --"))).toEqual([]);
    expect(await q(p("like", attr('a"b\\c'), "%"))).toEqual([]);
    expect(await skus(t.auth, {})).toEqual(["A1", "A2", "A3", "A4", "A5"]);
    const err = expectError(await query({ filter: p("eq", attr("a\u0000b"), 1) }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["filter.path[1]: must not contain NUL characters or unpaired surrogates"]);
    expectError(await query({ filter: p("eq", attr("a"), "\ud800") }), 422, "VALIDATION_FAILED");
  });
});

describe("relationship paths resolve in either direction", () => {
  it("filters on the related row's attributes", async () => {
    expect(await q(p("eq", ["relationships", "Maker", "attributes", "country"], "DE"))).toEqual(["A1", "A3"]);
    expect(await q(p("eq", ["relationships", "Maker", "name"], "Bolt"))).toEqual(["A2"]);
    const makers = await call("POST", "/entity/query", {
      auth: t.auth,
      body: { type_name: "Maker", filter: p("eq", ["relationships", "Item", "attributes", "color"], "green") },
    });
    expect(makers.json.data.map((m: { name: string }) => m.name)).toEqual(["Acme"]);
  });

  it("exists, not exists, rel_exists on one related row, and the connecting rule's name", async () => {
    expect(await q(p("exists", ["relationships", "Maker"]))).toEqual(["A1", "A2", "A3"]);
    expect(await q({ operator: "not", filters: [p("exists", ["relationships", "Maker"])] })).toEqual(["A4", "A5"]);
    expect(
      await q(p("rel_exists", ["relationships", "Maker"], { operator: "and", filters: [p("eq", attr("country"), "FR"), p("gt", attr("size"), 10)] })),
    ).toEqual(["A2"]);
    expect(
      await q(p("rel_exists", ["relationships", "Maker"], { operator: "and", filters: [p("eq", attr("country"), "DE"), p("gt", attr("size"), 10)] })),
    ).toEqual([]);
    expect(await q(p("eq", ["relationships", "rule", "name"], "made_by"))).toEqual(["A1", "A2", "A3"]);
    expect(await q(p("like", ["relationships", "rule", "name"], "owned%"))).toEqual([]);
  });

  it("an unknown related type matches nothing; misuse is 422", async () => {
    expect(await q(p("eq", ["relationships", "Nope", "name"], "x"))).toEqual([]);
    expect(await q(p("exists", ["relationships", "Nope"]))).toEqual([]);
    expectError(await query({ filter: p("eq", ["relationships", "Maker"], "x") }), 422, "VALIDATION_FAILED");
    expectError(await query({ filter: p("exists", ["name"]) }), 422, "VALIDATION_FAILED");
    expectError(await query({ filter: p("rel_exists", ["relationships", "Maker"], "x") }), 422, "VALIDATION_FAILED");
  });
});

describe("composites", () => {
  it("and, or, not (the exact complement), empty and/or", async () => {
    const blueOrPricey = { operator: "or", filters: [p("eq", attr("color"), "blue"), p("gt", attr("price"), 200)] };
    expect(await q(blueOrPricey)).toEqual(["A2", "A4"]);
    expect(await q({ operator: "not", filters: [blueOrPricey] })).toEqual(["A1", "A3", "A5"]);
    expect(await q({ operator: "and", filters: [p("eq", attr("color"), "red"), { operator: "not", filters: [p("is", attr("active"), true)] }] })).toEqual([
      "A4",
    ]);
    expect(await q({ operator: "and", filters: [] })).toHaveLength(5);
    expect(await q({ operator: "or", filters: [] })).toEqual([]);
  });

  it("25 nested composites are accepted, 26 are 422", async () => {
    const nest = (levels: number) => {
      let f: unknown = p("eq", attr("color"), "red");
      for (let i = 0; i < levels; i++) f = { operator: i % 2 ? "and" : "or", filters: [f] };
      return f;
    };
    expect(await q(nest(25))).toEqual(["A1", "A4"]);
    const err = expectError(await query({ filter: nest(26) }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors[0]).toMatch(/filters nest at most 25 levels/);
  });

  it("an optional particle without a value is left out", async () => {
    expect(await q({ operator: "and", filters: [p("eq", attr("color"), "", { optional: true }), p("eq", attr("price"), 10)] })).toEqual(["A1", "A5"]);
    expect(await q(p("in", attr("color"), [], { optional: true }))).toHaveLength(5);
  });

  it("malformed filters are 422 with the place named", async () => {
    const cases: [unknown, string][] = [
      [{ operator: "between", path: ["name"], value: 1 }, "filter.operator: must be one of"],
      [{ path: ["name"], value: 1 }, "filter.operator: is required"],
      [{ operator: "eq", value: 1 }, "filter.path: must be an array of 1 to 12 strings"],
      [{ operator: "eq", path: [], value: 1 }, "filter.path: must be an array of 1 to 12 strings"],
      [{ operator: "eq", path: ["name", 3], value: 1 }, "filter.path[1]: must be a non-empty string"],
      [{ operator: "and", filters: [p("eq", ["name"], "x")], path: ["name"] }, "filter.path: is not allowed on a composite"],
      [{ operator: "or", filters: "x" }, "filter.filters: must be an array"],
      [{ operator: "not", filters: [] }, "filter.filters: must not be empty for not"],
      [p("eq", ["name"], null), "filter.value: must not be null for eq (use is)"],
      [p("in", ["name"], "x"), "filter.value: must be an array for in"],
      [p("fuzzy", ["name"], "x", { threshold: 2 }), "filter.threshold: must be a number from 0 to 1"],
      [p("eq", ["name"], "x", { colour: 1 }), "filter.colour: is not allowed on a particle"],
    ];
    for (const [filter, line] of cases) {
      const err = expectError(await query({ filter }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors[0].startsWith(line), `${JSON.stringify(filter)} -> ${err.details.validation_errors[0]}`).toBe(true);
    }
    expectError(await query({ filter: "name = 'x'" }), 422, "VALIDATION_FAILED");
  });
});

describe("sorting", () => {
  it("typed on sortable attributes and columns, text otherwise, id breaking ties in the last key's direction", async () => {
    const byPriceDesc = await skus(t.auth, { sort: [{ path: attr("price"), direction: "desc" }] }, true);
    const tie = [t.ids.A1, t.ids.A5]
      .sort()
      .reverse()
      .map((id) => (id === t.ids.A1 ? "A1" : "A5"));
    expect(byPriceDesc).toEqual(["A4", "A3", ...tie, "A2"]);
    expect(await skus(t.auth, { sort: [{ path: ["name"] }] }, true)).toEqual(["A2", "A5", "A3", "A1", "A4"]);
    // qty is not indexed: "10" sorts before "3"; JSON null and missing come last.
    const byQty = await skus(t.auth, { sort: [{ path: attr("qty"), direction: "asc" }] }, true);
    expect(byQty[0]).toBe("A3");
    expect(new Set(byQty.slice(1, 3))).toEqual(new Set(["A1", "A2"]));
    expect(new Set(byQty.slice(3))).toEqual(new Set(["A4", "A5"]));
    expectError(await query({ sort: [{ path: ["relationships", "Maker", "name"] }] }), 422, "VALIDATION_FAILED");
    expectError(await query({ sort: [{ path: ["name"], direction: "up" }] }), 422, "VALIDATION_FAILED");
  });
});

async function walk(body: Record<string, unknown>, auth = t.auth, typeName = "Item") {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const res = await call("POST", "/entity/query", { auth, body: { type_name: typeName, ...body, ...(cursor ? { cursor } : {}) } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    seen.push(...res.json.data.map((e: { id: string }) => e.id));
    cursor = res.json.next_cursor;
    if (!cursor) return seen;
  }
  throw new Error("did not reach the end");
}

describe("keyset paging", () => {
  it("pages by keyset by default, next_cursor only on a full page, in the order of sort (missing values last ascending, first descending)", async () => {
    const first = await query({ limit: 2, sort: [{ path: attr("due") }] });
    expect(first.json.data).toHaveLength(2);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    expect(first.json.pagination).toBeUndefined();
    const asc = await walk({ limit: 2, sort: [{ path: attr("due") }] });
    expect(asc).toEqual(["A5", "A1", "A2", "A3", "A4"].map((s) => t.ids[s]));
    const desc = await walk({ limit: 2, sort: [{ path: attr("due"), direction: "desc" }] });
    expect(desc).toEqual(["A4", "A3", "A2", "A1", "A5"].map((s) => t.ids[s]));
    const mixed = await walk({ limit: 1, sort: [{ path: attr("color") }, { path: attr("price"), direction: "desc" }] });
    expect(mixed).toEqual(["A5", "A2", "A3", "A4", "A1"].map((s) => t.ids[s]));
  });

  it("walks 250 rows in pages of 37 with no duplicates and no gaps against an exact count", async () => {
    const u = await createTenant();
    await createType(u.auth, {
      name: "Row",
      schema: { type: "object" },
      config: { identifier_key: ["n"], indexed_attributes: [{ path: ["n"], type: "numeric", sortable: true }] },
    });
    const data = Array.from({ length: 250 }, (_, i) => ({ name: `r${i % 7}`, attributes: { n: i % 50, ...(i % 11 === 0 ? {} : { g: i % 3 }) } }));
    // identifier_key n repeats every 50 rows, so give each its own key.
    data.forEach((d, i) => (d.attributes.n = i));
    expect((await call("POST", "/entity/entities/upsert", { auth: u.auth, body: { type_name: "Row", data } })).status).toBe(200);
    const count = await call("POST", "/entity/query", { auth: u.auth, body: { type_name: "Row", include_count: true, count_strategy: "exact", limit: 1 } });
    expect(count.json.count).toBe(250);
    for (const sort of [
      undefined,
      [{ path: ["name"] }],
      [{ path: ["attributes", "g"], direction: "desc" }],
      [{ path: ["attributes", "n"], direction: "desc" }],
    ]) {
      const ids = await walk({ limit: 37, ...(sort ? { sort } : {}) }, u.auth, "Row");
      expect(ids).toHaveLength(250);
      expect(new Set(ids).size).toBe(250);
    }
  });

  it("a tampered cursor, a cursor of another query, or cursor with page is 422", async () => {
    const first = await query({ limit: 1 });
    const cursor: string = first.json.next_cursor;
    const [payload, sig] = cursor.split(".");
    const forged = `${btoa(JSON.stringify(["00000000-0000-0000-0000-000000000000"])).replace(/=+$/, "")}.${sig}`;
    expectError(await query({ limit: 1, cursor: forged }), 422, "VALIDATION_FAILED");
    expectError(await query({ limit: 1, cursor: `${payload}.${sig.slice(0, -2)}AA` }), 422, "VALIDATION_FAILED");
    expectError(await query({ limit: 1, cursor, sort: [{ path: ["name"] }] }), 422, "VALIDATION_FAILED");
    expectError(await query({ limit: 1, cursor, page: 2 }), 422, "VALIDATION_FAILED");
    const second = await query({ limit: 1, cursor });
    expect(second.status).toBe(200);
    expect(second.json.data[0].id).not.toBe(first.json.data[0].id);
  });
});

describe("offset paging and counts", () => {
  it("page gives the pagination envelope", async () => {
    const res = await query({ page: 2, limit: 2, sort: [{ path: ["name"] }] });
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { attributes: { sku: string } }) => e.attributes.sku)).toEqual(["A3", "A1"]);
    expect(res.json.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect(res.json.next_cursor).toBeUndefined();
  });

  it("include_count with each strategy; limit and page bounds", async () => {
    const filter = p("eq", attr("color"), "red");
    const capped = await query({ filter, include_count: true });
    expect([capped.json.count, capped.json.count_strategy]).toEqual([2, "capped"]);
    const exact = await query({ filter, include_count: true, count_strategy: "exact" });
    expect([exact.json.count, exact.json.count_strategy]).toEqual([2, "exact"]);
    const estimate = await query({ include_count: true, count_strategy: "estimate" });
    expect(estimate.json.count_strategy).toBe("estimate");
    expect(Number.isInteger(estimate.json.count) && estimate.json.count >= 0).toBe(true);
    expectError(await query({ limit: 1001 }), 422, "VALIDATION_FAILED");
    expectError(await query({ limit: 0 }), 422, "VALIDATION_FAILED");
    expectError(await query({ page: 1_000_001 }), 422, "VALIDATION_FAILED");
    expectError(await query({ count_strategy: "roughly" }), 422, "VALIDATION_FAILED");
  });

  it("the capped count stops at 10,000; exact does not", async () => {
    const u = await createTenant();
    await createType(u.auth, { name: "Dot", schema: { type: "object" }, config: { identifier_key: ["i"] } });
    const data = Array.from({ length: 10_001 }, (_, i) => ({ name: "d", attributes: { i } }));
    expect((await call("POST", "/entity/entities/upsert", { auth: u.auth, body: { type_name: "Dot", data, suppress_events: true } })).status).toBe(200);
    const capped = await call("POST", "/entity/query", { auth: u.auth, body: { type_name: "Dot", include_count: true, limit: 1 } });
    expect(capped.json.count).toBe(10_000);
    const exact = await call("POST", "/entity/query", { auth: u.auth, body: { type_name: "Dot", include_count: true, count_strategy: "exact", limit: 1 } });
    expect(exact.json.count).toBe(10_001);
  }, 60_000);
});

describe("the answer's entities", () => {
  it("are exactly what GET /entity/entities/{id} shows, timestamps included, with includes attached", async () => {
    const res = await query({ sort: [{ path: attr("sku") }], include: ["Maker"] });
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { attributes: { sku: string } }) => e.attributes.sku)).toEqual(["A1", "A2", "A3", "A4", "A5"]);
    for (const e of res.json.data) {
      const got = await call("GET", `/entity/entities/${e.id}?include=Maker`, { auth: t.auth });
      expect(e).toEqual(got.json.data);
      expect(e.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*[1-9])?Z$/);
    }
  });

  it("write timestamps as GET does: UTC, trailing zeros of the fraction dropped, no dot for whole seconds", async () => {
    const tenant = await createTenant("query-timestamps");
    await createType(tenant.auth, { name: "Stamp", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const stamps = { a: "2026-01-02 03:04:05+00", b: "2026-01-02 03:04:10.5+00", c: "2026-01-02 03:04:05.12345+02", d: "1999-12-31 23:59:59.000001+00" };
    for (const [k, at] of Object.entries(stamps)) {
      const e = (await call("POST", "/entity/entities", { auth: tenant.auth, body: { type_name: "Stamp", name: k, attributes: { k } } })).json.data;
      await systemQuery("UPDATE entities SET created_at = $1 WHERE id = $2", [at, e.id]);
    }
    const res = await call("POST", "/entity/query", { auth: tenant.auth, body: { type_name: "Stamp", sort: [{ path: ["name"] }] } });
    expect(res.json.data.map((e: { created_at: string }) => e.created_at)).toEqual([
      "2026-01-02T03:04:05Z",
      "2026-01-02T03:04:10.5Z",
      "2026-01-02T01:04:05.12345Z",
      "1999-12-31T23:59:59.000001Z",
    ]);
    for (const e of res.json.data) expect(e).toEqual((await call("GET", `/entity/entities/${e.id}`, { auth: tenant.auth })).json.data);
  });

  it("carry an updated_at that a compare-and-swap PATCH accepts", async () => {
    const auth = (await createTenant("query-cas")).auth;
    await createType(auth, { name: "Note", schema: { type: "object" }, config: { identifier_key: ["v"] } });
    const created = await call("POST", "/entity/entities", { auth, body: { type_name: "Note", name: "n1", attributes: { v: 1 } } });
    const [found] = (await call("POST", "/entity/query", { auth, body: { type_name: "Note" } })).json.data;
    expect(found.updated_at).toBe(created.json.data.updated_at);
    const patched = await call("PATCH", `/entity/entities/${found.id}/attributes`, {
      auth,
      body: { attributes: { v: 2 }, expected_updated_at: found.updated_at },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data.attributes).toEqual({ v: 2 });
  });
});

describe("entity types read by queries", () => {
  it("follow a patch at once, for the queried type and for a related type of a relationship path", async () => {
    const auth = (await createTenant("query-type-change")).auth;
    const counter = await createType(auth, { name: "Counter", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    const ownerType = await createType(auth, { name: "Owner", schema: { type: "object" }, config: { identifier_key: ["k"] } });
    expect(
      (await call("POST", "/entity/relationship-rules", { auth, body: { name: "owned_by", from_entity_type_name: "Counter", to_entity_type_name: "Owner" } }))
        .status,
    ).toBe(201);
    const c9 = (await call("POST", "/entity/entities", { auth, body: { type_name: "Counter", name: "nine", attributes: { k: "a", v: "9" } } })).json.data;
    await call("POST", "/entity/entities", { auth, body: { type_name: "Counter", name: "ten", attributes: { k: "b", v: "10" } } });
    const owner = (await call("POST", "/entity/entities", { auth, body: { type_name: "Owner", name: "o", attributes: { k: "o", v: "10" } } })).json.data;
    expect((await call("POST", "/entity/relationships", { auth, body: { rule_name: "owned_by", from_entity_id: c9.id, to_entity_id: owner.id } })).status).toBe(
      201,
    );
    const names = async (type_name: string, filter: unknown) => {
      const res = await call("POST", "/entity/query", { auth, body: { type_name, filter, sort: [{ path: ["name"] }] } });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.data.map((e: { name: string }) => e.name);
    };
    const gt9 = p("gt", attr("v"), 9);
    const ownerGt9 = p("gt", ["relationships", "Owner", "attributes", "v"], 9);
    // Unindexed, "10" is a JSON string and never greater than the number 9.
    expect(await names("Counter", gt9)).toEqual([]);
    expect(await names("Counter", ownerGt9)).toEqual([]);

    const numeric = { config: { indexed_attributes: [{ path: ["v"], type: "numeric" }] } };
    expect((await call("PATCH", `/entity/entity-types/${counter.id}`, { auth, body: numeric })).status).toBe(200);
    expect(await names("Counter", gt9)).toEqual(["ten"]);
    expect(await names("Counter", ownerGt9)).toEqual([]);

    expect((await call("PATCH", `/entity/entity-types/${ownerType.id}`, { auth, body: numeric })).status).toBe(200);
    expect(await names("Counter", ownerGt9)).toEqual(["nine"]);
  });
});

describe("includes", () => {
  it("include loads related entities in either direction", async () => {
    const res = await query({ filter: p("eq", ["name"], "Red Chair"), include: ["Maker"] });
    expect(res.json.data[0].relationships).toEqual([
      {
        rule: { id: expect.any(String), name: "made_by" },
        direction: "to",
        entity: { id: t.makerIds.acme, name: "Acme", type: { id: expect.any(String), name: "Maker" }, attributes: { code: "acme", country: "DE", size: 5 } },
      },
    ]);
    const none = await query({ filter: p("eq", ["name"], "Red Sofa"), include: ["Maker"] });
    expect(none.json.data[0].relationships).toEqual([]);
    const makers = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Maker", filter: p("eq", ["name"], "Acme"), include: ["Item"] } });
    const rels = makers.json.data[0].relationships;
    expect(rels.map((r: { direction: string }) => r.direction)).toEqual(["from", "from"]);
    expect(rels.map((r: { entity: { id: string } }) => r.entity.id).sort()).toEqual([t.ids.A1, t.ids.A3].sort());
  });

  it("include_specs filter, sort and limit the related rows; max_relationships caps them; nested include is 422", async () => {
    const body = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      auth: t.auth,
      body: { type_name: "Maker", filter: p("eq", ["name"], "Acme"), include_specs: [{ type_name: "Item", ...spec }], ...extra },
    });
    const related = async (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const res = await call("POST", "/entity/query", body(spec, extra));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.data[0].relationships.map((r: { entity: { attributes: { sku: string } } }) => r.entity.attributes.sku);
    };
    expect(await related({ filter: p("eq", attr("color"), "green") })).toEqual(["A3"]);
    expect(await related({ filter: p("fuzzy", attr("color"), "gren", { threshold: 0.3 }) })).toEqual(["A3"]);
    expect(await related({ sort: [{ path: attr("price"), direction: "desc" }] })).toEqual(["A3", "A1"]);
    expect(await related({ sort: [{ path: attr("price") }], limit: 1 })).toEqual(["A1"]);
    expect(await related({ sort: [{ path: attr("price"), direction: "desc" }] }, { max_relationships: 1 })).toEqual(["A3"]);
    expect(await related({ rule_name: "other_rule" })).toEqual([]);
    expectError(await call("POST", "/entity/query", body({ include: [{ type_name: "Maker" }] })), 422, "VALIDATION_FAILED");
    expectError(await call("POST", "/entity/query", body({ filter: p("eq", attr("color"), 1) })), 422, "VALIDATION_FAILED");
  });
});

describe("distinct_on", () => {
  it("keeps the most recently updated row per combination unless distinct_on.sort says otherwise", async () => {
    const patched = await call("PATCH", `/entity/entities/${t.ids.A1}/attributes`, { auth: t.auth, body: { attributes: { qty: 4 } } });
    expect(patched.status).toBe(200);
    const latest = await skus(t.auth, { distinct_on: { paths: [attr("color")] }, sort: [{ path: attr("color") }] }, true);
    expect(latest).toEqual(["A5", "A2", "A3", "A1"]);
    const priciest = await skus(
      t.auth,
      { distinct_on: { paths: [attr("color")], sort: [{ path: attr("price"), direction: "desc" }] }, sort: [{ path: attr("color") }] },
      true,
    );
    expect(priciest).toEqual(["A5", "A2", "A3", "A4"]);
    const pairs = await skus(t.auth, { distinct_on: { paths: [attr("color"), attr("active")] } });
    expect(pairs).toEqual(["A1", "A2", "A3", "A4", "A5"]);
    const counted = await query({ distinct_on: { paths: [attr("color")] }, include_count: true, count_strategy: "exact" });
    expect(counted.json.count).toBe(4);
    expectError(await query({ distinct_on: { paths: [["name"], ["id"], ["name"], ["id"], ["name"], ["id"]] } }), 422, "VALIDATION_FAILED");
  });
});

describe("POST /entity/query/distinct", () => {
  const distinct = (body: Record<string, unknown>, auth = t.auth) => call("POST", "/entity/query/distinct", { auth, body: { type_name: "Item", ...body } });

  it("answers the distinct values of an indexed attribute, typed and ascending", async () => {
    expect((await distinct({ attribute_name: "color" })).json.data).toEqual(["Rouge", "blue", "green", "red"]);
    expect((await distinct({ attribute_name: "price" })).json.data).toEqual([9, 10, 100, 250.5]);
    expect((await distinct({ attribute_name: "tags" })).json.data).toEqual(["home", "light", "wood"]);
    expect((await distinct({ attribute_name: "active" })).json.data).toEqual([false, true]);
    expect((await distinct({ attribute_name: "color", filter: p("is", attr("active"), true) })).json.data).toEqual(["green", "red"]);
    expect((await distinct({ attribute_name: "color", limit: 2 })).json.data).toEqual(["Rouge", "blue"]);
  });

  it("takes a fuzzy filter (its similarity threshold holds for the statement), twice on one isolate", async () => {
    for (const threshold of [0.3, 0.9]) {
      const res = await distinct({ attribute_name: "price", filter: p("fuzzy", attr("color"), "gren", { threshold }) });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.data).toEqual(threshold === 0.3 ? [100] : []);
    }
  });

  it("refuses unindexed attributes (422) and unknown types (404)", async () => {
    expectError(await distinct({ attribute_name: "qty" }), 422, "VALIDATION_FAILED");
    expectError(await distinct({ attribute_name: "color", type_name: "Nope" }), 404, "NOT_FOUND");
    expectError(await distinct({}), 422, "VALIDATION_FAILED");
  });
});

describe("access", () => {
  it("needs credentials, and sees only the caller's tenant", async () => {
    expectError(await query({}, ""), 401, "UNAUTHORIZED");
    expectError(await query({}, "Basic bm9wZTpub3Bl"), 401, "UNAUTHORIZED");
    const other = await createTenant();
    expectError(await query({}, other.auth), 404, "NOT_FOUND");
    await createType(other.auth, { name: "Item", schema: { type: "object" }, config: { identifier_key: ["sku"] } });
    expect((await query({}, other.auth)).json.data).toEqual([]);
    expect((await query({ filter: p("eq", ["id"], t.ids.A1) }, other.auth)).json.data).toEqual([]);
    expect((await call("POST", "/entity/query/distinct", { auth: other.auth, body: { type_name: "Item", attribute_name: "color" } })).status).toBe(422);
  });

  it("a tenant with the same type names, indexes and rules sees only its own rows, values and links", async () => {
    const other = await createTenant();
    await createType(other.auth, { name: "Item", schema: { type: "object" }, config: itemConfig });
    await createType(other.auth, { name: "Maker", schema: { type: "object" }, config: { identifier_key: ["code"] } });
    expect(
      (
        await call("POST", "/entity/relationship-rules", {
          auth: other.auth,
          body: { name: "made_by", from_entity_type_name: "Item", to_entity_type_name: "Maker" },
        })
      ).status,
    ).toBe(201);
    const item = (
      await call("POST", "/entity/entities", {
        auth: other.auth,
        body: { type_name: "Item", name: "Other Chair", attributes: { sku: "Z1", color: "purple", price: 10 } },
      })
    ).json.data;
    const maker = (await call("POST", "/entity/entities", { auth: other.auth, body: { type_name: "Maker", name: "Zeta", attributes: { code: "zeta" } } })).json
      .data;
    expect(
      (await call("POST", "/entity/relationships", { auth: other.auth, body: { rule_name: "made_by", from_entity_id: item.id, to_entity_id: maker.id } }))
        .status,
    ).toBe(201);

    const theirs = (body: Record<string, unknown>) => call("POST", "/entity/query", { auth: other.auth, body: { type_name: "Item", ...body } });
    expect((await theirs({ filter: p("eq", attr("price"), 10) })).json.data.map((e: { name: string }) => e.name)).toEqual(["Other Chair"]);
    expect((await theirs({ filter: p("eq", ["relationships", "Maker", "attributes", "code"], "acme") })).json.data).toEqual([]);
    const [withMaker] = (await theirs({ include: ["Maker"] })).json.data;
    expect(withMaker.relationships.map((r: { entity: { name: string } }) => r.entity.name)).toEqual(["Zeta"]);
    const values = await call("POST", "/entity/query/distinct", { auth: other.auth, body: { type_name: "Item", attribute_name: "color" } });
    expect(values.json.data).toEqual(["purple"]);
    // And the first tenant, served from the same isolate's type cache, still sees only its own.
    expect(await q(p("eq", attr("color"), "purple"))).toEqual([]);
    expect((await call("POST", "/entity/query/distinct", { auth: t.auth, body: { type_name: "Item", attribute_name: "color" } })).json.data).toEqual([
      "Rouge",
      "blue",
      "green",
      "red",
    ]);
  });

  it("needs entity:read", async () => {
    const role = await call("POST", "/access/roles", { auth: t.auth, body: { name: "types-only", permissions: ["entity_type:read"] } });
    expect(role.status).toBe(201);
    const pat = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "limited", role_names: ["types-only"] } });
    expect(pat.status).toBe(201);
    const limited = `Basic ${btoa(`${pat.json.data.client_id}:${pat.json.data.client_secret}`)}`;
    expectError(await query({}, limited), 403, "FORBIDDEN");
    expectError(await call("POST", "/entity/query/distinct", { auth: limited, body: { type_name: "Item", attribute_name: "color" } }), 403, "FORBIDDEN");
  });
});
