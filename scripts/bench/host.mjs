// `npm run bench -- host`: the host SDK (host/, GET /apps/host/v1.js) in
// headless Chromium, from a render answer in memory to a painted DOM, against
// the same DOM built by a hand-written document.createElement loop in the
// same page.
//
// Two answers, each rendered once by the Worker (POST /apps/run/{integrationId}
// with an app token, as apps.mjs sets one up) so they have the service's own
// shape, then handed to the page:
//   - `dashboard`: 20 widgets of standard/1 (heading, text, stat, badge,
//     button, select, checkbox, text_input, a small form, a list, a data_grid
//     of 10 rows with a row action, an alert, a link) in rows and sections
//     under a header;
//   - `grid100`: one data_grid of 100 rows (5 columns, a row action), all on
//     one page (pageSize 100).
//
// The page (a Node HTTP server in this process on 127.0.0.1) imports the built
// bundle (host/dist/index.js; built with scripts/build-host.mjs when missing
// or older than host/src). The SDK draws through its public API: mount(...,
// { autoRender: false }) then `await handle.render()`, with the page's fetch
// answering the render post at once from the answer in memory (an object with
// ok, status and json(), no parsing). The baseline is `baselineDraw` below:
// the same elements, attributes, classes, text and event listeners for the
// answer, written out by hand per component (no generic element helper, no
// checks on the answer's shape). Before timing, one draw of each is compared
// node by node (tag, attributes with the generated ids normalised, text,
// form values); the suite fails unless they are the same.
//
// One sample: a fresh container in the page, a collection (gc(), Chromium
// started with --expose-gc) and two frames to settle, then performance.now()
// around the build, a forced layout (offsetHeight) and two
// requestAnimationFrame callbacks (the frame that paints it, then the next):
// the figure's value. Headless Chromium draws frames on a 60 Hz tick (its
// --disable-frame-rate-limit did not lift it here), so that value holds the
// wait for the ticks: `idle_frames_ms` is the same two frames with nothing to
// draw. Hence two more measures of each sample without the wait: `build`, the
// build and forced layout, and `work`, that plus the painting frame's own
// work on the page's thread (from its requestAnimationFrame callback to a
// message posted there, which runs once the frame's style, layout, paint and
// commit are done). BENCH_HOST_RUNS (200) samples of each after
// BENCH_HOST_WARMUP (30), the SDK and the baseline alternating which goes
// first. Target: SDK p50 at most 1.5x the baseline's p50 (`meets_target` for
// the value, `work_meets_target` for `work`).
//
// When a case misses its target (or BENCH_HOST_PROFILE=1), Chrome's CPU
// profile (CDP Profiler) of 100 more SDK draws of that case back to back
// (no collections, forced layout or frames between them), with an
// unminified build of the same source so functions keep their names: the
// self time by function, largest first, in the log.
//
// `sdk_bundle_gzip`: host/dist/index.js gzipped at level 9, as
// scripts/build-host.mjs and test/e2e/host-sdk.test.ts count it (budget
// 25 KiB).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { figure, round } from "../lib/bench-env.mjs";
import { CHROMIUM, CHROMIUM_FLAGS } from "../lib/chromium.mjs";
import { root } from "../lib/paths.mjs";
import { percentile } from "../lib/percentile.mjs";
import { buildHost, HOST_DIST } from "../build-host.mjs";

const FLAGS = [...CHROMIUM_FLAGS, "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--js-flags=--expose-gc"];
const RUNS = Number(process.env.BENCH_HOST_RUNS ?? 200);
const WARMUP = Number(process.env.BENCH_HOST_WARMUP ?? 30);
const PROFILE_DRAWS = 100;
const TARGET_RATIO = 1.5;
const BUDGET_GZIP_KIB = 25;
const PROVIDER = "host";
const COMPANY = "bench-host-co";

// ---- the two specs ----

const provider = {
  [PROVIDER]: {
    auth: { type: "bearer" },
    autoCreateUsers: true,
    identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
  },
};

