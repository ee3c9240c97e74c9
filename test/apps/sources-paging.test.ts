// The pure parts of an app page's data sources: a paged source's window from
// the grid's state and every total rule, and how a resolved `$query` filter
// is made ready (optional particles left out, unresolved ones matching
// nothing, `search` as a filter).
import { describe, expect, it } from "vitest";
import { bothFilters, MATCHES_NOTHING, prepareFilter, searchFilter } from "../../src/apps/render/sources/filter";
import { pagedTotal, pagingOf } from "../../src/apps/render/sources/paging";
import { gridFilter, gridPath } from "../../src/apps/render/sources/query";
import { windowAt } from "../../src/entity/query/service";
import type { ApiError } from "../../src/lib/errors";

const scopeWith = (dataGrid: unknown) => ({ page: { widgets: { grid: { state: { data_grid: dataGrid } } } } });

describe("paging window", () => {
  it("reads the grid's page, size, sorting and filters", () => {
    expect(pagingOf(scopeWith({ page: 3, pageSize: 50, sorting: [{ id: "name", desc: true }], filters: { status: "open" } }), "grid")).toEqual({
      page: 3,
      pageSize: 50,
      offset: 100,
      sortBy: "name",
      desc: true,
      filters: { status: "open" },
    });
  });

  it("clamps the page to at least 1 and defaults the size to 20", () => {
    expect(pagingOf(scopeWith({ page: 0 }), "grid")).toMatchObject({ page: 1, pageSize: 20, offset: 0, sortBy: null, desc: false, filters: {} });
    expect(pagingOf(scopeWith({ page: -4, pageSize: "x" }), "grid")).toMatchObject({ page: 1, pageSize: 20 });
    expect(pagingOf(scopeWith({ page: "2", pageSize: 10.7 }), "grid")).toMatchObject({ page: 2, pageSize: 10, offset: 10 });
    expect(pagingOf(scopeWith("hostile"), "grid")).toMatchObject({ page: 1, pageSize: 20 });
    expect(pagingOf(scopeWith({ page: 5 }), undefined)).toMatchObject({ page: 1, pageSize: 20 });
    expect(pagingOf({}, "grid")).toMatchObject({ page: 1, pageSize: 20 });
  });
});

describe("a paged $query's window", () => {
  it("caps the page size at the engine's limit", () => {
    expect(pagingOf(scopeWith({ page: 2, pageSize: 5000 }), "grid", 1000)).toMatchObject({ page: 2, pageSize: 1000, offset: 1000 });
  });

  it("reads a page from the nearer end of the order; past the end reads nothing", () => {
    expect(windowAt(100_000, { offset: 0, limit: 20 })).toEqual({ offset: 0, limit: 20, reverse: false });
    expect(windowAt(100_000, { offset: 99_980, limit: 20 })).toEqual({ offset: 0, limit: 20, reverse: true });
    expect(windowAt(105, { offset: 100, limit: 20 })).toEqual({ offset: 0, limit: 5, reverse: true });
    expect(windowAt(105, { offset: 60, limit: 20 })).toEqual({ offset: 25, limit: 20, reverse: true });
    // The middle: as many rows after as before stays forward.
    expect(windowAt(60, { offset: 20, limit: 20 })).toEqual({ offset: 20, limit: 20, reverse: false });
    expect(windowAt(40, { offset: 40, limit: 20 })).toEqual({ offset: 0, limit: 0, reverse: false });
    expect(windowAt(0, { offset: 0, limit: 20 })).toEqual({ offset: 0, limit: 0, reverse: false });
    expect(windowAt(10, { offset: Infinity, limit: 20 })).toEqual({ offset: 0, limit: 0, reverse: false });
  });

  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return [(err as ApiError).code, (err as ApiError).details.validation_errors];
    }
    throw new Error("expected a refusal");
  };

  it("a grid path is a query path: columns, type.name, attributes.<path>; anything else is refused", () => {
    expect(gridPath("s", "at", "attributes.meta.n")).toEqual(["attributes", "meta", "n"]);
    expect(gridPath("s", "at", "created_at")).toEqual(["created_at"]);
    expect(gridPath("s", "at", "type.name")).toEqual(["type", "name"]);
    expect(gridPath("s", "at", "attributes.Straße_2-b")).toEqual(["attributes", "Straße_2-b"]);
    expect(refusal(() => gridPath("s", "sorting[0].id", "attributes.a\u0000b"))).toEqual([
      "VALIDATION_FAILED",
      ['sorting[0].id: "attributes.a\\u0000b" is not a dotted row path (segments of letters, digits, _ and -)'],
    ]);
    for (const bad of [
      "type.id",
      "identifier_key",
      "attributes",
      "attributes.*",
      "attributes.a|b",
      "attributes.a b",
      "x".repeat(400),
      `attributes${".a".repeat(12)}`,
    ]) {
      expect(refusal(() => gridPath("s", "at", bad))[0]).toBe("VALIDATION_FAILED");
    }
  });

  it("grid filters become particles by the kind of their value", () => {
    expect(
      gridFilter("s", { name: "50%_x", "attributes.n": 3, "attributes.ok": false, "attributes.c": ["a"], "attributes.e": "", "attributes.z": null }),
    ).toEqual({
      operator: "and",
      filters: [
        { operator: "ilike", path: ["name"], value: "%50\\%\\_x%" },
        { operator: "eq", path: ["attributes", "n"], value: 3 },
        { operator: "eq", path: ["attributes", "ok"], value: false },
        { operator: "in", path: ["attributes", "c"], value: ["a"] },
      ],
    });
    expect(gridFilter("s", {})).toBeUndefined();
    expect(refusal(() => gridFilter("s", { "attributes.n": Number.NaN }))[0]).toBe("VALIDATION_FAILED");
  });
});

