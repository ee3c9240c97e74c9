// GET /apps/{specId}/preview: the page an author opens in a browser to see
// the dashboard without a host. It draws the app with the host SDK, as a host
// page would: its one module script (inline, under a per-answer nonce)
// imports the SDK from the service's own GET /apps/host/v1.js and mounts the
// app with `endpoint` set to POST /apps/{specId}/preview on the same origin,
// the browser resending the Basic credentials it was asked for. A side panel
// shows what a host does not: the notifications with their details, the
// state, referenceData and debug, and the author's controls. Everything a
// spec or an answer says is untrusted: the server writes it only as escaped
// JSON, the SDK and the panel only through textContent.
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
    const shared = Object.fromEntries(
      Object.entries(view.widgets).flatMap(([id, widget]) => (handlerNames(widget).length ? [[id, handlerNames(widget)]] : [])),
    );
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

/** The host SDK's path on the service (src/apps/host/routes.ts); the page imports it from its own origin. */
export const SDK_PATH = "/apps/host/v1.js";

/**
 * The SDK module's URLs the page may load: on the request's origin, and on
 * PUBLIC_URL's when set (a proxy in front may rewrite the first). The
 * nonce alone would do in a browser that passes it on to a module's imports,
 * as the HTML standard says; the URLs name the one script allowed besides.
 */
