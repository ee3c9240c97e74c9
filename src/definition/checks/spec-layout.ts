// Dashboards, their surfaces, and the pages, modals and widgets of the spec
// and of each dashboard: every id a layout names must resolve to a widget,
// the layout's inline nodes keep their rules (tabs carry an id; tabs,
// header and footer stay top-level; no widget-only keys), a widget's source
// is a source of the page showing it, and a form's file fields are usable.
import { child, has, items, templated, type Obj } from "./collector";
import { ACCEPT_EXTENSION, ACCEPT_MIME, MAX_UPLOAD_BYTES, TOP_LEVEL_ONLY } from "../language/spec-schema";
import { checkCommandList } from "./spec-commands";
import { levelOf, mapOf, type Level, type PageAt, type Place, type SpecChecks } from "./spec-names";
import { checkDataSources } from "./spec-sources";
import { checkComponent } from "./spec-components";
import { isObject } from "../../lib/is-object";

const TOP_ONLY: readonly string[] = TOP_LEVEL_ONLY;
/** Keys that belong to widgets: an inline node has no handlers, state or source. */
const WIDGET_ONLY_KEYS = ["actionHandlers", "stateKey", "dataSource"];

/** A form's `type: file` fields, when its config lists them as written. */
function checkFileFields(checks: SpecChecks, config: unknown, path: string, place: Place): void {
  if (!isObject(config)) return;
  const fieldsAt = child(path, "fields");
  items(config.fields, Infinity).forEach((field, i) => {
    if (!isObject(field) || field.type !== "file") return;
    const at = child(fieldsAt, i);
    const size = field.maxFileSize;
    if (size !== undefined && !templated(size) && !(Number.isInteger(size) && (size as number) >= 1 && (size as number) <= MAX_UPLOAD_BYTES)) {
      checks.found.add(
        child(at, "maxFileSize"),
        "file_field_max_size",
        `must be a whole number of bytes from 1 to ${MAX_UPLOAD_BYTES} (25 MiB), got ${JSON.stringify(size)}`,
      );
    }
    const accept = field.accept;
    if (accept !== undefined && !templated(accept)) {
      if (!Array.isArray(accept))
        checks.found.add(child(at, "accept"), "file_field_accept", "must be an array of extensions (.pdf) or MIME types (application/pdf, image/*)");
      else
        accept.forEach((entry, j) => {
          if (typeof entry === "string" && (ACCEPT_EXTENSION.test(entry) || ACCEPT_MIME.test(entry))) return;
          checks.found.add(
            child(child(at, "accept"), j),
            "file_field_accept",
            `${JSON.stringify(entry)} is neither an extension (.pdf) nor a MIME type (application/pdf, image/*)`,
          );
        });
    }
    const preview = field.previewPage;
    if (typeof preview === "string" && !templated(preview) && !checks.names.hasPage(preview, place, true)) {
      checks.found.add(
        child(at, "previewPage"),
        "file_field_preview_page",
        `names ${JSON.stringify(preview)}, which is no modal of ${place.dashboard ? "the dashboard or the spec" : "the spec or of every dashboard"}; a preview opens as a modal`,
      );
    }
  });
}

/** One widget where it is declared; a page-level widget's source is checked against its page here. */
function checkWidget(checks: SpecChecks, widget: Obj, path: string, place: Place): void {
  for (const [handler, list] of Object.entries(mapOf(widget, "actionHandlers")))
    checkCommandList(checks, list, child(child(path, "actionHandlers"), handler), place);
  checks.expressions.smartValue(widget.config, child(path, "config"));
  checkComponent(checks.found, checks.components, {
    component: widget.widgetComponent,
    config: widget.config,
    handlers: mapOf(widget, "actionHandlers"),
    componentAt: child(path, "widgetComponent"),
    configAt: child(path, "config"),
    handlersAt: child(path, "actionHandlers"),
  });
  if (widget.widgetComponent === "form") checkFileFields(checks, widget.config, child(path, "config"), place);
  const source = widget.dataSource;
  if (place.page && typeof source === "string" && !Object.hasOwn(place.page.sources, source)) {
    checks.found.add(
      child(path, "dataSource"),
      "unknown_data_source",
      `names ${JSON.stringify(source)}, which is no source of this page${sourcesListed(place.page.sources)}`,
    );
  }
}

const sourcesListed = (sources: Obj) => {
  const names = Object.keys(sources);
  return names.length ? ` (sources: ${names.slice(0, 20).join(", ")})` : " (it has none)";
};

export function checkWidgets(checks: SpecChecks, widgets: Obj, path: string, place: Place): void {
  for (const [id, widget] of Object.entries(widgets)) if (isObject(widget)) checkWidget(checks, widget, child(path, id), place);
}

/** A widget id in a layout: it resolves, and a shared widget placed here reads a source of this page. */
function checkReference(checks: SpecChecks, id: unknown, path: string, place: Place): void {
  if (typeof id !== "string" || id === "") return;
  const resolved = checks.names.resolveWidget(id, place);
  if (!resolved) {
    const where = place.dashboard
      ? "the page, the dashboard or the spec"
      : place.page
        ? "the page or the spec, nor of every dashboard showing the page"
        : "the spec";
    checks.found.add(path, "unknown_widget", `names ${JSON.stringify(id)}, which is no widget of ${where}`);
    return;
  }
  const source = resolved.widget?.dataSource;
  if (resolved.level !== "page" && place.page && typeof source === "string" && !Object.hasOwn(place.page.sources, source)) {
    checks.found.add(
      path,
      "unknown_data_source",
      `places ${JSON.stringify(id)}, whose dataSource ${JSON.stringify(source)} is no source of this page${sourcesListed(place.page.sources)}`,
    );
  }
}

