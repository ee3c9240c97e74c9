// A `$query` source with `paged: true` read by a data_grid, through the
// gateway (POST /apps/run): the grid's page, page size (default 20, at most
// 1000), sorting and filters become the query's window, sort and filter (with
// the source's own filter), the total is the exact count, the source's smart
// values see `paging`, the grid goes back to page 1 when a widget the source
// reads acts, and a grid path that names no query path fails that widget
// alone. Publish refuses a `paged` that is not a boolean.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { hostFor, hostProvider, type Host } from "./host-fixture";

let t: TenantCreds;
let host: Host;

const N = 45;
const COLORS = ["red", "green", "blue"];

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          dataSources: {
            // Its own filter keeps n <= 40; its `limit` gives way to the grid's page size.
            items: {
              $query: {
                typeName: "Item",
                paged: true,
                filter: { operator: "lte", path: ["attributes", "n"], value: 40 },
                sort: [{ path: ["attributes", "n"], direction: "asc" }],
                search: "{{ page.widgets.filter.state.q }}",
                limit: 5,
              },
            },
            // Matches the one item whose n the grid's paging computes.
            echo: {
              $query: {
                typeName: "Item",
                paged: true,
                filter: {
                  operator: "eq",
                  path: ["attributes", "n"],
                  value:
                    "{{ paging.offset + paging.page + (paging.desc ? 10 : 0) + (paging.sortBy = 'attributes.n' ? 20 : 0) + $count($keys(paging.filters)) + paging.pageSize / 100 }}",
                },
              },
            },
          },
          layout: [["filter", "grid", "echo"]],
          widgets: {
            filter: {
              widgetComponent: "text_input",
              actionHandlers: { change: [{ kind: "setWidgetState", widgetId: "filter", state: { q: "{{ payload.q }}" } }] },
            },
            grid: { widgetComponent: "data_grid", dataSource: "items" },
            echo: { widgetComponent: "data_grid", dataSource: "echo" },
          },
        },
      },
    },
  },
  providers: hostProvider,
  policies: { readers: { grants: [{ resource: "entity", actions: ["read"], resourceName: "Item" }] } },
  defaultPolicy: "readers",
};

beforeAll(async () => {
  t = await createTenant();
  await createType(t.auth, {
    name: "Item",
    schema: { type: "object", properties: { n: { type: "integer" }, color: { type: "string" }, active: { type: "boolean" }, label: { type: "string" } } },
    config: {
      identifier_key: ["label"],
      indexed_attributes: [
        { path: ["n"], type: "numeric", sortable: true },
        { path: ["color"], type: "text" },
        { path: ["label"], type: "text", searchable: true },
      ],
    },
  });
  const data = Array.from({ length: N }, (_, i) => {
    const n = i + 1;
    return { name: `Item ${n}`, attributes: { n, color: COLORS[n % 3], active: n % 2 === 0, label: `Label ${n}` } };
  });
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Item", data } });
  expect(res.status, res.text).toBe(200);
  host = await hostFor(spec, { tenant: t });
});

interface Answer {
  referenceData: Record<string, { rows: { name: string; attributes: { n: number; label: string } }[]; total: number }>;
  notifications: { id: string; level: string; message: string; details?: Record<string, unknown> }[];
  state: { widgets: Record<string, unknown> };
}

