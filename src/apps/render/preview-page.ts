// GET /apps/{specId}/preview: the page an author opens in a browser to see
// the dashboard without a host. It is one self-contained document (inline
// CSS and script under a per-answer nonce, nothing loaded from elsewhere)
// that posts to POST /apps/{specId}/preview on the same origin, the browser
// resending the Basic credentials it was asked for, and draws the answer.
// Everything a spec or an answer says is untrusted: the server writes it
// only as escaped JSON, the script only through textContent.
import type { SpecDocument } from "../../definition/language/spec-schema";
import { DashboardView } from "./pages/dashboard";

/** The handler names of each widget that has any, by widget id. */
type Handlers = Record<string, string[]>;

/**
 * What the page needs of the spec besides the answer, per dashboard: the
 * page keys its picker offers, and each widget's action handler names (a
 * page's or modal's own widgets over the dashboard's and spec's, as a render
 * resolves them; a page's own widget is listed even without handlers, since
 * it hides a shared one of the same id).
 */
export interface PreviewOutline {
  dashboards: Record<string, { pages: string[]; shared: Handlers; pageWidgets: Record<string, Handlers>; modalWidgets: Record<string, Handlers> }>;
}

const handlerNames = (widget: { actionHandlers?: Record<string, unknown> } | undefined) => Object.keys(widget?.actionHandlers ?? {});

function ownHandlers(widgets: Record<string, { actionHandlers?: Record<string, unknown> }> | undefined): Handlers {
  return Object.fromEntries(Object.entries(widgets ?? {}).map(([id, widget]) => [id, handlerNames(widget)]));
}

export function previewOutline(spec: SpecDocument): PreviewOutline {
  const dashboards: PreviewOutline["dashboards"] = {};
  for (const [key, dashboard] of Object.entries(spec.dashboards)) {
    const view = new DashboardView(key, dashboard, spec);
    const shared = Object.fromEntries(Object.entries(view.widgets).flatMap(([id, widget]) => (handlerNames(widget).length ? [[id, handlerNames(widget)]] : [])));
    const byKey = (docs: Record<string, { widgets?: Record<string, { actionHandlers?: Record<string, unknown> }> }>) =>
      Object.fromEntries(Object.entries(docs).map(([k, doc]) => [k, ownHandlers(doc?.widgets)]));
    dashboards[key] = { pages: Object.keys(view.pages), shared, pageWidgets: byKey(view.pages), modalWidgets: byKey(view.modals) };
  }
  return { dashboards };
}

/**
 * JSON that stays inert inside a `<script type="application/json">`: no
 * `<` (so no `</script>` or `<!--`), `>` or `&` survives literally, nor the
 * two line separators some parsers end a line at.
 */
function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]);

/**
 * The headers the page is served with: only the nonce's style and script
 * run, the script may reach its own origin and nothing else, and the page
 * may not be framed or submit anywhere.
 */
export function previewPageHeaders(nonce: string): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
  };
}

