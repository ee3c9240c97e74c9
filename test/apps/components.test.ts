// GET /apps/components: the standard/1 catalogue, without credentials, each
// component's schemas valid JSON Schemas that accept and refuse what the
// component's documentation says.
import { describe, expect, it } from "vitest";
import { check } from "../../src/lib/validate";
import { META_SCHEMA } from "../../src/lib/json-schema/drafts";
import { call, createTenant } from "../support/api";
import { hostFor, hostProvider } from "./host-fixture";
import apps from "../../docs/apps.md?raw";
import { STANDARD_1 } from "../../src/definition/language/components/standard";

interface Declared {
  description: string;
  config: object;
  state: object;
  handlers: Record<string, { payload: object }>;
}

async function standard(): Promise<Record<string, Declared>> {
  const res = await call("GET", "/apps/components");
  expect(res.status, res.text).toBe(200);
  const catalogue = (res.json.data as { name: string; components: Record<string, Declared> }[]).find((c) => c.name === "standard/1");
  expect(catalogue).toBeDefined();
  return catalogue!.components;
}

const NAMED = [
  "section",
  "row",
  "tabs",
  "header",
  "footer",
  "divider",
  "iframe",
  "file_viewer",
  "text",
  "heading",
  "markdown",
  "button",
  "link",
  "image",
  "badge",
  "alert",
  "stat",
  "select",
  "checkbox",
  "text_input",
  "form",
  "data_grid",
  "list",
  "chart",
];

describe("GET /apps/components", () => {
  it("answers standard/1 without credentials, cacheable, with every component a host kit draws", async () => {
    const res = await call("GET", "/apps/components");
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=3600");
    const components = await standard();
    expect(Object.keys(components).sort()).toEqual([...NAMED].sort());
    for (const [name, c] of Object.entries(components)) {
      expect(c.description.length, name).toBeGreaterThan(10);
      for (const schema of [c.config, c.state, ...Object.values(c.handlers).map((h) => h.payload)]) {
        expect(check(META_SCHEMA["2020-12"], schema), name).toEqual([]);
      }
    }
  });

  it("declares the handlers and payloads hosts send", async () => {
    const c = await standard();
    expect(Object.keys(c.button.handlers)).toEqual(["click"]);
    expect(Object.keys(c.data_grid.handlers).sort()).toEqual(["open", "rowAction"]);
    expect(check(c.data_grid.handlers.open.payload, { itemId: "e-1" })).toEqual([]);
    expect(check(c.data_grid.handlers.open.payload, {})).toEqual(["itemId: is required"]);
    expect(check(c.select.handlers.change.payload, { value: "eu" })).toEqual([]);
    expect(check(c.select.handlers.change.payload, { value: "eu", extra: 1 })).toEqual(["extra: is not allowed"]);
    expect(check(c.checkbox.handlers.change.payload, { checked: "yes" })).toEqual(["checked: must be boolean, got string"]);
    expect(c.form.handlers.submit.payload).toMatchObject({ type: "object" });
  });

  it("accepts documented configs and refuses wrong ones", async () => {
    const c = await standard();
    expect(check(c.data_grid.config, { columns: ["name", { path: "attributes.total", label: "Total", type: "number" }], pageSize: 50 })).toEqual([]);
    expect(check(c.data_grid.config, { pageSize: 5000 })).toEqual(["pageSize: 5000 is greater than 1000"]);
    expect(check(c.data_grid.state, { data_grid: { page: 2, pageSize: 20, sorting: [{ id: "attributes.n", desc: true }], filters: { name: "ab" } } })).toEqual(
      [],
    );
    expect(check(c.button.config, {})).toEqual(["label: is required"]);
    expect(check(c.heading.config, { text: "Orders", level: 7 })).toEqual(["level: 7 is greater than 6"]);
    expect(check(c.chart.config, { kind: "donut", x: "name", y: "n" })).toHaveLength(1);
    expect(check(c.form.config, { fields: [{ id: "file", type: "file", maxFileSize: 26214401 }] })).toEqual([
      "fields[0].maxFileSize: 26214401 is greater than 26214400",
    ]);
    expect(check(c.form.config, { fields: [{ id: "when", type: "time" }] })).toHaveLength(1);
    expect(check(c.image.config, { src: "https://x/y.png", alt: "A chart", height: "12rem" })).toEqual([]);
    expect(check(c.image.config, { src: "https://x/y.png", alt: "A chart", height: "expression(alert(1))" })).toHaveLength(1);
  });
});

const withCatalogue = (components: unknown, widgets: Record<string, unknown>, layout: unknown[] = [Object.keys(widgets)]) => ({
  dashboards: { main: { surfaces: { dashboard: "home" }, pages: { home: { dataSources: { rows: { $rows: [{ id: "r1", n: 1 }] } }, layout, widgets } } } },
  providers: { host: { ...hostProvider.host, components } },
});

async function publish(spec: object) {
  const t = await createTenant();
  return call("POST", "/definition/specs", { auth: t.auth, body: { name: `catalogue-${crypto.randomUUID()}`, spec_document: spec } });
}

async function issuesOf(spec: object) {
  const res = await publish(spec);
  expect(res.status, res.text).toBe(422);
  expect(res.json.error.details.code).toBe("SPEC_STRUCTURE_INVALID");
  return res.json.error.details.issues as { path: string; code: string; message: string }[];
}

const at = "dashboards.main.pages.home";

