// Which sources an expression reads, found on its syntax tree before it runs:
// exact for `page.dataSources.<name>`, every source for any other way in.
import { describe, expect, it } from "vitest";
import { ALL_SOURCES, sourceReads } from "../../src/apps/render/pages/source-reads";
import { withFunctions } from "../../src/lib/smart-values";
import { oneDashboard, render } from "./render-pages-support";

const reads = (...texts: string[]) => [...sourceReads(texts)].sort();

describe("sourceReads", () => {
  it("names the sources read as page.dataSources.<name>, whatever follows", () => {
    expect(reads("$count(page.dataSources.open) > 0")).toEqual(["open"]);
    expect(reads("page.dataSources.orders[total > 10].name", "page.dataSources.`my source`")).toEqual(["my source", "orders"]);
    expect(reads("$$.page.dataSources.a & $.page.dataSources.b")).toEqual(["a", "b"]);
    expect(reads("page.dataSources.a[name = page.params.x].(page.dataSources.b)")).toEqual(["a", "b"]);
  });

  it("names none for expressions that read no source", () => {
    expect(reads("config.app.x & page.params.id & page.widgets.grid.state.page", "'literal'", "identity.user_email")).toEqual([]);
  });

  it("answers every source for any other way to reach them", () => {
    for (const text of [
      "page",
      "page.dataSources",
      "page.dataSources[0]",
      "$lookup(page.dataSources, 'open')",
      "$lookup(page, 'dataSources')",
      "page.$lookup($, 'dataSources')",
      "page.(dataSources.open)",
      "$",
      "$$",
      "$keys($$)",
      "$each(page, function($v) { $v })",
      "($p := page; $p.dataSources.open)",
      "page@$p.($p.dataSources.open)",
      "page.params.%.dataSources.open",
      "*.dataSources.open",
      "**.open",
    ]) {
      expect(reads(text), text).toContain(ALL_SOURCES);
    }
  });

  it("sees what the spec's functions read when they are bound around the expression", () => {
    const functions = { openCount: "function() { $count(page.dataSources.open) }", plain: "function($n) { $n + 1 }" };
    expect(reads(withFunctions("$openCount() + $plain(1)", functions))).toEqual(["open"]);
    expect(reads(withFunctions("$plain(1)", functions))).toEqual([]);
  });
});

describe("sources in a render", () => {
  it("fetches only the sources the page's expressions read, each once, and every source for a whole-scope read", async () => {
    const spec = oneDashboard({
      dataSources: { a: { $rows: [] }, b: { $rows: [] }, c: { $rows: [] } },
      widgets: {
        one: { widgetComponent: "t", config: { n: "{{ $count(page.dataSources.a) }}", m: "{{ page.dataSources.a[0].x }}" } },
        two: { widgetComponent: "t", config: { n: "{{ $count(page.dataSources.a) }}" } },
      },
      layout: [["one", "two"]],
    });
    const sources = { home: { a: [{ x: 1 }, { x: 2 }], b: [], c: new Error("never read") } };
    const answer = await render(spec, { sources });
    expect(answer.reads).toEqual(["home:a"]);
    expect(answer.notifications).toEqual([]);

    const whole = oneDashboard({
      dataSources: { a: { $rows: [] }, b: { $rows: [] } },
      widgets: { w: { widgetComponent: "t", config: { keys: "{{ $keys(page.dataSources) }}" } } },
      layout: [["w"]],
    });
    const all = await render(whole, { sources: { home: { a: [1], b: [2] } } });
    expect([...all.reads].sort()).toEqual(["home:a", "home:b"]);
    expect((all.surfaces[0].blocks[0] as { children: { props: unknown }[] }).children[0].props).toEqual({ keys: ["a", "b"] });
  });

  it("hands a source the page's render context: its key, params, data and widget states", async () => {
    const spec = oneDashboard({
      dataSources: { a: { $rows: [] } },
      widgets: { w: { widgetComponent: "t", config: { v: "{{ page.dataSources.a }}" } } },
      layout: [["w"]],
    });
    const answer = await render(spec, {
      state: { dashboard: "main", page: "home", params: { id: "9" }, data: { d: 1 }, widgets: { w: { s: 2 } } },
      sources: {
        home: {
          a: (scope: { page: { key: string; params: { id: string }; widgets: Record<string, { state: unknown }> } }) =>
            `${scope.page.key}:${scope.page.params.id}:${JSON.stringify(scope.page.widgets.w.state)}`,
        },
      },
    });
    expect((answer.surfaces[0].blocks[0] as { children: { props: unknown }[] }).children[0].props).toEqual({ v: 'home:9:{"s":2}' });
  });
});