export function previewPage(specId: string, nonce: string, outline: PreviewOutline): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Preview of app spec ${escapeHtml(specId)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header>
  <h1>Preview of app spec <code>${escapeHtml(specId)}</code></h1>
  <div class="controls">
    <label>Page <select id="page-picker"></select></label>
    <button type="button" id="show-page">Show page</button>
    <button type="button" id="rerender">Re-render</button>
    <button type="button" id="reset">Fresh render</button>
    <span id="status" role="status"></span>
  </div>
  <details>
    <summary>Identity, config and context sent with each render</summary>
    <textarea id="extras" rows="5" spellcheck="false">{"identity": {}, "config": {}, "context": {}}</textarea>
  </details>
</header>
<div id="error" class="error" hidden></div>
<main>
  <section><h2>Notifications</h2><ul id="notifications"></ul></section>
  <section><h2>Surfaces</h2><div id="surfaces"></div></section>
  <section><h2>State</h2><pre id="state"></pre></section>
  <section><h2>referenceData</h2><pre id="reference-data"></pre></section>
  <section id="debug-section" hidden><h2>debug</h2><pre id="debug"></pre></section>
</main>
<script type="application/json" id="outline">${inertJson(outline)}</script>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ccc; padding: 8px 16px; z-index: 1; }
h1 { font-size: 16px; margin: 0 0 6px; }
h2 { font-size: 15px; margin: 16px 0 6px; }
h3, h4 { font-size: 13px; margin: 6px 0; }
main { padding: 0 16px 32px; }
.controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
textarea { width: 100%; font: 12px monospace; box-sizing: border-box; }
pre { background: #fff; border: 1px solid #ddd; padding: 6px; margin: 4px 0; overflow: auto; max-height: 320px; font-size: 12px; white-space: pre-wrap; word-break: break-word; }
.error { background: #fde8e8; border: 1px solid #c62828; color: #8e0000; margin: 8px 16px; padding: 8px; white-space: pre-wrap; }
.surface { background: #fff; border: 2px solid #4a6fa5; border-radius: 6px; padding: 8px; margin-bottom: 12px; }
.modal { border: 2px dashed #8a5aa5; border-radius: 6px; padding: 8px; margin-top: 8px; }
.row { display: flex; gap: 8px; border: 1px dotted #999; padding: 6px; margin: 4px 0; }
.row > * { flex: 1 1 0; min-width: 0; }
.widget { border: 1px solid #2e7d32; border-radius: 4px; padding: 6px; margin: 4px 0; background: #f6fbf6; }
.node { border: 1px solid #b26a00; border-radius: 4px; padding: 6px; margin: 4px 0; background: #fffaf2; }
.label { font-weight: 600; }
.actions { display: flex; gap: 4px; flex-wrap: wrap; }
.INFO { color: #1d4f91; } .WARNING { color: #8a5a00; } .ERROR { color: #b00020; }
#status { color: #555; }
`;

// Plain ES2020 run as is by the browser: no build step, no library.
const SCRIPT = `
"use strict";
(() => {
  const outline = JSON.parse(document.getElementById("outline").textContent);
  // The page's own path is the POST's; location.origin carries no user:password from the address bar.
  const endpoint = location.origin + location.pathname;
  const $ = (id) => document.getElementById(id);
  const buttons = () => document.querySelectorAll("button");
  let answer = null;

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const json = (value) => el("pre", "json", JSON.stringify(value, null, 2));

  function extras() {
    const text = $("extras").value.trim();
    if (!text) return {};
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("The identity, config and context must be a JSON object");
    const picked = {};
    for (const key of ["identity", "config", "context"]) if (value[key] !== undefined) picked[key] = value[key];
    return picked;
  }

  async function post(body, what) {
    const error = $("error");
    error.hidden = true;
    let payload;
    try {
      payload = { ...extras(), ...body };
    } catch (e) {
      error.textContent = "Not sent: " + e.message;
      error.hidden = false;
      return;
    }
    buttons().forEach((b) => (b.disabled = true));
    $("status").textContent = what + "…";
    try {
      const res = await fetch(endpoint, { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
      const text = await res.text();
      let parsed;
      try { parsed = JSON.parse(text); } catch { parsed = undefined; }
      if (res.ok && parsed && parsed.data) {
        answer = parsed.data;
        draw(answer);
        $("status").textContent = what + ": " + res.status;
      } else {
        const e = parsed && parsed.error;
        error.textContent = e ? res.status + " " + e.code + ": " + e.message + (e.details && Object.keys(e.details).length ? "\\n" + JSON.stringify(e.details, null, 2) : "") : res.status + ": " + text.slice(0, 2000);
        error.hidden = false;
        $("status").textContent = what + ": " + res.status;
      }
    } catch (e) {
      error.textContent = "The request failed: " + e.message;
      error.hidden = false;
      $("status").textContent = "";
    } finally {
      buttons().forEach((b) => (b.disabled = false));
    }
  }

  const own = (map, key) => (map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined);
  function handlersOf(scope, id) {
    const dashboard = answer && own(outline.dashboards, answer.state.dashboard);
    if (!dashboard) return [];
    const local = own(own(scope.modal ? dashboard.modalWidgets : dashboard.pageWidgets, scope.page), id);
    return local || own(dashboard.shared, id) || [];
  }

  function block(b, scope) {
    if (b.component === "row") {
      const row = el("div", "row");
      for (const child of b.children || []) row.append(block(child, scope));
      return row;
    }
    if (typeof b.widgetComponent === "string") {
      const box = el("div", "widget");
      box.dataset.widgetId = String(b.id);
      box.append(el("div", "label", b.id + " · " + b.widgetComponent), json(b.props));
      const handlers = handlersOf(scope, b.id);
      if (handlers.length) {
        const actions = el("div", "actions");
        for (const handler of handlers) {
          const button = el("button", "action", b.id + " → " + handler);
          button.type = "button";
          button.addEventListener("click", () => post({ state: answer.state, action: { widgetId: b.id, handler, surface: scope.surface } }, "Action " + handler));
          actions.append(button);
        }
        box.append(actions);
      }
      return box;
    }
    const node = el("div", "node");
    node.append(el("div", "label", String(b.component) + (b.id !== undefined ? " #" + b.id : "")));
    if (b.config !== undefined) node.append(json(b.config));
    for (const child of b.children || []) node.append(block(child, scope));
    return node;
  }

  function draw(data) {
    const list = $("notifications");
    list.replaceChildren(...data.notifications.map((n) => el("li", n.level, n.level + " " + n.id + ": " + n.message)));
    if (!data.notifications.length) list.append(el("li", "", "none"));

    const surfaces = $("surfaces");
    surfaces.replaceChildren();
    for (const s of data.surfaces) {
      const box = el("div", "surface");
      box.dataset.surface = s.type;
      box.append(el("h3", "", s.type + " · page " + s.page));
      if (s.props !== undefined) box.append(el("h4", "", "props"), json(s.props));
      for (const b of s.blocks) box.append(block(b, { page: s.page, surface: s.id }));
      for (const m of s.modals || []) {
        const modal = el("div", "modal");
        modal.append(el("h4", "", "modal " + m.page + (m.wide ? " (wide)" : "")));
        for (const b of m.blocks) modal.append(block(b, { page: m.page, modal: true, surface: s.id }));
        box.append(modal);
      }
      surfaces.append(box);
    }
    if (!data.surfaces.length) surfaces.append(el("p", "", "No surface is shown."));

    $("state").textContent = JSON.stringify(data.state, null, 2);
    $("reference-data").textContent = JSON.stringify(data.referenceData, null, 2);
    $("debug-section").hidden = data.debug === undefined;
    $("debug").textContent = data.debug === undefined ? "" : JSON.stringify(data.debug, null, 2);

    const picker = $("page-picker");
    const dashboard = own(outline.dashboards, data.state.dashboard);
    const shown = data.state.page ?? (data.surfaces[0] && data.surfaces[0].page);
    picker.replaceChildren(...(dashboard ? dashboard.pages : []).map((key) => {
      const option = el("option", "", key);
      option.value = key;
      option.selected = key === shown;
      return option;
    }));
  }

  $("show-page").addEventListener("click", () => {
    if (!answer) return;
    const page = $("page-picker").value;
    post({ state: { ...answer.state, page, params: {}, data: {}, modals: [] } }, "Page " + page);
  });
  $("rerender").addEventListener("click", () => post(answer ? { state: answer.state } : {}, "Re-render"));
  $("reset").addEventListener("click", () => post({}, "Fresh render"));
  post({}, "Render");
})();
`;