describe("the catalogue's documentation", () => {
  it("names every standard/1 component and each handler in docs/apps.md, so the page cannot drift from the declarations", () => {
    const section = apps.slice(apps.indexOf("### Component catalogues"), apps.indexOf("## Who a render acts for"));
    expect(section.length).toBeGreaterThan(500);
    for (const [name, component] of Object.entries(STANDARD_1)) {
      expect(section, name).toContain(`\`${name}\``);
      for (const handler of Object.keys(component.handlers)) expect(section, `${name}.${handler}`).toContain(`\`${handler}`);
    }
  });
});

describe("publish against a provider's catalogue", () => {
  it("refuses an unknown component, a literal config its schema refuses and an undeclared handler, each at its path", async () => {
    const issues = await issuesOf(
      withCatalogue("standard/1", {
        grid: { widgetComponent: "data_grid", dataSource: "rows", config: { pageSize: 5000 }, actionHandlers: { open: [], explode: [] } },
        gauge: { widgetComponent: "gauge" },
        save: { widgetComponent: "button" },
      }),
    );
    expect(issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: `${at}.widgets.grid.config.pageSize`, code: "component_config_invalid" },
      { path: `${at}.widgets.grid.actionHandlers.explode`, code: "unknown_handler" },
      { path: `${at}.widgets.gauge.widgetComponent`, code: "unknown_component" },
      { path: `${at}.widgets.save.config.label`, code: "component_config_invalid" },
    ]);
    expect(issues[2].message).toContain("which the catalogue of provider host does not declare");
    expect(issues[1].message).toBe("is not a handler of data_grid in the catalogue of provider host (handlers: open, rowAction)");
  });

  it("checks inline nodes' components and configs too, and leaves smart-valued parts to the render", async () => {
    const issues = await issuesOf(
      withCatalogue("standard/1", { title: { widgetComponent: "heading", config: { text: "{{ page.params.title }}", level: "{{ 2 }}" } } }, [
        { component: "header", config: { title: 7 } },
        ["title"],
      ]),
    );
    expect(issues.map(({ path, code }) => ({ path, code }))).toEqual([{ path: `${at}.layout[0].config.title`, code: "component_config_invalid" }]);
  });

  it("takes extends plus define: the host's own components with their schemas, and a define that is no JSON Schema is refused", async () => {
    const gauge = { config: { type: "object", required: ["value"], properties: { value: { type: "number", maximum: 100 } } }, handlers: { reset: {} } };
    const ok = await publish(
      withCatalogue(
        { extends: "standard/1", define: { gauge } },
        { g: { widgetComponent: "gauge", config: { value: 40 }, actionHandlers: { reset: [] } }, t: { widgetComponent: "text", config: { text: "hi" } } },
      ),
    );
    expect(ok.status, ok.text).toBe(201);
    const bad = await issuesOf(withCatalogue({ extends: "standard/1", define: { gauge } }, { g: { widgetComponent: "gauge", config: { value: 140 } } }));
    expect(bad.map(({ path, code }) => ({ path, code }))).toEqual([{ path: `${at}.widgets.g.config.value`, code: "component_config_invalid" }]);
    // Without extends, only what is defined exists.
    const alone = await issuesOf(
      withCatalogue({ define: { gauge } }, { t: { widgetComponent: "text", config: { text: "hi" } } }, [["t"], { component: "divider" }]),
    );
    expect(alone.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: `${at}.widgets.t.widgetComponent`, code: "unknown_component" },
      { path: `${at}.layout[1].component`, code: "unknown_component" },
    ]);
    const broken = await issuesOf(withCatalogue({ define: { gauge: { config: { type: "rainbow" } } } }, { g: { widgetComponent: "gauge" } }));
    expect(broken.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "providers.host.components.define.gauge.config", code: "component_schema_invalid" },
    ]);
  });

  it("refuses a catalogue name it does not know; without any catalogue, components stay free", async () => {
    const unknown = await issuesOf(withCatalogue("standard/9", { t: { widgetComponent: "text", config: { text: "hi" } } }));
    expect(unknown.map(({ path, code }) => ({ path, code }))).toEqual([{ path: "providers.host.components", code: "schema_violation" }]);
    const free = await publish({ ...withCatalogue("standard/1", { g: { widgetComponent: "gauge", config: { anything: true } } }), providers: hostProvider });
    expect(free.status, free.text).toBe(201);
  });
});

describe("render against the provider's catalogue", () => {
  it("drops a widget whose resolved config its schema refuses (COMPONENT_CONFIG_INVALID); the rest renders", async () => {
    const h = await hostFor(
      withCatalogue("standard/1", {
        level: { widgetComponent: "heading", config: { text: "Orders", level: "{{ context.level }}" } },
        grid: { widgetComponent: "data_grid", dataSource: "rows", config: { columns: ["n"] } },
      }),
    );
    const good = await h.render({ context: { level: 2 } });
    expect(good.status, good.text).toBe(200);
    expect(good.json.data.notifications).toEqual([]);
    const bad = await h.render({ context: { level: 9 } });
    expect(bad.status, bad.text).toBe(200);
    expect(bad.json.data.notifications).toEqual([
      { id: "widget-error-level", level: "ERROR", message: "The widget level could not be shown.", details: { code: "COMPONENT_CONFIG_INVALID" } },
    ]);
    const blocks = JSON.stringify(bad.json.data.surfaces);
    expect(blocks).toContain('"grid"');
    expect(blocks).not.toContain('"level"');
    expect(bad.json.data.referenceData.grid.rows).toEqual([{ id: "r1", n: 1 }]);
  });
});
