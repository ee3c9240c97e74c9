// The state a render answers and takes back: a round trip keeps it, and a
// hostile one (unknown names, wrong shapes, huge parts) is made safe in the
// documented way.
import { describe, expect, it } from "vitest";
import { MAX_MODALS } from "../../src/apps/render/contracts";
import type { SpecDocument } from "../../src/definition/language/spec-schema";
import { idsOf, render } from "./render-pages-support";

const spec = {
  dashboards: {
    main: {
      surfaces: { dashboard: "home", panel: { page: "side" } },
      pages: {
        home: { layout: [["grid"]], widgets: { grid: { widgetComponent: "data_grid", config: { page: "{{ thisWidget.state.data_grid.page ?? 1 }}" } } } },
        side: { layout: [["note"]] },
        detail: { layout: [["note"]] },
      },
      modals: { confirm: { layout: [["note"]] } },
      widgets: { note: { widgetComponent: "text", config: { text: "{{ page.key & ':' & (page.params.id ?? '-') & ':' & (page.data.n ?? '-') }}" } } },
    },
    other: { surfaces: { dashboard: "home" }, pages: { home: { layout: [] } } },
  },
} as unknown as SpecDocument;

const noteOf = (surface: { blocks: unknown[] }) => (surface.blocks[0] as { children: { props: { text?: string } }[] }).children[0].props.text;

describe("state round trip", () => {
  it("answers the state it was given back, and each part reaches the page it belongs to", async () => {
    const first = await render(spec);
    expect(first.state).toEqual({ dashboard: "main", page: null, params: {}, data: {}, widgets: {}, modals: [] });
    expect(noteOf(first.surfaces[1])).toBe("side:-:-");

    const posted = {
      dashboard: "main",
      page: "detail",
      params: { id: "7" },
      data: { n: 2 },
      widgets: { grid: { data_grid: { page: 4 } }, note: { seen: true } },
      modals: [{ page: "confirm", params: { id: "m" }, data: { n: 9 }, surface: "panel" }],
    };
    const second = await render(spec, { state: posted });
    expect(second.state).toEqual(posted);
    expect(second.notifications).toEqual([]);
    expect(second.surfaces.map((s) => [s.type, s.page, noteOf(s)])).toEqual([
      ["dashboard", "detail", "detail:7:2"],
      ["panel", "detail", "detail:7:2"],
    ]);
    expect(second.surfaces[1].modals).toEqual([
      { page: "confirm", wide: false, blocks: [{ component: "row", children: [{ id: "note", widgetComponent: "text", props: { text: "confirm:m:9" } }] }] },
    ]);

    // Before the first navigate, data written to the base page is kept for the entry pages.
    const third = await render(spec, {
      state: { dashboard: "main", page: null, params: {}, data: { n: 5 }, widgets: { grid: { data_grid: { page: 2 } } }, modals: [] },
    });
    expect(noteOf(third.surfaces[1])).toBe("side:-:5");
    expect((third.surfaces[0].blocks[0] as { children: { props: unknown }[] }).children[0].props).toEqual({ page: 2 });
  });
});

