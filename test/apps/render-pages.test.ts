// What a render answers, over the docs/apps.md example and small specs:
// placements as peers over one current page, blocks (widgets, rows, gates,
// inline nodes), widget lookup and the spec-level merge, modals per
// placement, the dashboard choice and the scanCard's checks.
import { describe, expect, it } from "vitest";
import type { SpecDocument } from "../../src/definition/language/spec-schema";
import { DashboardView } from "../../src/apps/render/pages/dashboard";
import { exampleSpec, idsOf, oneDashboard, render, renderContext } from "./render-pages-support";

const ORDERS = [
  { id: "o1", name: "First", total: 30 },
  { id: "o2", name: "Second", total: 12 },
];
const exampleSources = {
  home: { orders: ORDERS, statuses: [{ value: "open", label: "open" }], customers: new Error("never read"), regions: [] },
  card: { open: ORDERS },
  detail: { order: ORDERS[0] },
  preview: {},
};
const exampleContext = (permissions: string[] = []) =>
  renderContext({ config: { app: { startDashboard: "orders" }, integration: {}, company: {}, team: {}, user: {} }, permissions });

const HOME_BLOCKS_WITHOUT_FORM = [
  { component: "header", config: { title: "Orders" } },
  { component: "row", children: [{ id: "statusFilter", widgetComponent: "select", props: {} }] },
  {
    component: "tabs",
    id: "views",
    children: [
      {
        component: "section",
        config: { title: "All" },
        children: [{ id: "grid", widgetComponent: "data_grid", props: { columns: ["name", "total", "customer.name"] } }],
      },
      { component: "section", config: { title: "Uploads" }, children: [{ id: "uploader", widgetComponent: "button", props: { label: "Upload attachments" } }] },
    ],
  },
  { component: "divider" },
];

describe("the docs/apps.md example", () => {
  it("answers every placement at its entry page on the first render, with blocks, referenceData and a fresh state", async () => {
    const answer = await render(exampleSpec(), { context: exampleContext(), sources: exampleSources });
    expect(answer.notifications).toEqual([]);
    expect(answer.surfaces.map((s) => [s.type, s.id, s.page])).toEqual([
      ["dashboard", "dashboard", "home"],
      ["panel", "panel", "home"],
      ["scanCard", "scanCard", "card"],
    ]);
    expect(answer.surfaces[0].blocks).toEqual(HOME_BLOCKS_WITHOUT_FORM);
    expect(answer.surfaces[1].blocks).toEqual(HOME_BLOCKS_WITHOUT_FORM);
    expect(answer.surfaces[2]).toEqual({
      type: "scanCard",
      id: "scanCard",
      page: "card",
      props: { title: "2 open orders", link: { title: "Open", href: "https://host.example.com/orders" }, app: { name: "Orders" }, maxHeight: "240px" },
      blocks: [{ component: "row", children: [{ id: "openList", widgetComponent: "list", props: {} }] }],
    });
    expect(answer.referenceData).toEqual({
      grid: { rows: ORDERS, total: 2 },
      statusFilter: { rows: [{ value: "open", label: "open" }], total: 1 },
      openList: { rows: ORDERS, total: 2 },
    });
    expect(answer.state).toEqual({ dashboard: "orders", page: null, params: {}, data: {}, widgets: {}, modals: [] });
    expect(answer.debug).toBeUndefined();
  });

  it("reads a source only when an expression reads it, once per page, and references each bound source once", async () => {
    const answer = await render(exampleSpec(), { context: exampleContext(), sources: exampleSources });
    // The scanCard's `if` and title both read `open`; `customers` and `regions` nobody reads.
    expect(answer.reads).toEqual(["card:open"]);
    expect([...answer.references].sort()).toEqual(["card:open:openList", "home:orders:grid", "home:statuses:statusFilter"]);
  });

  it("shows a gated widget only when its $if holds", async () => {
    const answer = await render(exampleSpec(), { context: exampleContext(["entity:create:order"]), sources: exampleSources });
    const row = answer.surfaces[0].blocks[1] as { children: { id: string; props: unknown }[] };
    expect(row.children.map((c) => c.id)).toEqual(["statusFilter", "importForm"]);
    expect(row.children[1].props).toEqual(exampleSpec().dashboards.orders.pages!.home.widgets!.importForm.config);
  });

  it("after a navigate every placement shows the current page; a scanCard whose if is false there is absent", async () => {
    const answer = await render(exampleSpec(), {
      context: exampleContext(),
      sources: exampleSources,
      state: { dashboard: "orders", page: "detail", params: { id: "o1" }, data: { paid: true }, widgets: {}, modals: [] },
    });
    // `detail` has no `open` source: the card's `if` counts nothing.
    expect(answer.surfaces.map((s) => [s.type, s.page])).toEqual([
      ["dashboard", "detail"],
      ["panel", "detail"],
    ]);
    expect(answer.surfaces[0].blocks).toEqual([
      {
        component: "row",
        children: [
          { id: "summary", widgetComponent: "record", props: {} },
          { id: "back", widgetComponent: "button", props: { label: "Back" } },
        ],
      },
    ]);
    expect(answer.referenceData).toEqual({ summary: { rows: [ORDERS[0]], total: 1 } });
    expect(answer.state).toEqual({ dashboard: "orders", page: "detail", params: { id: "o1" }, data: { paid: true }, widgets: {}, modals: [] });
    expect(answer.notifications).toEqual([]);
  });

  it("answers each placement's modals bottom first, wide as declared, resolved against the modal's params", async () => {
    const modal = (url: string, surface: string) => ({ page: "preview", params: { url }, data: {}, surface });
    const answer = await render(exampleSpec(), {
      context: exampleContext(),
      sources: exampleSources,
      state: {
        dashboard: "orders",
        page: null,
        params: {},
        data: {},
        widgets: {},
        modals: [modal("u1", "dashboard"), modal("u2", "panel"), modal("u3", "dashboard")],
      },
    });
    const viewer = (url: string) => ({ page: "preview", wide: true, blocks: [{ component: "file_viewer", config: { url } }] });
    expect(answer.surfaces[0].modals).toEqual([viewer("u1"), viewer("u3")]);
    expect(answer.surfaces[1].modals).toEqual([viewer("u2")]);
    expect(answer.surfaces[2].modals).toBeUndefined();
    expect(answer.state.modals.map((m) => m.params.url)).toEqual(["u1", "u2", "u3"]);
  });
});

