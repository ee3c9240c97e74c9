// GET /apps/components: the standard/1 catalogue, without credentials, each
// component's schemas valid JSON Schemas that accept and refuse what the
// component's documentation says.
import { describe, expect, it } from "vitest";
import { check } from "../../src/lib/validate";
import { META_SCHEMA } from "../../src/lib/json-schema/drafts";
import { call } from "../support/api";

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
  "section", "row", "tabs", "header", "footer", "divider", "iframe", "file_viewer",
  "text", "heading", "markdown", "button", "link", "image", "badge", "alert", "stat",
  "select", "checkbox", "text_input", "form", "data_grid", "list", "chart",
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
    expect(check(c.data_grid.state, { data_grid: { page: 2, pageSize: 20, sorting: [{ id: "attributes.n", desc: true }], filters: { name: "ab" } } })).toEqual([]);
    expect(check(c.button.config, {})).toEqual(["label: is required"]);
    expect(check(c.heading.config, { text: "Orders", level: 7 })).toEqual(["level: 7 is greater than 6"]);
    expect(check(c.chart.config, { kind: "donut", x: "name", y: "n" })).toHaveLength(1);
    expect(check(c.form.config, { fields: [{ id: "file", type: "file", maxFileSize: 26214401 }] })).toEqual(["fields[0].maxFileSize: 26214401 is greater than 26214400"]);
    expect(check(c.form.config, { fields: [{ id: "when", type: "time" }] })).toHaveLength(1);
    expect(check(c.image.config, { src: "https://x/y.png", alt: "A chart", height: "12rem" })).toEqual([]);
    expect(check(c.image.config, { src: "https://x/y.png", alt: "A chart", height: "expression(alert(1))" })).toHaveLength(1);
  });
});