describe("hostile state", () => {
  it("sends an unknown page (or a modal key, or a non-string) back to the entry pages with a warning", async () => {
    for (const page of ["nowhere", "confirm", "constructor", "__proto__", 42, { a: 1 }]) {
      const answer = await render(spec, { state: { dashboard: "main", page, params: { id: "1" }, data: { n: 1 } } });
      expect(answer.state, JSON.stringify(page)).toMatchObject({ page: null, params: {}, data: {} });
      expect(answer.surfaces.map((s) => s.page)).toEqual(["home", "side"]);
      expect(answer.notifications.map((n) => [n.id, n.level])).toEqual([["state-page-unknown", "WARNING"]]);
    }
  });

  it("starts afresh for a state of another dashboard, and ignores a state that is no object", async () => {
    const moved = await render(spec, { state: { dashboard: "other", page: "detail", widgets: { grid: { a: 1 } } } });
    expect(moved.state).toEqual({ dashboard: "main", page: null, params: {}, data: {}, widgets: {}, modals: [] });
    expect(idsOf(moved)).toEqual(["state-reset"]);
    for (const state of [null, "x", [1, 2], 3]) {
      const answer = await render(spec, { state });
      expect(answer.state).toEqual({ dashboard: "main", page: null, params: {}, data: {}, widgets: {}, modals: [] });
      expect(answer.notifications).toEqual([]);
    }
  });

  it("drops state of widgets the dashboard does not have, and state that is no object", async () => {
    const widgets = JSON.parse('{"grid":{"a":1},"ghost":{"b":2},"note":[1],"__proto__":{"polluted":true},"constructor":{"c":3},"toString":{"d":4}}');
    const answer = await render(spec, { state: { dashboard: "main", widgets } });
    expect(answer.state.widgets).toEqual({ grid: { a: 1 } });
    expect(Object.getPrototypeOf(answer.state.widgets)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(answer.notifications).toEqual([]);
  });

  it("drops modals naming no modal or no placement of the dashboard, and keeps at most ten", async () => {
    const ok = { page: "confirm", params: {}, data: {}, surface: "dashboard" };
    const answer = await render(spec, {
      state: {
        dashboard: "main",
        modals: [
          ok,
          { page: "home", surface: "dashboard" },
          { page: "confirm", surface: "scanCard" },
          { page: "confirm", surface: "nowhere" },
          "x",
          { ...ok, params: { id: "2" } },
        ],
      },
    });
    expect(answer.state.modals).toEqual([ok, { ...ok, params: { id: "2" } }]);
    expect(answer.surfaces[0].modals).toHaveLength(2);
    expect(idsOf(answer)).toEqual(["state-modal-dropped"]);

    const many = await render(spec, { state: { dashboard: "main", modals: Array.from({ length: 25 }, (_, i) => ({ ...ok, params: { id: String(i) } })) } });
    expect(many.state.modals.map((m) => m.params.id)).toEqual(Array.from({ length: MAX_MODALS }, (_, i) => String(i)));
    expect(many.surfaces[0].modals).toHaveLength(MAX_MODALS);
  });

  it("resets a widget state of 1 MiB, and params or data over 64 KiB, with warnings, keeping the rest", async () => {
    const huge = { blob: "x".repeat(1024 * 1024) };
    const answer = await render(spec, {
      state: { dashboard: "main", page: "detail", params: { big: "y".repeat(70_000) }, data: { n: 1 }, widgets: { grid: huge, note: { small: true } } },
    });
    expect(answer.state.widgets).toEqual({ note: { small: true } });
    expect(answer.state.params).toEqual({});
    expect(answer.state.data).toEqual({ n: 1 });
    expect(answer.notifications.map((n) => [n.id, n.level])).toEqual([
      ["state-too-large", "WARNING"],
      ["widget-state-too-large-grid", "WARNING"],
    ]);
    expect(JSON.stringify(answer).length).toBeLessThan(10_000);
  });

  it("keeps widget states in posted order up to 256 KiB in all", async () => {
    const piece = () => ({ blob: "z".repeat(60_000) });
    const widgets: Record<string, unknown> = {};
    const ids = ["grid", "note"];
    // Five 60 KB states over two widget ids cannot happen, so a spec with more widgets holds them.
    const wide = structuredClone(spec) as unknown as { dashboards: { main: { widgets: Record<string, unknown> } } };
    for (let i = 0; i < 5; i++) {
      wide.dashboards.main.widgets[`w${i}`] = { widgetComponent: "text" };
      ids.push(`w${i}`);
    }
    for (const id of ids) widgets[id] = piece();
    const answer = await render(wide as unknown as SpecDocument, { state: { dashboard: "main", widgets } });
    expect(Object.keys(answer.state.widgets)).toEqual(["grid", "note", "w0", "w1"]);
    expect(idsOf(answer)).toEqual(["widget-state-too-large-w2", "widget-state-too-large-w3", "widget-state-too-large-w4"]);
  });
});