describe("the dashboard a render shows", () => {
  const dashboards = (defaultDashboard?: unknown): SpecDocument =>
    ({
      ...(defaultDashboard === undefined ? {} : { defaultDashboard }),
      dashboards: {
        first: { surfaces: { dashboard: "p" }, pages: { p: { layout: [["w"]] } } },
        second: { surfaces: { panel: "p" }, pages: { p: { layout: [["w"]] } } },
      },
      widgets: { w: { widgetComponent: "text" } },
    }) as SpecDocument;
  const context = renderContext({ config: { app: { start: "second", nothing: "third" }, integration: {}, company: {}, team: {}, user: {} } });

  it("is the literal key, or the smart value's key, of defaultDashboard", async () => {
    expect((await render(dashboards("second"), { context })).state.dashboard).toBe("second");
    const answer = await render(dashboards("{{ config.app.start }}"), { context });
    expect(answer.state.dashboard).toBe("second");
    expect(answer.surfaces.map((s) => s.type)).toEqual(["panel"]);
  });

  it("falls back to the first key in document order for a non-key, for none, and (with a warning) for a failing expression", async () => {
    expect((await render(dashboards("{{ config.app.nothing }}"), { context })).state.dashboard).toBe("first");
    expect((await render(dashboards(), { context })).state.dashboard).toBe("first");
    const failing = await render(dashboards("{{ $error('no') }}"), { context });
    expect(failing.state.dashboard).toBe("first");
    expect(failing.notifications).toEqual([
      { id: "default-dashboard-error", level: "WARNING", message: "defaultDashboard could not be resolved; the first dashboard is shown." },
    ]);
  });
});

describe("widget lookup and the spec-level merge", () => {
  const spec = {
    dashboards: {
      main: {
        surfaces: { dashboard: "a", panel: "b" },
        pages: {
          a: { layout: [["w"]], widgets: { w: { widgetComponent: "page-level" } } },
          shared: { layout: [["w"]] },
        },
        widgets: { w: { widgetComponent: "dashboard-level", config: { from: "dashboard" } } },
      },
      other: { surfaces: { dashboard: "b" } },
    },
    defaultDashboard: "{{ context.dashboard }}",
    pages: {
      b: { layout: [["w", "onlySpec"]] },
      shared: { layout: [["onlySpec"]] },
    },
    widgets: { w: { widgetComponent: "spec-level", config: { from: "spec" } }, onlySpec: { widgetComponent: "spec-only" } },
  } as unknown as SpecDocument;

  it("finds a widget in the page, then the dashboard, then the spec; a spec-level page is shown by every dashboard", async () => {
    const main = await render(spec, { context: renderContext({ context: { dashboard: "main" } }) });
    expect(main.surfaces.map((s) => s.blocks)).toEqual([
      [{ component: "row", children: [{ id: "w", widgetComponent: "page-level", props: {} }] }],
      [
        {
          component: "row",
          children: [
            { id: "w", widgetComponent: "dashboard-level", props: { from: "dashboard" } },
            { id: "onlySpec", widgetComponent: "spec-only", props: {} },
          ],
        },
      ],
    ]);
    const other = await render(spec, { context: renderContext({ context: { dashboard: "other" } }) });
    expect(other.surfaces[0].blocks).toEqual([
      {
        component: "row",
        children: [
          { id: "w", widgetComponent: "spec-level", props: { from: "spec" } },
          { id: "onlySpec", widgetComponent: "spec-only", props: {} },
        ],
      },
    ]);
  });

  it("replaces a spec-level page whole with the dashboard's page of the same key", async () => {
    const answer = await render(spec, { context: renderContext({ context: { dashboard: "main" } }), state: { dashboard: "main", page: "shared" } });
    expect(answer.surfaces[0].blocks).toEqual([
      { component: "row", children: [{ id: "w", widgetComponent: "dashboard-level", props: { from: "dashboard" } }] },
    ]);
  });
});