describe("paged totals", () => {
  const page2 = pagingOf(scopeWith({ page: 2, pageSize: 10 }), "grid");

  it("totalPath pointing at a number is the total", () => {
    expect(pagedTotal(page2, 10, { meta: { total: 57 } }, { totalPath: "meta.total" })).toBe(57);
    expect(pagedTotal(page2, 10, { meta: { total: 0 } }, { totalPath: "meta.total" })).toBe(0);
  });

  it("totalPath not at a number falls back to the next rule", () => {
    expect(pagedTotal(page2, 10, { meta: { total: "57" }, more: false }, { totalPath: "meta.total", hasNextPath: "more" })).toBe(20);
    expect(pagedTotal(page2, 10, {}, { totalPath: "meta.total" })).toBe(30);
  });

  it("hasNextPath: the rows so far, plus a page while it is truthy", () => {
    expect(pagedTotal(page2, 10, { next: "cursor-3" }, { hasNextPath: "next" })).toBe(30);
    expect(pagedTotal(page2, 10, { next: null }, { hasNextPath: "next" })).toBe(20);
    expect(pagedTotal(page2, 4, {}, { hasNextPath: "next" })).toBe(14);
    // A full page without a next marker is the last one.
    expect(pagedTotal(page2, 10, { next: false }, { hasNextPath: "next" })).toBe(20);
  });

  it("neither: the rows so far, plus a page while this page is full", () => {
    expect(pagedTotal(page2, 10, [], {})).toBe(30);
    expect(pagedTotal(page2, 3, [], {})).toBe(13);
    // An empty page past the end still reports the rows before it.
    expect(pagedTotal(page2, 0, [], {})).toBe(10);
  });
});

describe("filter particles", () => {
  const written = {
    operator: "and",
    filters: [
      { operator: "eq", path: ["attributes", "status"], value: "{{ page.params.status }}", optional: true },
      { operator: "in", path: ["attributes", "region"], value: "{{ page.params.regions }}", optional: true },
      { operator: "is", path: ["attributes", "closed_at"], value: "{{ page.params.closed }}", optional: true },
      { operator: "eq", path: ["attributes", "owner"], value: "{{ page.params.owner }}" },
    ],
  };

  it("leaves out optional particles resolving to nothing, an empty in list or an empty string, never null", () => {
    const resolved = {
      operator: "and",
      filters: [
        { operator: "eq", path: ["attributes", "status"], optional: true },
        { operator: "in", path: ["attributes", "region"], value: [], optional: true },
        { operator: "is", path: ["attributes", "closed_at"], value: null, optional: true },
        { operator: "eq", path: ["attributes", "owner"], value: "ada" },
      ],
    };
    expect(prepareFilter(written, resolved)).toEqual({
      filter: {
        operator: "and",
        filters: [
          { operator: "is", path: ["attributes", "closed_at"], value: null },
          { operator: "eq", path: ["attributes", "owner"], value: "ada" },
        ],
      },
      unresolved: false,
    });
    expect(
      prepareFilter({ operator: "eq", path: ["name"], value: "{{ x }}", optional: true }, { operator: "eq", path: ["name"], value: "", optional: true }),
    ).toEqual({ unresolved: false });
  });

  it("an unresolved particle that is not optional matches nothing and is reported", () => {
    const resolved = { operator: "and", filters: [{ operator: "eq", path: ["attributes", "owner"] }] };
    expect(prepareFilter({ operator: "and", filters: [written.filters[3]] }, resolved)).toEqual({
      filter: { operator: "and", filters: [MATCHES_NOTHING] },
      unresolved: true,
    });
    // A particle written without a value (exists) is not unresolved.
    const exists = { operator: "exists", path: ["relationships", "Customer"] };
    expect(prepareFilter(exists, exists)).toEqual({ filter: exists, unresolved: false });
  });

  it("a composite whose members were all left out is left out in turn", () => {
    const w = { operator: "or", filters: [{ operator: "and", filters: [written.filters[0]] }, written.filters[1]] };
    const r = {
      operator: "or",
      filters: [
        { operator: "and", filters: [{ operator: "eq", path: ["attributes", "status"], optional: true }] },
        { operator: "in", path: ["attributes", "region"], value: [], optional: true },
      ],
    };
    expect(prepareFilter(w, r)).toEqual({ unresolved: false });
  });

  it("search matches the name or a searchable attribute, its wildcards escaped; empty searches nothing", () => {
    expect(searchFilter("50%_off", [["sku"], ["meta", "title"]])).toEqual({
      operator: "or",
      filters: [
        { operator: "ilike", path: ["name"], value: "%50\\%\\_off%" },
        { operator: "ilike", path: ["attributes", "sku"], value: "%50\\%\\_off%" },
        { operator: "ilike", path: ["attributes", "meta", "title"], value: "%50\\%\\_off%" },
      ],
    });
    expect(searchFilter("", [["sku"]])).toBeUndefined();
    expect(searchFilter(undefined, [])).toBeUndefined();
    expect(bothFilters(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(bothFilters({ a: 1 }, { b: 2 })).toEqual({ operator: "and", filters: [{ a: 1 }, { b: 2 }] });
  });
});
