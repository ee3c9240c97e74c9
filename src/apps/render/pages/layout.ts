// A page's layout as blocks: rows of widget ids, gates and inline nodes, in
// order. A widget whose config or source fails is dropped alone, with a
// notification naming it; the rest of the page is answered.
import type { GateDocument, NodeDocument, WidgetDocument } from "../../../definition/language/spec-schema";
import type { DashboardView } from "./dashboard";
import { causeOf, type RenderNotifications } from "./notifications";
import { DeadlineExceeded, type PageScope } from "./page-scope";
import type { Block, NodeBlock, ReferenceData, WidgetBlock } from "./types";
import type { Catalogue } from "../../../definition/language/components/catalogue";
import { ApiError } from "../../../lib/errors";
import { check } from "../../../lib/validate";
import { isObject } from "../../../lib/is-object";

const isGate = (value: unknown): value is GateDocument => isObject(value) && "$if" in value;

/** What resolving one page's layout reports besides its blocks. */
export interface LayoutSink {
  notes: RenderNotifications;
  /** `referenceData.<widgetId>`. */
  referenceData: Record<string, ReferenceData>;
  /** The catalogues each widget's resolved config must pass. */
  catalogues: readonly Catalogue[];
}

/**
 * A resolved config its component's schema refuses drops the widget
 * (COMPONENT_CONFIG_INVALID): a host kit would draw it wrong or not at all.
 * A component a catalogue lacks was refused at publish, unless the version
 * rendered predates the catalogue: it is left to the host as before.
 */
function checkProps(catalogues: readonly Catalogue[], component: string, props: unknown): void {
  for (const catalogue of catalogues) {
    if (!Object.hasOwn(catalogue, component)) continue;
    const lines = check(catalogue[component].config, props);
    if (lines.length) {
      throw new ApiError(
        { code: "COMPONENT_CONFIG_INVALID", component, validation_errors: lines },
        `The resolved config of ${component} does not fit its catalogue: ${lines.join("; ")}`,
      );
    }
  }
}

/** Reports a widget dropped by `err` (`source`: the data source whose failure it is): past the deadline a warning, otherwise an error. */
export function widgetFailed(notes: RenderNotifications, widgetId: string, err: unknown, source: string | undefined): void {
  if (err instanceof DeadlineExceeded) {
    const cause = { code: "TIMEOUT", message: err.message, status: 504 };
    notes.widgetFailed(
      { id: `widget-timeout-${widgetId}`, level: "WARNING", message: `The widget ${widgetId} took too long to load.` },
      cause,
      widgetId,
      source ?? err.source,
    );
    return;
  }
  notes.widgetFailed({ id: `widget-error-${widgetId}`, level: "ERROR", message: `The widget ${widgetId} could not be shown.` }, causeOf(err), widgetId, source);
}

export class PageLayout {
  /** One resolution per widget id, however often the layout (or another placement on this page) names it. */
  private readonly widgets = new Map<string, Promise<WidgetBlock | undefined>>();

  constructor(
    private readonly view: DashboardView,
    private readonly scope: PageScope,
    private readonly sink: LayoutSink,
  ) {}

  /** The page's blocks in layout order. */
  async blocks(): Promise<Block[]> {
    const layout = this.scope.input.document.layout;
    if (!Array.isArray(layout)) return [];
    const entries = await Promise.all(layout.map((entry, i) => (Array.isArray(entry) ? this.row(entry) : this.child(entry, `layout[${i}]`))));
    return entries.filter((block): block is Block => block !== undefined);
  }

  private async row(cells: unknown[]): Promise<NodeBlock> {
    const children = await Promise.all(cells.map((cell) => (typeof cell === "string" ? this.widget(cell) : isGate(cell) ? this.gate(cell) : undefined)));
    return { component: "row", children: children.filter((block): block is Block => block !== undefined) };
  }

  /** A child of a node (or a top-level node): a widget id, a gate or an inline node. */
  private child(entry: unknown, at: string): Promise<Block | undefined> {
    if (typeof entry === "string") return this.widget(entry);
    if (isGate(entry)) return this.gate(entry);
    if (isObject(entry) && typeof entry.component === "string") return this.node(entry as unknown as NodeDocument, at);
    return Promise.resolve(undefined);
  }

  /** `$then`'s block when `$if` holds; a throwing `$if` hides it and says so. */
  private async gate(gate: GateDocument): Promise<Block | undefined> {
    let shown: boolean;
    try {
      shown = await this.scope.predicate(gate.$if);
    } catch (err) {
      if (err instanceof DeadlineExceeded) widgetFailed(this.sink.notes, gate.$then, err, this.scope.sourceOf(err));
      else
        this.sink.notes.notify(
          { id: `gate-error-${gate.$then}`, level: "ERROR", message: `The condition showing ${gate.$then} failed.` },
          causeOf(err),
          gate.$then,
        );
      return undefined;
    }
    return shown ? this.widget(gate.$then) : undefined;
  }

  /** An inline node; its config resolves like a widget's, and a failing one drops the node with its children. */
  private async node(node: NodeDocument, at: string): Promise<NodeBlock | undefined> {
    const name = node.id ?? `${node.component}@${at}`;
    let config: unknown;
    try {
      config = node.config === undefined ? undefined : await this.scope.resolve(node.config);
    } catch (err) {
      this.sink.notes.notify({ id: `node-error-${name}`, level: "ERROR", message: `The ${node.component} ${name} could not be shown.` }, causeOf(err));
      return undefined;
    }
    const block: NodeBlock = { component: node.component };
    if (node.id !== undefined) block.id = node.id;
    if (config !== undefined) block.config = config;
    if (Array.isArray(node.children)) {
      const children = await Promise.all(node.children.map((child, i) => this.child(child, `${at}.children[${i}]`)));
      block.children = children.filter((child): child is Block => child !== undefined);
    }
    return block;
  }

  widget(id: string): Promise<WidgetBlock | undefined> {
    let pending = this.widgets.get(id);
    if (!pending) {
      pending = this.resolveWidget(id);
      this.widgets.set(id, pending);
    }
    return pending;
  }

  private async resolveWidget(id: string): Promise<WidgetBlock | undefined> {
    const widget: WidgetDocument | undefined = this.view.widget(this.scope.input.document, id);
    try {
      if (!widget || typeof widget.widgetComponent !== "string") throw new Error(`no widget ${id}`);
      const state = this.scope.input.widgets[id]?.state ?? {};
      const [props, reference] = await Promise.all([
        widget.config === undefined ? {} : this.scope.resolve(widget.config, { thisWidget: { id, state } }),
        typeof widget.dataSource === "string" ? this.scope.reference(widget.dataSource, id) : undefined,
      ]);
      checkProps(this.sink.catalogues, widget.widgetComponent, props);
      if (reference) this.sink.referenceData[id] = { rows: Array.isArray(reference.rows) ? reference.rows : [], total: Number(reference.total) || 0 };
      return { id, widgetComponent: widget.widgetComponent, props };
    } catch (err) {
      widgetFailed(this.sink.notes, id, err, this.scope.sourceOf(err));
      return undefined;
    }
  }
}