const ORDERS = Array.from({ length: 10 }, (_, i) => ({
  id: `o-${i + 1}`,
  name: `Order ${i + 1}`,
  total: ((i * 37) % 101) + 1,
  status: i % 3 ? "open" : "paid",
}));
const PEOPLE = ["Ada", "Grace", "Edsger", "Barbara", "Donald"].map((name, i) => ({ id: `p-${i + 1}`, name, role: i % 2 ? "Support" : "Sales" }));
const ITEMS = Array.from({ length: 100 }, (_, i) => ({
  id: `it-${i + 1}`,
  name: `Item ${i + 1}`,
  sku: `SKU-${String(i + 1).padStart(5, "0")}`,
  qty: (i * 53) % 500,
  price: Math.round(((i * 7919) % 100000) / 10) / 10,
  status: ["in stock", "low", "out"][i % 3],
}));

function dashboardSpec() {
  return {
    dashboards: {
      desk: {
        name: "Order desk",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: { orders: { $rows: ORDERS }, people: { $rows: PEOPLE } },
            widgets: {
              title: { widgetComponent: "heading", config: { text: "Overview", level: 2 } },
              lead: { widgetComponent: "text", config: { text: "Everything about today's orders", tone: "muted" } },
              note: { widgetComponent: "text", config: { text: "Figures refresh every minute" } },
              help: { widgetComponent: "link", config: { label: "Help centre", href: "https://example.com/help", newTab: true } },
              open: { widgetComponent: "stat", config: { label: "Open orders", value: 16, unit: "orders", trend: "up" } },
              revenue: { widgetComponent: "stat", config: { label: "Revenue", value: 12840, unit: "EUR", trend: "flat" } },
              late: { widgetComponent: "stat", config: { label: "Late", value: 3, trend: "down" } },
              live: { widgetComponent: "badge", config: { label: "Live", tone: "success" } },
              beta: { widgetComponent: "badge", config: { label: "Beta", tone: "info" } },
              refresh: { widgetComponent: "button", config: { label: "Refresh" } },
              export: { widgetComponent: "button", config: { label: "Export", variant: "primary" } },
              filters: { widgetComponent: "heading", config: { text: "Filters", level: 3 } },
              region: {
                widgetComponent: "select",
                config: {
                  label: "Region",
                  options: [
                    { value: "eu", label: "Europe" },
                    { value: "am", label: "Americas" },
                    { value: "ap", label: "Asia Pacific" },
                    { value: 4, label: "Africa" },
                  ],
                  value: "eu",
                },
              },
              urgent: { widgetComponent: "checkbox", config: { label: "Urgent only", checked: true } },
              search: { widgetComponent: "text_input", config: { label: "Search", placeholder: "Order name" } },
              remark: { widgetComponent: "text_input", config: { label: "Remark", multiline: true, value: "Call before noon" } },
              orders: {
                widgetComponent: "data_grid",
                dataSource: "orders",
                config: {
                  title: "Recent orders",
                  pageSize: 10,
                  columns: ["name", { path: "total", label: "Total", type: "number" }, { path: "status", label: "Status", type: "badge" }],
                  rowActions: [{ action: "details", label: "Details" }],
                },
              },
              team: { widgetComponent: "list", dataSource: "people", config: { titlePath: "name", subtitlePath: "role" } },
              heads_up: { widgetComponent: "alert", config: { title: "Heads up", message: "Invoices are sent at midnight", level: "info" } },
              contact: {
                widgetComponent: "form",
                config: {
                  fields: [
                    { id: "name", type: "text", label: "Name", required: true, placeholder: "Your name" },
                    { id: "qty", type: "number", label: "Quantity" },
                    { id: "comment", type: "textarea", label: "Comment" },
                  ],
                  submitLabel: "Send",
                },
              },
            },
            layout: [
              { component: "header", config: { title: "Order desk", subtitle: "Today" } },
              ["title"],
              ["lead", "note", "help"],
              ["open", "revenue", "late"],
              ["live", "beta", "refresh", "export"],
              { component: "section", config: { title: "Find" }, children: ["filters", "region", "urgent", "search", "remark"] },
              ["orders", "team"],
              { component: "section", config: { title: "Contact" }, children: ["heads_up", "contact"] },
            ],
          },
        },
      },
    },
    providers: provider,
  };
}

