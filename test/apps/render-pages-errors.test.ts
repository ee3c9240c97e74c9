// What fails in a render fails alone: a widget whose config or source fails,
// or whose source is late, or that runs past the shared budget, drops with a
// notification while the rest is answered. The spec's functions and
// messages, and secrets never reaching an answer.
import { describe, expect, it } from "vitest";
import type { SpecDocument } from "../../src/definition/language/spec-schema";
import { ApiError } from "../../src/lib/errors";
import { EvaluationBudget } from "../../src/lib/smart-values";
import { idsOf, oneDashboard, PENDING, render, renderContext } from "./render-pages-support";

const childIds = (answer: { surfaces: { blocks: unknown[] }[] }) => (answer.surfaces[0].blocks[0] as { children: { id: string }[] }).children.map((c) => c.id);

describe("a failing widget drops alone", () => {
  const spec = oneDashboard({
    dataSources: { good: { $rows: [] }, bad: { $rows: [] }, late: { $rows: [] } },
    widgets: {
      ok: { widgetComponent: "text", config: { n: "{{ $count(page.dataSources.good) }}" } },
      grid: { widgetComponent: "data_grid", dataSource: "bad" },
      reader: { widgetComponent: "text", config: { n: "{{ $count(page.dataSources.bad) }}" } },
      broken: { widgetComponent: "text", config: { n: "{{ $error('config failed') }}" } },
      slow: { widgetComponent: "list", dataSource: "late" },
      alsoOk: { widgetComponent: "list", dataSource: "good" },
    },
    layout: [["ok", "grid", "reader", "broken", "slow", "alsoOk"]],
  });
  const sources = { home: { good: [{ id: 1 }], bad: new Error("upstream down"), late: PENDING } };

  it("keeps the others when a source fails, a config throws, or a source is still pending at the deadline", async () => {
    const answer = await render(spec, { sources, deadline: Date.now() });
    expect(childIds(answer)).toEqual(["ok", "alsoOk"]);
    expect(answer.referenceData).toEqual({ alsoOk: { rows: [{ id: 1 }], total: 1 } });
    expect(answer.notifications).toEqual([
      // An unexpected failure's own words are not answered: its code is INTERNAL_ERROR. The source is named whether bound or read.
      { id: "widget-error-grid", level: "ERROR", message: "The widget grid could not be shown.", details: { code: "INTERNAL_ERROR", source: "bad" } },
      { id: "widget-error-reader", level: "ERROR", message: "The widget reader could not be shown.", details: { code: "INTERNAL_ERROR", source: "bad" } },
      { id: "widget-error-broken", level: "ERROR", message: "The widget broken could not be shown.", details: { code: "UNPROCESSABLE_ENTITY" } },
      { id: "widget-timeout-slow", level: "WARNING", message: "The widget slow took too long to load.", details: { code: "TIMEOUT", source: "late" } },
    ]);
  });

  it("drops the widget being resolved once the shared expression budget is spent, and only that one", async () => {
    const heavy = oneDashboard({
      widgets: {
        light: { widgetComponent: "text", config: { label: "plain" } },
        heavy: { widgetComponent: "text", config: { n: "{{ $sum($map([1..5000], function($v) { $v * 2 })) }}" } },
      },
      layout: [["light", "heavy"]],
    });
    const answer = await render(heavy, { budget: new EvaluationBudget({ maxSteps: 1000 }) });
    expect(childIds(answer)).toEqual(["light"]);
    expect(idsOf(answer)).toEqual(["widget-error-heavy"]);

    // Past the budget's time, every later evaluation is refused; a widget with nothing to evaluate still shows.
    let now = 0;
    const spent = new EvaluationBudget({ timeoutMs: 1000 }, { now: () => now });
    await spent.evaluation(async () => void (now += 1001));
    const late = await render(
      oneDashboard({ widgets: { a: { widgetComponent: "t", config: { x: "{{ 1 }}" } }, b: { widgetComponent: "t" } }, layout: [["a", "b"]] }),
      { budget: spent },
    );
    expect(childIds(late)).toEqual(["b"]);
    expect(idsOf(late)).toEqual(["widget-error-a"]);
  });
});