async function renderGrid(dataGrid: unknown, echo: unknown = {}, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await host.render({ state: { widgets: { grid: { data_grid: dataGrid }, echo: { data_grid: echo } } }, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json.data as Answer;
}

/** The grid's rows as their n, and its total. */
async function page(dataGrid: unknown): Promise<{ ns: number[]; total: number }> {
  const answer = await renderGrid(dataGrid);
  expect(answer.notifications).toEqual([]);
  const { rows, total } = answer.referenceData.grid;
  return { ns: rows.map((r) => r.attributes.n), total };
}

const range = (from: number, to: number) =>
  from <= to ? Array.from({ length: to - from + 1 }, (_, i) => from + i) : Array.from({ length: from - to + 1 }, (_, i) => from - i);

describe("paged $query: the window", () => {
  it("page 1 is the first pageSize rows (20 by default, the source's limit giving way); the total is the exact count of the source's filter", async () => {
    expect(await page({})).toEqual({ ns: range(1, 20), total: 40 });
    expect(await page({ page: 0 })).toEqual({ ns: range(1, 20), total: 40 });
    expect(await page({ page: 1, pageSize: 15 })).toEqual({ ns: range(1, 15), total: 40 });
  });

  it("page 2, the last page, pages read from the end, and a page past the end (no rows, the total kept)", async () => {
    expect(await page({ page: 2 })).toEqual({ ns: range(21, 40), total: 40 });
    expect(await page({ page: 2, pageSize: 15 })).toEqual({ ns: range(16, 30), total: 40 });
    // The last page is short.
    expect(await page({ page: 3, pageSize: 15 })).toEqual({ ns: range(31, 40), total: 40 });
    // Past the middle: read from the end (12 rows after it), folded back into order.
    expect(await page({ page: 4, pageSize: 7 })).toEqual({ ns: range(22, 28), total: 40 });
    expect(await page({ page: 6, pageSize: 7 })).toEqual({ ns: range(36, 40), total: 40 });
    expect(await page({ page: 4, pageSize: 15 })).toEqual({ ns: [], total: 40 });
    expect(await page({ page: 1e9, pageSize: 1000 })).toEqual({ ns: [], total: 40 });
  });

  it("sorts by the grid's sorting[0], ascending or descending, on every page", async () => {
    const desc = [{ id: "attributes.n", desc: true }];
    expect(await page({ pageSize: 5, sorting: desc })).toEqual({ ns: range(40, 36), total: 40 });
    expect(await page({ page: 8, pageSize: 5, sorting: desc })).toEqual({ ns: range(5, 1), total: 40 });
    expect(await page({ page: 7, pageSize: 6, sorting: desc })).toEqual({ ns: range(4, 1), total: 40 });
    expect(await page({ page: 7, pageSize: 6, sorting: [{ id: "attributes.n" }] })).toEqual({ ns: range(37, 40), total: 40 });
    // By name (a column): its text order, both ways, first and last page alike.
    const byName = async (dataGrid: object) => (await renderGrid(dataGrid)).referenceData.grid.rows.map((r) => r.name);
    expect(await byName({ pageSize: 3, sorting: [{ id: "name", desc: false }] })).toEqual(["Item 1", "Item 10", "Item 11"]);
    expect(await byName({ page: 13, pageSize: 3, sorting: [{ id: "name", desc: true }] })).toEqual(["Item 12", "Item 11", "Item 10"]);
    expect(await byName({ page: 14, pageSize: 3, sorting: [{ id: "name", desc: true }] })).toEqual(["Item 1"]);
  });

  it("an attribute that is not sortable sorts by its text, as the query engine does", async () => {
    const labels = async (dataGrid: object) => (await renderGrid(dataGrid)).referenceData.grid.rows.map((r) => r.attributes.label);
    expect(await labels({ pageSize: 3, sorting: [{ id: "attributes.label" }] })).toEqual(["Label 1", "Label 10", "Label 11"]);
    expect(await labels({ page: 13, pageSize: 3, sorting: [{ id: "attributes.label" }] })).toEqual(["Label 6", "Label 7", "Label 8"]);
    expect(await labels({ page: 14, pageSize: 3, sorting: [{ id: "attributes.label" }] })).toEqual(["Label 9"]);
  });

  it("the page size is at most 1000", async () => {
    // echo matches n = offset + page + pageSize / 100: 0 + 1 + 10 once the 5000 asked for is capped to 1000.
    const answer = await renderGrid({}, { pageSize: 5000 });
    expect(answer.referenceData.echo.rows.map((r) => r.attributes.n)).toEqual([11]);
  });
});

describe("paged $query: filters", () => {
  const filtered = async (filters: object, more: object = {}) => page({ pageSize: 100, filters, ...more });
  const reds = range(1, 40).filter((n) => n % 3 === 0);

  it("a string contains (ignoring case), a number or boolean equals, an array is in; each on top of the source's own filter", async () => {
    expect(await filtered({ "attributes.color": "RE" })).toEqual({ ns: range(1, 40).filter((n) => n % 3 !== 2), total: 27 });
    expect(await filtered({ name: "item 1" })).toEqual({ ns: [1, ...range(10, 19)], total: 11 });
    expect(await filtered({ "attributes.n": 7 })).toEqual({ ns: [7], total: 1 });
    // The source's own filter still holds: n <= 40.
    expect(await filtered({ "attributes.n": 42 })).toEqual({ ns: [], total: 0 });
    expect(await filtered({ "attributes.active": true })).toEqual({ ns: range(1, 40).filter((n) => n % 2 === 0), total: 20 });
    expect(await filtered({ "attributes.color": ["red", "blue"] })).toEqual({ ns: range(1, 40).filter((n) => n % 3 !== 1), total: 26 });
    expect(await filtered({ "attributes.n": [41, 3, 45] })).toEqual({ ns: [3], total: 1 });
  });

  it("filters combine with each other and with sorting and paging; an empty string, null or empty list filters nothing", async () => {
    const evenReds = reds.filter((n) => n % 2 === 0);
    expect(await filtered({ "attributes.color": "red", "attributes.active": true })).toEqual({ ns: evenReds, total: evenReds.length });
    expect(await page({ page: 2, pageSize: 4, sorting: [{ id: "attributes.n", desc: true }], filters: { "attributes.color": "red" } })).toEqual({
      ns: [27, 24, 21, 18],
      total: 13,
    });
    expect(await filtered({ "attributes.color": "", "attributes.n": null, name: [] })).toEqual({ ns: range(1, 40), total: 40 });
  });
});

describe("paged $query: paging in smart values and the page reset", () => {
  it("the source's smart values see paging: page, pageSize, offset, sortBy, desc and filters", async () => {
    // n = offset 0 + page 1 + desc 10 + sortBy 20 + one filter column 1 + pageSize 2 / 100.
    const answer = await renderGrid({}, { page: 1, pageSize: 2, sorting: [{ id: "attributes.n", desc: true }], filters: { "attributes.label": "" } });
    expect(answer.referenceData.echo).toMatchObject({ total: 0 });
    const whole = await renderGrid({}, { page: 1, pageSize: 100, sorting: [{ id: "attributes.n", desc: true }], filters: { "attributes.label": "" } });
    // 0 + 1 + 10 + 20 + 1 + 1 = 33
    expect(whole.referenceData.echo.rows.map((r) => r.attributes.n)).toEqual([33]);
    // Page 2 of 100: offset 100 + 2 + 1 = 103, no such item; its count is the total.
    expect((await renderGrid({}, { page: 2, pageSize: 100 })).referenceData.echo).toEqual({ rows: [], total: 0 });
    expect((await renderGrid({}, { pageSize: 300 })).referenceData.echo).toEqual({ rows: [expect.objectContaining({ name: "Item 4" })], total: 1 });
  });

  it("sends the grid back to page 1 when a widget the source reads acts; the page shown is the first of the new result", async () => {
    const state = { widgets: { grid: { data_grid: { page: 3, pageSize: 5 } } } };
    const res = await host.render({ state, action: { widgetId: "filter", handler: "change", payload: { q: "Label 3" } } });
    expect(res.status, res.text).toBe(200);
    const answer = res.json.data as Answer;
    expect(answer.state.widgets.grid).toEqual({ data_grid: { page: 1, pageSize: 5 } });
    expect(answer.referenceData.grid.total).toBe(11);
    expect(answer.referenceData.grid.rows.map((r) => r.attributes.n)).toEqual([3, 30, 31, 32, 33]);
  });
});

describe("paged $query: grid paths that name no query path", () => {
  const bad = [
    ["sorting", { sorting: [{ id: "identifier_key" }] }],
    ["sorting", { sorting: [{ id: "relationships.Order" }] }],
    ["sorting", { sorting: [{ id: "attributes" }] }],
    ["sorting", { sorting: [{ id: "" }] }],
    ["sorting", { sorting: [{ id: `attributes.${Array.from({ length: 20 }, (_, i) => `a${i}`).join(".")}` }] }],
    ["sorting", { sorting: [{ id: `attributes.${"x".repeat(5000)}` }] }],
    ["sorting", { sorting: [{ id: "attributes.(.*)+$" }] }],
    ["sorting", { sorting: [{ id: "attributes..n" }] }],
    ["filters", { filters: { deleted_at: "x" } }],
    ["filters", { filters: { "type.id": "x" } }],
    ["filters", { filters: { "attributes.[a-z]*": "x" } }],
    ["filters", { filters: { "attributes.n": { gt: 3 } } }],
    ["filters", { filters: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`attributes.c${i}`, "x"])) }],
  ] as const;

  for (const [kind, dataGrid] of bad) {
    it(`fails that grid alone with VALIDATION_FAILED: ${kind} ${JSON.stringify(dataGrid).slice(0, 80)}`, async () => {
      const answer = await renderGrid(dataGrid, { pageSize: 100 });
      expect(answer.notifications).toEqual([
        { id: "widget-error-grid", level: "ERROR", message: "The widget grid could not be shown.", details: { code: "VALIDATION_FAILED", source: "items" } },
      ]);
      expect(answer.referenceData.grid).toBeUndefined();
      expect(answer.referenceData.echo.rows.map((r) => r.attributes.n)).toEqual([2]);
    });
  }

  it("a NUL in the grid's state is refused with the state, before any source reads it", async () => {
    const res = await host.render({ state: { widgets: { grid: { data_grid: { sorting: [{ id: "attributes.a\u0000b" }] } } } } });
    expect(res.status).toBe(422);
    expect(res.json.error.details.validation_errors).toEqual([
      "state.widgets.grid.data_grid.sorting[0].id: must not contain NUL characters or unpaired surrogates",
    ]);
  });

  it("an author's preview says why", async () => {
    const res = await call("POST", `/apps/${host.specId}/preview`, {
      auth: t.auth,
      body: { state: { widgets: { grid: { data_grid: { sorting: [{ id: "identifier_key" }] } } } } },
    });
    expect(res.status, res.text).toBe(200);
    const failed = (res.json.data as Answer).notifications.find((n) => n.id === "widget-error-grid");
    expect(failed?.details?.message).toMatch(/sorting\[0\]\.id, which "identifier_key" names no field a query sorts or filters by/);
  });
});

describe("paged $query at publish", () => {
  it("refuses a paged that is not a boolean", async () => {
    const document = {
      ...spec,
      dashboards: {
        main: {
          ...spec.dashboards.main,
          pages: { home: { ...spec.dashboards.main.pages.home, dataSources: { items: { $query: { typeName: "Item", paged: "yes" } } } } },
        },
      },
    };
    const res = await call("POST", "/definition/specs", { auth: t.auth, body: { name: `paged-${crypto.randomUUID().slice(0, 8)}`, spec_document: document } });
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect(JSON.stringify(res.json.error.details.issues)).toContain("dataSources.items.$query.paged");
  });
});