function gridSpec() {
  return {
    dashboards: {
      stock: {
        name: "Stock",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: { items: { $rows: ITEMS } },
            widgets: {
              items: {
                widgetComponent: "data_grid",
                dataSource: "items",
                config: {
                  title: "Inventory",
                  pageSize: 100,
                  columns: [
                    "name",
                    { path: "sku", label: "SKU" },
                    { path: "qty", label: "Quantity", type: "number" },
                    { path: "price", label: "Price", type: "number" },
                    { path: "status", label: "Status", type: "badge" },
                  ],
                  rowActions: [{ action: "details", label: "Details" }],
                },
              },
            },
            layout: [["items"]],
          },
        },
      },
    },
    providers: provider,
  };
}

/** Publishes and activates a spec, gives company `companyId` an integration and its app token, renders once: the answer's `data`. */
async function answerOf(env, name, spec, companyId) {
  const saved = (await env.api("POST", "/definition/specs", { name, spec_document: spec })).data;
  await env.api("PUT", `/apps/${saved.id}/config`, { config: {} });
  const integration = (await env.api("POST", `/apps/${saved.id}/integrations`, { external_company_id: companyId })).data;
  const { raw_token } = await env.api("PUT", `/apps/${saved.id}/integrations/${integration.id}/token`);
  const res = await fetch(`${env.base}/apps/run/${integration.id}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${raw_token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ user: "u-1", company: COMPANY }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`render of ${name} answered ${res.status} ${text.slice(0, 500)}`);
  const { data } = JSON.parse(text);
  if (data.notifications.some((n) => n.level === "ERROR")) throw new Error(`render of ${name} notified ${JSON.stringify(data.notifications)}`);
  return data;
}

async function answers(env) {
  const company = (await env.api("POST", "/access/external-companies", { provider: PROVIDER, external_id: COMPANY })).data;
  const dashboard = await answerOf(env, "Bench host dashboard", dashboardSpec(), company.id);
  const grid100 = await answerOf(env, "Bench host grid", gridSpec(), company.id);
  const rows = grid100.referenceData.items;
  if (rows?.rows?.length !== 100 || rows.total !== 100)
    throw new Error(`the grid answer holds ${rows?.rows?.length} rows of ${rows?.total}, expected 100 of 100`);
  if (dashboard.referenceData.orders?.rows?.length !== 10) throw new Error("the dashboard answer holds no 10 orders");
  return { dashboard, grid100 };
}

// ---- the bundle ----

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** host/dist/index.js, built first when missing or older than host/src. */
async function bundle(log) {
  const file = resolve(HOST_DIST, "index.js");
  if (!existsSync(file) || statSync(file).mtimeMs < newestMtime(resolve(root, "host", "src"))) {
    log("[bench] host: building host/dist with scripts/build-host.mjs");
    await buildHost();
  }
  return readFileSync(file);
}

/** The same source unminified (for a CPU profile with function names), in a temporary folder. */
async function debugBundle() {
  const outfile = join(tmpdir(), `host-bench-${process.pid}.js`);
  await build({
    entryPoints: [resolve(root, "host", "src", "index.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: false,
    logLevel: "error",
    tsconfig: resolve(root, "host", "tsconfig.json"),
  });
  return readFileSync(outfile);
}

// ---- the page ----

/*
 * The baseline: the answer's DOM written out by hand, per component, with
 * createElement, className, setAttribute, textContent and appendChild. It
 * knows the components these two answers use and draws the same elements,
 * attributes, text and listeners as the SDK for them (ids from a counter of
 * its own, `pf-b<n>-<hint>`, which the comparison reads as the SDK's
 * `pf-<n>-<hint>`). Runs in the page: it must use nothing from this module.
 */
function baselineDraw(container, answer) {
  let counter = 0;
  const uid = (hint) => `pf-b${++counter}-${hint}`;
  // A hand-written page gives each control a handler of its own, as the SDK does.
  const handler = (what) => () => void what;
  const el = (tag, cls) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    return e;
  };
  const textEl = (tag, cls, text) => {
    const e = el(tag, cls);
    e.textContent = text;
    return e;
  };
  const btn = (label, cls, what) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = label;
    b.addEventListener("click", handler(what));
    return b;
  };
  const field = (label, control, required) => {
    const id = uid("field");
    control.id = id;
    if (required) control.setAttribute("aria-required", "true");
    const wrap = el("div", "pf-field");
    const l = textEl("label", "", label);
    l.htmlFor = id;
    if (required) {
      const star = textEl("span", "pf-required", " *");
      star.setAttribute("aria-hidden", "true");
      l.appendChild(star);
    }
    wrap.append(l, control);
    return wrap;
  };
  const cellText = (v) => (typeof v === "string" ? v : String(v));
  const draw = {
    heading: (p) => textEl(`h${p.level}`, "", p.text),
    text: (p) => {
      const e = el("p", p.tone === "muted" ? "pf-muted" : p.tone === "strong" ? "pf-strong" : "");
      e.textContent = p.text;
      return e;
    },
    link: (p) => {
      const a = el("a");
      a.href = p.href;
      a.rel = "noopener noreferrer";
      if (p.newTab) a.target = "_blank";
      a.textContent = p.label;
      return a;
    },
    stat: (p) => {
      const e = el("div", "pf-stat");
      e.appendChild(textEl("span", "pf-stat-label", p.label));
      const v = textEl("span", "pf-stat-value", String(p.value));
      if (p.unit !== undefined) v.append(` ${p.unit}`);
      e.appendChild(v);
      if (p.trend) e.appendChild(textEl("span", "pf-muted", { up: "▲ up", down: "▼ down", flat: "▶ flat" }[p.trend]));
      return e;
    },
    badge: (p) => textEl("span", `pf-badge pf-tone-${p.tone}`, p.label),
    button: (p) => btn(p.label, p.variant ? `pf-btn pf-btn-${p.variant}` : "pf-btn", p),
    select: (p) => {
      const s = el("select");
      const first = textEl("option", "", p.placeholder || "—");
      first.value = "";
      s.appendChild(first);
      p.options.forEach((o, i) => {
        const opt = el("option");
        opt.value = String(i);
        if (o.value === p.value) opt.setAttribute("selected", "");
        opt.textContent = o.label;
        s.appendChild(opt);
      });
      s.addEventListener("change", handler(p));
      return field(p.label, s);
    },
    checkbox: (p) => {
      const id = uid("check");
      const wrap = el("div", "pf-check");
      const input = el("input");
      input.type = "checkbox";
      input.id = id;
      if (p.checked) input.setAttribute("checked", "");
      input.addEventListener("change", handler(p));
      const l = el("label");
      l.htmlFor = id;
      l.textContent = p.label;
      wrap.append(input, l);
      return wrap;
    },
    text_input: (p) => {
      let input;
      if (p.multiline) {
        input = el("textarea");
        input.rows = 3;
      } else {
        input = el("input");
        input.type = "text";
      }
      if (p.placeholder) input.placeholder = p.placeholder;
      input.value = p.value ?? "";
      input.addEventListener("input", handler(p));
      input.addEventListener("change", handler(p));
      if (!p.multiline) input.addEventListener("keydown", handler(p));
      return field(p.label, input);
    },
    form: (p) => {
      const f = el("form", "pf-form");
      f.noValidate = true;
      for (const fd of p.fields) {
        let input;
        if (fd.type === "textarea") {
          input = el("textarea");
          input.rows = 4;
        } else {
          input = el("input");
          input.type = fd.type === "number" ? "number" : "text";
        }
        if (fd.placeholder !== undefined) input.placeholder = fd.placeholder;
        input.value = "";
        input.addEventListener("input", handler(fd));
        f.appendChild(field(fd.label, input, fd.required === true));
      }
      const actions = el("div", "pf-actions");
      const submit = textEl("button", "pf-btn pf-btn-primary", p.submitLabel);
      submit.type = "submit";
      actions.appendChild(submit);
      f.appendChild(actions);
      f.addEventListener("submit", handler(p));
      return f;
    },
    list: (p, data) => {
      const ul = el("ul", "pf-list");
      for (const r of data.rows) {
        const li = el("li");
        li.appendChild(btn(r[p.titlePath], "pf-linkbtn", r.id));
        li.appendChild(textEl("div", "pf-muted", r[p.subtitlePath]));
        ul.appendChild(li);
      }
      return ul;
    },
    alert: (p) => {
      const e = el("div", `pf-alert pf-alert-${p.level}`);
      e.setAttribute("role", "status");
      e.appendChild(textEl("strong", "", p.title));
      e.append(p.message);
      return e;
    },
    data_grid: (p, data) => {
      const wrap = el("div", "pf-grid");
      const cols = p.columns.map((c) =>
        typeof c === "string" ? { path: c, label: c, type: "text" } : { path: c.path, label: c.label, type: c.type || "text" },
      );
      const table = el("table");
      const caption = el("caption");
      caption.textContent = p.title;
      table.appendChild(caption);
      const thead = el("thead");
      const htr = el("tr");
      for (const c of cols) {
        const th = el("th", c.type === "number" ? "pf-num" : "");
        th.setAttribute("scope", "col");
        const b = btn(c.label, "", c.path);
        b.setAttribute("data-control", `sort:${c.path}`);
        th.appendChild(b);
        htr.appendChild(th);
      }
      const actionsTh = el("th");
      actionsTh.setAttribute("scope", "col");
      actionsTh.textContent = "Actions";
      htr.appendChild(actionsTh);
      thead.appendChild(htr);
      table.appendChild(thead);
      const tbody = el("tbody");
      for (const r of data.rows) {
        const tr = el("tr");
        tr.setAttribute("data-item-id", r.id);
        cols.forEach((c, i) => {
          const td = el("td", c.type === "number" ? "pf-num" : "");
          const v = r[c.path];
          if (i === 0) td.appendChild(btn(cellText(v), "pf-linkbtn", r.id));
          else if (c.type === "badge") td.appendChild(textEl("span", "pf-badge pf-tone-neutral", cellText(v)));
          else td.append(cellText(v));
          tr.appendChild(td);
        });
        const td = el("td");
        const actions = el("div", "pf-actions");
        for (const a of p.rowActions) actions.appendChild(btn(a.label, "pf-btn", a.action));
        td.appendChild(actions);
        tr.appendChild(td);
        tbody.appendChild(tr);
      }
      table.appendChild(tbody);
      wrap.appendChild(table);
      return wrap;
    },
  };
  const block = (b) => {
    let e;
    if (Array.isArray(b)) {
      e = el("div", "pf-row");
      for (const c of b) e.appendChild(block(c));
      e.classList.add("pf-block");
      e.setAttribute("data-component", "row");
      return e;
    }
    if (b.widgetComponent) {
      e = draw[b.widgetComponent](b.props, answer.referenceData[b.id]);
      e.classList.add("pf-block");
      e.setAttribute("data-component", b.widgetComponent);
      e.setAttribute("data-widget-id", b.id);
      return e;
    }
    const c = b.config || {};
    if (b.component === "header") {
      e = el("header", "pf-header");
      e.appendChild(textEl("h2", "", c.title));
      e.appendChild(textEl("p", "", c.subtitle));
    } else if (b.component === "section") {
      e = el("section", "pf-section");
      e.appendChild(textEl("h2", "", c.title));
    } else {
      e = el("div", "pf-row");
    }
    for (const child of b.children || []) e.appendChild(block(child));
    e.classList.add("pf-block");
    e.setAttribute("data-component", b.component);
    if (b.id) e.setAttribute("data-node-id", b.id);
    return e;
  };
  const rootEl = el("div", "pf-root");
  rootEl.appendChild(el("div", "pf-notifications"));
  for (const s of answer.surfaces) {
    const surface = el("div", "pf-surface");
    surface.setAttribute("data-surface", s.type);
    surface.setAttribute("data-page", s.page);
    for (const b of s.blocks) surface.appendChild(block(b));
    rootEl.appendChild(surface);
  }
  container.replaceChildren(rootEl);
}

/*
 * The page's side of the bench: builds, checks and times. Runs in the page,
 * with `mount` (the SDK) and `baselineDraw` in scope.
 */
function pageBench() {
  let current;
  // The SDK's render post, answered at once from the answer in memory.
  window.fetch = () => Promise.resolve({ ok: true, status: 200, json: () => Promise.resolve({ data: current }) });
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const frames = async () => {
    await frame();
    await frame();
  };
  const stage = document.getElementById("stage");

  const draws = {
    async sdk(container, answer) {
      current = answer;
      const handle = mount(container, { endpoint: "https://bench.invalid/run", autoRender: false });
      await handle.render();
      return () => handle.destroy();
    },
    async baseline(container, answer) {
      baselineDraw(container, answer);
      return () => container.replaceChildren();
    },
  };

  /** The tree as text: tags, attributes (generated ids normalised), text, form values. */
  function canon(node, out, counts) {
    if (node.nodeType === Node.TEXT_NODE) {
      out.push(`"${node.data}"`);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    counts.elements++;
    const attrs = [...node.attributes].map((a) => `${a.name}=${a.value.replace(/^pf-b?\d+-/, "pf-#-")}`).sort();
    const values = "value" in node && node.tagName !== "BUTTON" && node.tagName !== "OPTION" ? ` value=${node.value}` : "";
    const checked = node.tagName === "INPUT" && node.type === "checkbox" ? ` checked=${node.checked}` : "";
    out.push(`<${node.tagName.toLowerCase()} ${attrs.join(" ")}${values}${checked}>`);
    for (const child of node.childNodes) canon(child, out, counts);
    out.push(`</${node.tagName.toLowerCase()}>`);
  }

  async function check(answer) {
    const seen = {};
    for (const kind of ["sdk", "baseline"]) {
      const container = stage.appendChild(document.createElement("div"));
      const undo = await draws[kind](container, structuredClone(answer));
      const out = [];
      const counts = { elements: 0 };
      canon(container.firstElementChild, out, counts);
      seen[kind] = { text: out.join("\n"), elements: counts.elements, textContent: container.textContent };
      undo();
      container.remove();
    }
    const a = seen.sdk.text.split("\n");
    const b = seen.baseline.text.split("\n");
    const at = a.findIndex((line, i) => line !== b[i]);
    return {
      same: seen.sdk.text === seen.baseline.text,
      sameText: seen.sdk.textContent === seen.baseline.textContent,
      elements: seen.sdk.elements,
      baselineElements: seen.baseline.elements,
      textLength: seen.sdk.textContent.length,
      firstDifference: at < 0 ? null : { at, sdk: a.slice(Math.max(0, at - 3), at + 3), baseline: b.slice(Math.max(0, at - 3), at + 3) },
    };
  }

  async function sample(kind, answer) {
    const container = stage.appendChild(document.createElement("div"));
    const input = structuredClone(answer);
    gc();
    await frames();
    const started = performance.now();
    const undo = await draws[kind](container, input);
    if (container.offsetHeight <= 0) throw new Error(`${kind} drew nothing visible`);
    const built = performance.now();
    // The next frame: from its requestAnimationFrame to a message posted there, which runs once the frame's
    // rendering (style, layout, paint, commit) is done on this thread.
    const paint = await new Promise((resolve) =>
      requestAnimationFrame(() => {
        const at = performance.now();
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(performance.now() - at);
        channel.port2.postMessage(0);
      }),
    );
    await frame();
    const painted = performance.now();
    undo();
    container.remove();
    return { total: painted - started, build: built - started, work: built - started + paint };
  }

  async function idleFrames(n) {
    const out = [];
    for (let i = 0; i < n; i++) {
      gc();
      await frames();
      const started = performance.now();
      await frames();
      out.push(performance.now() - started);
    }
    return out;
  }

  async function time(answer, runs, warmup) {
    const got = { sdk: { total: [], build: [], work: [] }, baseline: { total: [], build: [], work: [] } };
    for (let i = 0; i < warmup + runs; i++) {
      for (const kind of i % 2 === 0 ? ["sdk", "baseline"] : ["baseline", "sdk"]) {
        const s = await sample(kind, answer);
        if (i < warmup) continue;
        for (const key of ["total", "build", "work"]) got[kind][key].push(s[key]);
      }
    }
    return got;
  }

  /** SDK draws only, back to back, without the samples' collections, layout and frames (a CPU profile is taken around them). */
  async function sdkOnly(answer, n) {
    for (let i = 0; i < n; i++) {
      const container = stage.appendChild(document.createElement("div"));
      const undo = await draws.sdk(container, structuredClone(answer));
      undo();
      container.remove();
    }
  }

  window.__bench = { check, time, idleFrames, sdkOnly };
}

const pageModule = (sdkPath) => `import { mount } from "${sdkPath}";
${baselineDraw}
(${pageBench})();
`;

const HTML = (script) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host bench</title></head><body><div id="stage"></div><script type="module" src="${script}"></script></body></html>`;

/** A Node server on 127.0.0.1 for the page, the SDK and the bench module. */
function servePage(files) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = files[path];
    if (path === "/favicon.ico") return void res.writeHead(204).end();
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": file.type, "Cache-Control": "no-store" });
    res.end(file.body);
  });
  return new Promise((r) => {
    server.listen(0, "127.0.0.1", () => r({ origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((c) => server.close(c)) }));
  });
}