describe("functions and messages", () => {
  it("calls the spec's functions from widget configs, gates, scanCard props and node configs; functions call each other", async () => {
    const spec = {
      dashboards: {
        main: {
          surfaces: { dashboard: "home", scanCard: { page: "home", if: "$isBig(3)", props: { title: "{{ $label(2) }}" } } },
          pages: {
            home: {
              widgets: { w: { widgetComponent: "text", config: { n: "{{ $double(21) }}", s: "{{ $label(5) }}" } } },
              layout: [
                [{ $if: "$isBig(2)", $then: "w" }],
                { component: "section", config: { t: "{{ $label(1) }}" }, children: [{ $if: "$isBig(1)", $then: "w" }] },
              ],
            },
          },
        },
      },
      functions: { double: "function($n) { $n * 2 }", label: "function($n) { 'x' & $string($double($n)) }", isBig: "function($n) { $n >= 2 }" },
    } as unknown as SpecDocument;
    const answer = await render(spec);
    expect(answer.notifications).toEqual([]);
    expect(answer.surfaces[0].blocks).toEqual([
      { component: "row", children: [{ id: "w", widgetComponent: "text", props: { n: 42, s: "x10" } }] },
      { component: "section", config: { t: "x2" }, children: [] },
    ]);
    expect(answer.surfaces[1].props).toEqual({ title: "x4" });
  });

  it("replaces a notification's message by the template for its id, else for its error's details.code; a failing template keeps it", async () => {
    const spec = oneDashboard(
      {
        dataSources: { crm: { $rows: [] }, crm2: { $rows: [] }, other: { $rows: [] } },
        widgets: {
          grid: { widgetComponent: "g", dataSource: "crm" },
          list: { widgetComponent: "l", dataSource: "crm2" },
          odd: { widgetComponent: "l", dataSource: "other" },
        },
        layout: [["grid", "list", "odd"]],
      },
      {
        functions: { shout: "function($s) { $uppercase($s) }" },
        messages: {
          "widget-error-grid": "Orders failed ({{ error.code }}, {{ error.status }}) in {{ widgetId }}",
          HTTP_AUTH_SECRET_MISSING: "{{ $shout('connect your crm first') }}",
          "widget-error-odd": "{{ $error('bad template') }}",
          "notify-1": "Saved {{ widgetId ?? 'nothing' }}",
          "http-source-truncated": "Too many rows",
        },
      },
    );
    const missing = () =>
      new ApiError(
        { code: "HTTP_AUTH_SECRET_MISSING", profile: "crm", missing_secrets: ["tenant.CRM"] },
        "The auth profile crm reads secrets that are not set: tenant.CRM",
      );
    const answer = await render(spec, {
      sources: { home: { crm: missing(), crm2: missing(), other: new Error("x") } },
      before: (notes) => {
        notes.notify({ id: "notify-1", level: "INFO", message: "Done" });
        notes.notify({ id: "http-source-truncated", level: "WARNING", message: "more than 5000 rows" });
      },
    });
    expect(answer.notifications).toEqual([
      { id: "notify-1", level: "INFO", message: "Saved nothing" },
      { id: "http-source-truncated", level: "WARNING", message: "Too many rows" },
      {
        id: "widget-error-grid",
        level: "ERROR",
        message: "Orders failed (HTTP_AUTH_SECRET_MISSING, 400) in grid",
        details: { code: "HTTP_AUTH_SECRET_MISSING", source: "crm" },
      },
      { id: "widget-error-list", level: "ERROR", message: "CONNECT YOUR CRM FIRST", details: { code: "HTTP_AUTH_SECRET_MISSING", source: "crm2" } },
      { id: "widget-error-odd", level: "ERROR", message: "The widget odd could not be shown.", details: { code: "INTERNAL_ERROR", source: "other" } },
    ]);
  });
});