describe("blocks", () => {
  it("resolves inline nodes recursively, with gates and widgets among their children, and config as smart values", async () => {
    const spec = oneDashboard({
      widgets: { a: { widgetComponent: "text", config: { text: "{{ page.params.greeting ?? 'hi' }}" } }, b: { widgetComponent: "text" } },
      layout: [
        {
          component: "section",
          id: "outer",
          config: { title: "{{ 'Hello ' & identity.name }}" },
          children: [
            "a",
            { $if: "false", $then: "b" },
            {
              component: "row",
              children: [
                { $if: "true", $then: "b" },
                { component: "iframe", config: { src: "https://x.example" } },
              ],
            },
          ],
        },
        ["a", { $if: "identity.name = 'Ada'", $then: "b" }],
      ],
    });
    const answer = await render(spec, { context: renderContext({ identity: { name: "Ada" } }) });
    expect(answer.surfaces[0].blocks).toEqual([
      {
        component: "section",
        id: "outer",
        config: { title: "Hello Ada" },
        children: [
          { id: "a", widgetComponent: "text", props: { text: "hi" } },
          {
            component: "row",
            children: [
              { id: "b", widgetComponent: "text", props: {} },
              { component: "iframe", config: { src: "https://x.example" } },
            ],
          },
        ],
      },
      {
        component: "row",
        children: [
          { id: "a", widgetComponent: "text", props: { text: "hi" } },
          { id: "b", widgetComponent: "text", props: {} },
        ],
      },
    ]);
    expect(answer.notifications).toEqual([]);
  });

  it("hides a gate whose $if throws, and an inline node whose config fails, each with an error naming it", async () => {
    const spec = oneDashboard({
      widgets: { a: { widgetComponent: "text" } },
      layout: [
        ["a", { $if: "$error('boom')", $then: "a" }],
        { component: "section", id: "bad", config: { t: "{{ $error('nope') }}" }, children: ["a"] },
        { component: "divider" },
      ],
    });
    const answer = await render(spec);
    expect(answer.surfaces[0].blocks).toEqual([{ component: "row", children: [{ id: "a", widgetComponent: "text", props: {} }] }, { component: "divider" }]);
    expect(answer.notifications.map((n) => [n.id, n.level])).toEqual([
      ["gate-error-a", "ERROR"],
      ["node-error-bad", "ERROR"],
    ]);
  });

  it("gives a widget's config thisWidget and the page's widget states", async () => {
    const spec = oneDashboard({
      widgets: {
        grid: { widgetComponent: "data_grid", config: { me: "{{ thisWidget.id }}", page: "{{ thisWidget.state.data_grid.page }}" } },
        label: {
          widgetComponent: "text",
          config: { text: "{{ 'page ' & page.widgets.grid.state.data_grid.page & ' of ' & page.key }}", none: "{{ page.widgets.label.state }}" },
        },
      },
      layout: [["grid", "label"]],
    });
    const answer = await render(spec, { state: { dashboard: "main", page: null, widgets: { grid: { data_grid: { page: 3, pageSize: 20 } } } } });
    const [grid, label] = (answer.surfaces[0].blocks[0] as { children: { props: unknown }[] }).children;
    expect(grid.props).toEqual({ me: "grid", page: 3 });
    expect(label.props).toEqual({ text: "page 3 of home", none: {} });
    expect(answer.state.widgets).toEqual({ grid: { data_grid: { page: 3, pageSize: 20 } } });
  });
});