/** A widget id or a gate `{ $if, $then }`. */
function checkCell(checks: SpecChecks, cell: unknown, path: string, place: Place): void {
  if (!isObject(cell)) return checkReference(checks, cell, path, place);
  checks.expressions.bare(cell, "$if", path);
  checkReference(checks, cell.$then, child(path, "$then"), place);
}

/** An inline node and its children, walked without recursion. */
function checkNode(checks: SpecChecks, root: Obj, rootPath: string, place: Place): void {
  const { found } = checks;
  const stack: [Obj, string, boolean][] = [[root, rootPath, true]];
  while (stack.length) {
    const [node, path, top] = stack.pop()!;
    const component = node.component;
    if (component === "tabs" && (typeof node.id !== "string" || node.id === ""))
      found.add(child(path, "id"), "tabs_id_required", "is required on tabs: the selected tab is kept under it");
    if (!top && typeof component === "string" && TOP_ONLY.includes(component))
      found.add(child(path, "component"), "container_not_top_level", `is ${component}, which only a top-level layout entry may be`);
    for (const key of WIDGET_ONLY_KEYS)
      if (has(node, key))
        found.add(child(path, key), "inline_node_forbidden_key", `is not allowed on an inline node; declare a widget for ${key} and place its id`);
    checks.expressions.smartValue(node.config, child(path, "config"));
    checkComponent(found, checks.components, { component, config: node.config, componentAt: child(path, "component"), configAt: child(path, "config") });
    items(node.children, Infinity).forEach((item, i) => {
      const at = child(child(path, "children"), i);
      if (isObject(item) && !has(item, "$if")) stack.push([item, at, false]);
      else checkCell(checks, item, at, place);
    });
  }
}

function checkLayout(checks: SpecChecks, layout: unknown, path: string, place: Place): void {
  items(layout, Infinity).forEach((entry, i) => {
    const at = child(path, i);
    if (Array.isArray(entry)) entry.forEach((cell, j) => checkCell(checks, cell, child(at, j), place));
    else if (isObject(entry)) checkNode(checks, entry, at, place);
  });
}

/** The pages or modals of one level. */
function checkPages(checks: SpecChecks, pages: Obj, kind: PageAt["kind"], path: string, dashboard: Level | undefined): void {
  for (const [key, page] of Object.entries(pages)) {
    if (!isObject(page)) continue;
    const at = child(path, key);
    const sources = mapOf(page, "dataSources");
    const widgets = mapOf(page, "widgets");
    const place: Place = { dashboard, page: { kind, key, sources, widgets } };
    checkDataSources(checks, sources, child(at, "dataSources"));
    checkWidgets(checks, widgets, child(at, "widgets"), place);
    checkLayout(checks, page.layout, child(at, "layout"), place);
  }
}

/** The pages, modals and widgets of one level (the spec's, or a dashboard's). */
export function checkLevel(checks: SpecChecks, level: Level, path: string, dashboard: Level | undefined): void {
  checkPages(checks, level.pages, "pages", child(path, "pages"), dashboard);
  checkPages(checks, level.modals, "modals", child(path, "modals"), dashboard);
  checkWidgets(checks, level.widgets, child(path, "widgets"), { dashboard });
}

/** A `dashboard` or `panel` entry: `"<page>"` or `{ page }`. */
function surfacePage(entry: unknown, path: string): [unknown, string] {
  return isObject(entry) ? [entry.page, child(path, "page")] : [entry, path];
}

function checkSurfaces(checks: SpecChecks, surfaces: unknown, path: string, dashboard: Level): void {
  const { found } = checks;
  if (surfaces === undefined) return found.add(path, "required", "is required: a dashboard declares at least one placement (dashboard, panel or scanCard)");
  if (!isObject(surfaces)) return;
  if (Object.keys(surfaces).length === 0) found.add(path, "required", "declares no placement; a dashboard needs at least one of dashboard, panel and scanCard");
  const pages: [unknown, string][] = [];
  for (const type of ["dashboard", "panel"]) if (has(surfaces, type)) pages.push(surfacePage(surfaces[type], child(path, type)));
  if (has(surfaces, "scanCard")) {
    const card = surfaces.scanCard;
    const at = child(path, "scanCard");
    if (!isObject(card))
      found.add(at, "scan_card_shape", "must be { page, if?, props }; a scanCard has no string shorthand (its props carry at least a title)");
    else {
      if (!has(card, "props")) found.add(child(at, "props"), "scan_card_shape", "is required: a scanCard shows props (at least a title)");
      else checks.expressions.smartValue(card.props, child(at, "props"));
      checks.expressions.bare(card, "if", at);
      pages.push([card.page, child(at, "page")]);
    }
  }
  for (const [page, at] of pages) {
    if (typeof page === "string" && page !== "" && !checks.names.hasPage(page, { dashboard })) {
      found.add(at, "unknown_page", `names ${JSON.stringify(page)}, which is no page or modal of the dashboard or the spec`);
    }
  }
}

/** `dashboards`, required and not empty, and everything each holds. */
export function checkDashboards(checks: SpecChecks, doc: Obj): void {
  const { found } = checks;
  if (!has(doc, "dashboards")) return found.add("dashboards", "required", "is required: a spec declares at least one dashboard");
  if (!isObject(doc.dashboards)) return;
  if (Object.keys(doc.dashboards).length === 0) found.add("dashboards", "required", "declares no dashboard; a spec needs at least one");
  for (const [key, dashboard] of Object.entries(doc.dashboards)) {
    if (!isObject(dashboard)) continue;
    const at = child("dashboards", key);
    const level = levelOf(dashboard);
    checkSurfaces(checks, dashboard.surfaces, child(at, "surfaces"), level);
    checkLevel(checks, level, at, level);
  }
}