const sorted = (values) => [...values].sort((a, b) => a - b);
const JS = "text/javascript; charset=utf-8";
const HTML_TYPE = "text/html; charset=utf-8";

async function openPage(browser, origin, page, log) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const tab = await context.newPage();
  tab.on("pageerror", (e) => log(`[bench] host: page error: ${e.message}`));
  tab.on("console", (m) => void (m.type() === "error" && log(`[bench] host: console error: ${m.text()}`)));
  await tab.goto(`${origin}${page}`);
  await tab.waitForFunction(() => !!window.__bench);
  return tab;
}

/** Self time by function over a CDP CPU profile, largest first. */
function selfTimes(profile, top = 15) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    const key = `${functionName || "(anonymous)"} ${url ? `${url.split("/").pop()}:${lineNumber + 1}` : ""}`.trim();
    ms.set(key, (ms.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
  const total = [...ms.values()].reduce((a, b) => a + b, 0);
  return [...ms.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, t]) => ({ name, ms: round(t, 1), share: round(t / total, 3) }));
}

async function profileSdk(browser, origin, answer, name, log) {
  const tab = await openPage(browser, origin, "/debug.html", log);
  await tab.evaluate(({ answer }) => window.__bench.sdkOnly(answer, 20), { answer });
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  await tab.evaluate(({ answer, n }) => window.__bench.sdkOnly(answer, n), { answer, n: PROFILE_DRAWS });
  const { profile } = await cdp.send("Profiler.stop");
  await tab.context().close();
  const top = selfTimes(profile, 20);
  log(
    `[bench] host: CPU profile of ${PROFILE_DRAWS} SDK draws of ${name} back to back (unminified build; no forced layout, no frames), self time by function:`,
  );
  for (const t of top) log(`[bench] host:   ${String(t.ms).padStart(8)} ms  ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.name}`);
}