describe("the scanCard", () => {
  const card = (scanCard: Record<string, unknown>) =>
    ({
      dashboards: {
        main: {
          surfaces: { dashboard: "home", scanCard: { page: "home", ...scanCard } },
          pages: { home: { layout: [["w"]], dataSources: { open: { $rows: [] } } } },
        },
      },
      widgets: { w: { widgetComponent: "text" } },
    }) as unknown as SpecDocument;
  const sources = { home: { open: [{ id: 1 }] } };
  const types = (answer: { surfaces: { type: string }[] }) => answer.surfaces.map((s) => s.type);

  it("is absent when its if is false, and absent with scan-card-error when it throws; other placements stay", async () => {
    const no = await render(card({ if: "$count(page.dataSources.open) > 5", props: { title: "t" } }), { sources });
    expect(types(no)).toEqual(["dashboard"]);
    expect(no.notifications).toEqual([]);
    const thrown = await render(card({ if: "$error('bad if')", props: { title: "t" } }), { sources });
    expect(types(thrown)).toEqual(["dashboard"]);
    expect(thrown.notifications).toEqual([{ id: "scan-card-error", level: "ERROR", message: "The scanCard was skipped: if: bad if" }]);
  });

  it("checks each resolved prop strictly, naming the field that fails", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "" }, "props.title: must be a non-empty string"],
      [{ title: "{{ page.params.missing }}" }, "props.title: must be a non-empty string, got nothing"],
      [{ title: 5 }, "props.title: must be a non-empty string, got 5"],
      [{ title: "t", link: { title: "Open" } }, "props.link.href: must be a non-empty string"],
      [{ title: "t", link: "https://x" }, "props.link: must be an object"],
      [{ title: "t", app: { name: "A", image: 3 } }, "props.app.image: must be a non-empty string"],
      [{ title: "t", maxHeight: "240" }, "props.maxHeight: must be a CSS length"],
      [{ title: "t", maxHeight: "calc(1px)" }, "props.maxHeight: must be a CSS length"],
      [{ title: "t", colour: "red" }, "props.colour: is not a prop"],
      [{ title: "{{ $error('no title') }}" }, "props.title: no title"],
    ];
    for (const [props, message] of cases) {
      const answer = await render(card({ props }), { sources });
      expect(types(answer), JSON.stringify(props)).toEqual(["dashboard"]);
      expect(answer.notifications).toHaveLength(1);
      expect(answer.notifications[0].id).toBe("scan-card-error");
      expect(answer.notifications[0].message).toContain(message);
    }
  });

  it("answers valid props resolved against the card page", async () => {
    const answer = await render(
      card({
        if: "$count(page.dataSources.open) > 0",
        props: { title: "{{ $count(page.dataSources.open) & ' open' }}", app: { name: "Orders", image: "https://x/i.png" }, maxHeight: "12rem" },
      }),
      { sources },
    );
    expect(answer.surfaces[1]).toMatchObject({
      type: "scanCard",
      page: "home",
      props: { title: "1 open", app: { name: "Orders", image: "https://x/i.png" }, maxHeight: "12rem" },
    });
    for (const maxHeight of ["240px", "50vh", "33.5%"])
      expect(types(await render(card({ props: { title: "t", maxHeight } }), { sources }))).toEqual(["dashboard", "scanCard"]);
    expect(idsOf(answer)).toEqual([]);
  });
});

describe("the grid a paged source pages as", () => {
  it("is looked up as the layout looks up widgets: the page's own, then the dashboard's, then the spec's", () => {
    const spec = {
      pages: { home: { widgets: { stale: { widgetComponent: "data_grid", dataSource: "items" } }, layout: [] } },
      widgets: { shared: { widgetComponent: "data_grid", dataSource: "items" }, specOnly: { widgetComponent: "data_grid", dataSource: "extra" } },
      dashboards: {
        main: {
          surfaces: { dashboard: "home" },
          widgets: { shared: { widgetComponent: "data_grid", dataSource: "other" }, board: { widgetComponent: "data_grid", dataSource: "items" } },
          pages: { home: { dataSources: { items: { $rows: [] }, other: { $rows: [] }, extra: { $rows: [] } }, layout: [["board", "shared", "specOnly"]] } },
        },
      },
    } as unknown as SpecDocument;
    const view = new DashboardView("main", spec.dashboards.main, spec);
    const home = view.page("home")!;
    // The spec-level page the dashboard replaced, and the spec's `shared` the dashboard's replaced, bind nothing.
    expect(view.boundWidgets(home)).toEqual({ items: "board", other: "shared", extra: "specOnly" });
    const own = { ...home, widgets: { mine: { widgetComponent: "data_grid", dataSource: "items" } } };
    expect(view.boundWidgets(own)).toEqual({ items: "mine", other: "shared", extra: "specOnly" });
  });
});