export function sdkSources(requestUrl: string, publicUrl?: string): string[] {
  const origins = new Set([new URL(requestUrl).origin]);
  if (publicUrl) {
    try {
      origins.add(new URL(publicUrl).origin);
    } catch {
      // A PUBLIC_URL that is no URL names no origin.
    }
  }
  return [...origins].filter((o) => /^https?:\/\/[^\s;,']+$/.test(o)).map((o) => `${o}${SDK_PATH}`);
}

/**
 * The headers the page is served with: only the nonce's module script and
 * the SDK module it imports run, the nonce's style and the SDK's
 * constructed stylesheet apply, the script may reach its own origin and
 * nothing else, images and frames a spec shows load from the service or over
 * https, and the page may not be framed or submit anywhere.
 */
export function previewPageHeaders(nonce: string, sdk: string[]): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'${sdk.map((url) => ` ${url}`).join("")}`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' https:",
      "frame-src 'self' https:",
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
<header class="bar">
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
    <textarea id="extras" rows="5" spellcheck="false" aria-label="Identity, config and context (JSON)">{"identity": {}, "config": {}, "context": {}}</textarea>
  </details>
</header>
<div id="error" class="error" role="alert" hidden></div>
<div class="layout">
  <main id="app" aria-label="The app, drawn by the host SDK"></main>
  <aside id="panel" aria-label="Preview panel">
    <section aria-labelledby="h-notifications"><h2 id="h-notifications">Notifications</h2><ul id="notifications"></ul></section>
    <section aria-labelledby="h-handlers"><h2 id="h-handlers">Handlers</h2><div id="handlers" class="actions"></div></section>
    <section aria-labelledby="h-state"><h2 id="h-state">State</h2><pre id="state" tabindex="0"></pre></section>
    <section aria-labelledby="h-reference-data"><h2 id="h-reference-data">referenceData</h2><pre id="reference-data" tabindex="0"></pre></section>
    <section id="debug-section" aria-labelledby="h-debug" hidden><h2 id="h-debug">debug</h2><pre id="debug" tabindex="0"></pre></section>
  </aside>
</div>
<script type="application/json" id="outline">${inertJson(outline)}</script>
<script type="module" nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
.bar { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #ccc; padding: 8px 16px; z-index: 1; }
h1 { font-size: 16px; margin: 0 0 6px; }
#panel h2 { font-size: 15px; margin: 12px 0 6px; }
.controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
textarea { width: 100%; font: 12px monospace; box-sizing: border-box; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(280px, 34%); gap: 16px; padding: 12px 16px 32px; align-items: start; }
@media (max-width: 800px) { .layout { grid-template-columns: minmax(0, 1fr); } }
#app { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 12px; min-width: 0; }
#panel { min-width: 0; }
pre { background: #fff; border: 1px solid #ddd; padding: 6px; margin: 4px 0; overflow: auto; max-height: 320px; font-size: 12px; white-space: pre-wrap; word-break: break-word; }
.error { background: #fde8e8; border: 1px solid #c62828; color: #8e0000; margin: 8px 16px 0; padding: 8px; white-space: pre-wrap; }
#notifications { list-style: none; padding: 0; margin: 0; }
#notifications li { background: #fff; border: 1px solid #ddd; border-left-width: 4px; padding: 4px 8px; margin: 4px 0; }
#notifications dl { display: grid; grid-template-columns: auto 1fr; gap: 0 8px; margin: 4px 0 0; font-size: 12px; }
#notifications dt { font-weight: 600; }
#notifications dd { margin: 0; word-break: break-word; }
.actions { display: flex; gap: 4px; flex-wrap: wrap; }
#notifications li.INFO { border-left-color: #1d4f91; } #notifications li.WARNING { border-left-color: #8a5a00; } #notifications li.ERROR { border-left-color: #b00020; }
.level { font-weight: 600; }
.muted { color: #555; }
#status { color: #555; }
`;

// Plain ES2020, run as is by the browser (a module: no build step). It
// builds every element itself with textContent, as the SDK does.
const SCRIPT = `
import { mount } from "${SDK_PATH}";

const $ = (id) => document.getElementById(id);
const outline = JSON.parse($("outline").textContent);
// The page's own path is the POST's; location.origin carries no user:password from the address bar.
const endpoint = location.origin + location.pathname;
let answer = null;
let answers = 0;

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};
const own = (map, key) => (map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined);
const shown = (value) => (typeof value === "string" ? value : JSON.stringify(value));

/** The identity, config and context of the JSON box, sent beside the state with every post. */
function extras() {
  const text = $("extras").value.trim();
  if (!text) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error("Not sent: the identity, config and context box holds no JSON: " + e.message);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("Not sent: the identity, config and context must be a JSON object");
  const picked = {};
  for (const key of ["identity", "config", "context"]) if (value[key] !== undefined) picked[key] = value[key];
  return picked;
}

function showError(e) {
  const error = $("error");
  const details = e.details && Object.keys(e.details).length ? "\\n" + JSON.stringify(e.details, null, 2) : "";
  error.textContent = (e.status ? e.status + " " : "") + e.code + ": " + e.message + details;
  error.hidden = false;
  $("status").textContent = "Refused" + (e.status ? " (" + e.status + ")" : "");
}

/** The widgets shown, with the placement and page (or modal) that show them, in answer order. */
function widgetsShown(data) {
  const found = [];
  const walk = (blocks, scope) => {
    for (const b of Array.isArray(blocks) ? blocks : []) {
      if (Array.isArray(b)) walk(b, scope);
      else if (b && typeof b === "object") {
        if (typeof b.widgetComponent === "string" && typeof b.id === "string") found.push({ id: b.id, scope });
        walk(b.children, scope);
      }
    }
  };
  for (const s of data.surfaces) {
    walk(s.blocks, { page: s.page, surface: s.id });
    for (const m of s.modals || []) walk(m.blocks, { page: m.page, modal: true, surface: s.id });
  }
  return found;
}

function handlersOf(scope, id) {
  const dashboard = answer && own(outline.dashboards, answer.state.dashboard);
  if (!dashboard) return [];
  const local = own(own(scope.modal ? dashboard.modalWidgets : dashboard.pageWidgets, scope.page), id);
  return local || own(dashboard.shared, id) || [];
}

function drawNotifications(data) {
  const list = $("notifications");
  list.replaceChildren(...data.notifications.map((n) => {
    const item = el("li", ["INFO", "WARNING", "ERROR"].includes(n.level) ? n.level : "");
    item.dataset.notificationId = shown(n.id);
    item.append(el("span", "level", shown(n.level)), " ", el("code", "", shown(n.id)), ": ", el("span", "message", shown(n.message)));
    if (n.details && typeof n.details === "object" && Object.keys(n.details).length) {
      const details = el("dl", "details");
      for (const [key, value] of Object.entries(n.details)) details.append(el("dt", "", key), el("dd", "", shown(value)));
      item.append(details);
    }
    return item;
  }));
  if (!data.notifications.length) list.append(el("li", "muted", "none"));
}

function drawHandlers(data) {
  const box = $("handlers");
  box.replaceChildren();
  for (const { id, scope } of widgetsShown(data)) {
    for (const handler of handlersOf(scope, id)) {
      const button = el("button", "action", id + " → " + handler);
      button.type = "button";
      button.dataset.widgetId = id;
      button.addEventListener("click", () => void app.action({ widgetId: id, handler, surface: scope.surface }));
      box.append(button);
    }
  }
  if (!box.childElementCount) box.append(el("p", "muted", "No widget shown has an action handler."));
}

function drawPanel(data) {
  drawNotifications(data);
  drawHandlers(data);
  $("state").textContent = JSON.stringify(data.state, null, 2);
  $("reference-data").textContent = JSON.stringify(data.referenceData, null, 2);
  $("debug-section").hidden = data.debug === undefined;
  $("debug").textContent = data.debug === undefined ? "" : JSON.stringify(data.debug, null, 2);

  const picker = $("page-picker");
  const dashboard = own(outline.dashboards, data.state.dashboard);
  const current = data.state.page ?? (data.surfaces[0] && data.surfaces[0].page);
  picker.replaceChildren(...(dashboard ? dashboard.pages : []).map((key) => {
    const option = el("option", "", key);
    option.value = key;
    option.selected = key === current;
    return option;
  }));
}

const app = mount($("app"), {
  endpoint,
  fetchCredentials: "same-origin",
  body: () => extras(),
  onAnswer: (data) => {
    answer = data;
    answers += 1;
    $("error").hidden = true;
    $("status").textContent = "Answer " + answers + " drawn";
    drawPanel(data);
  },
  onError: showError,
});

$("show-page").addEventListener("click", () => {
  if (!answer) return;
  const page = $("page-picker").value;
  void app.refresh({ ...answer.state, page, params: {}, data: {}, modals: [] });
});
$("rerender").addEventListener("click", () => void app.refresh());
$("reset").addEventListener("click", () => void app.render());
`;