describe("secrets never reach an answer", () => {
  const TOKEN = "tok-4242-very-secret";
  const context = renderContext({ config: { app: { token: TOKEN, user: "ada" }, integration: {}, company: {}, team: {}, user: {} } });

  it("masks a secret and every value an expression computes from it, in props, scanCard props, node configs and referenceData", async () => {
    const spec = {
      dashboards: {
        main: {
          surfaces: {
            dashboard: "home",
            scanCard: { page: "home", if: "$length(config.app.token) > 3", props: { title: "{{ $substring(config.app.token, 0, 3) }}" } },
          },
          pages: {
            home: {
              dataSources: { rows: { $rows: [] } },
              widgets: {
                w: {
                  widgetComponent: "text",
                  config: {
                    plain: "{{ config.app.token }}",
                    upper: "{{ $uppercase(config.app.token) }}",
                    length: "{{ $length(config.app.token) }}",
                    first: "{{ $substring(config.app.token, 0, 1) }}",
                    equal: "{{ config.app.token = 'x' }}",
                    inText: "Bearer {{ config.app.token }} for {{ config.app.user }}",
                    whole: "{{ config.app }}",
                    other: "{{ config.app.user }}",
                  },
                },
                list: { widgetComponent: "list", dataSource: "rows" },
              },
              layout: [["w", "list"], { component: "section", config: { t: "{{ $lowercase(config.app.token) }}" } }],
            },
          },
        },
      },
    } as unknown as SpecDocument;
    const answer = await render(spec, { context, secrets: [TOKEN], sources: { home: { rows: [{ key: TOKEN }, { key: "fine" }] } } });
    expect(answer.surfaces[0].blocks).toEqual([
      {
        component: "row",
        children: [
          {
            id: "w",
            widgetComponent: "text",
            props: {
              plain: "***",
              upper: "***",
              length: "***",
              first: "***",
              equal: "***",
              inText: "Bearer *** for ada",
              whole: { token: "***", user: "ada" },
              other: "ada",
            },
          },
          { id: "list", widgetComponent: "list", props: {} },
        ],
      },
      { component: "section", config: { t: "***" } },
    ]);
    expect(answer.surfaces[1].props).toEqual({ title: "***" });
    expect(answer.referenceData).toEqual({ list: { rows: [{ key: "***" }, { key: "fine" }], total: 2 } });
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
    expect(JSON.stringify(answer)).not.toContain(TOKEN.toUpperCase());
  });

  it("masks secrets in the answered state, notifications (messages included) and debug", async () => {
    const spec = oneDashboard(
      {
        widgets: { w: { widgetComponent: "text", config: { x: "{{ $error('failed with ' & config.app.token) }}" } }, v: { widgetComponent: "text" } },
        layout: [["w", "v"]],
      },
      { messages: { "widget-error-w": "{{ error.message }}", "notify-1": "{{ 'copy of ' & error.message }}" } },
    );
    const answer = await render(spec, {
      context,
      secrets: [TOKEN],
      state: { dashboard: "main", page: null, params: { t: TOKEN }, data: {}, widgets: { v: { typed: `x${TOKEN}x` } } },
      debug: [{ outputs: { token: TOKEN } }],
      before: (notes) => notes.notify({ id: "notify-1", level: "INFO", message: `hello ${TOKEN}` }, { code: "X", message: TOKEN, status: 400 }),
    });
    expect(answer.state.params).toEqual({ t: "***" });
    expect(answer.state.widgets).toEqual({ v: { typed: "x***x" } });
    expect(answer.debug).toEqual([{ outputs: { token: "***" } }]);
    expect(answer.notifications.map((n) => n.message)).toEqual(["***", "***"]);
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
  });
});