function caseFigures(name, got, check, idle) {
  const p = (kind, key, q) => percentile(sorted(got[kind][key]), q);
  const common = { runs: got.sdk.total.length, elements: check.elements, idle_frames_ms: round(percentile(idle, 50), 2) };
  const at = (q) => {
    const [ours, base] = [p("sdk", "total", q), p("baseline", "total", q)];
    const [work, baseWork] = [p("sdk", "work", q), p("baseline", "work", q)];
    const [build, baseBuild] = [p("sdk", "build", q), p("baseline", "build", q)];
    return figure(`host_${name}_p${q}`, round(ours, 2), "ms", round(base, 2), round(ours / base), {
      ...(q === 50 ? { target_ratio: TARGET_RATIO, meets_target: ours / base <= TARGET_RATIO } : {}),
      work_ms: round(work, 2),
      baseline_work_ms: round(baseWork, 2),
      work_ratio: round(work / baseWork),
      ...(q === 50 ? { work_meets_target: work / baseWork <= TARGET_RATIO } : {}),
      build_ms: round(build, 2),
      baseline_build_ms: round(baseBuild, 2),
      build_ratio: round(build / baseBuild),
      ...common,
    });
  };
  return [at(50), at(95)];
}

export async function run(env, log) {
  const code = await bundle(log);
  const gz = gzipSync(code, { level: 9 }).byteLength;
  const bundleFigure = figure("sdk_bundle_gzip", round(gz / 1024, 1), "KiB", null, null, {
    bytes: gz,
    minified_kib: round(code.byteLength / 1024, 1),
    target_kib: BUDGET_GZIP_KIB,
    meets_target: gz <= BUDGET_GZIP_KIB * 1024,
  });
  log(`[bench] host: ${JSON.stringify(bundleFigure)}`);

  log("[bench] host: rendering the two answers with the Worker");
  const cases = await answers(env);
  const debug = await debugBundle();
  const server = await servePage({
    "/": { type: HTML_TYPE, body: HTML("/bench.js") },
    "/debug.html": { type: HTML_TYPE, body: HTML("/bench-debug.js") },
    "/sdk.js": { type: JS, body: code },
    "/sdk-debug.js": { type: JS, body: debug },
    "/bench.js": { type: JS, body: pageModule("/sdk.js") },
    "/bench-debug.js": { type: JS, body: pageModule("/sdk-debug.js") },
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const figures = [bundleFigure];
  try {
    for (const [name, answer] of Object.entries(cases)) {
      const tab = await openPage(browser, server.origin, "/", log);
      const check = await tab.evaluate(({ answer }) => window.__bench.check(answer), { answer });
      if (!check.same || !check.sameText || check.elements !== check.baselineElements) {
        throw new Error(`${name}: the baseline's DOM is not the SDK's: ${JSON.stringify(check, null, 1)}`);
      }
      log(
        `[bench] host: ${name}: the same DOM both ways (${check.elements} elements, ${check.textLength} characters of text); ${WARMUP} warm-up and ${RUNS} measured samples of each`,
      );
      const idle = sorted(await tab.evaluate(() => window.__bench.idleFrames(50)));
      const got = await tab.evaluate(({ answer, runs, warmup }) => window.__bench.time(answer, runs, warmup), { answer, runs: RUNS, warmup: WARMUP });
      await tab.context().close();
      const made = caseFigures(name, got, check, idle);
      for (const f of made) log(`[bench] host: ${JSON.stringify(f)}`);
      figures.push(...made);
      if (!made[0].meets_target || !made[0].work_meets_target || process.env.BENCH_HOST_PROFILE) {
        await profileSdk(browser, server.origin, answer, name, log);
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return figures;
}
