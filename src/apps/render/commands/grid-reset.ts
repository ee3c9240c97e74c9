// Grids go back to page 1 (docs/apps.md, "Commands"): when the acting widget
// is one a source of its page reads (`page.widgets.<widgetId>`), every grid
// that source feeds starts again at its first page, so a new filter does
// not land on a page past its rows.
import type { Dashboard, RenderState } from "../contracts";
import type { Obj } from "./step";
import { isObject } from "../../../lib/is-object";
import type { ActingWidget } from "./target";

/** Sets `data_grid.page` to 1 in the state, and in `widgets` (the command scope's view of it), for each grid the acting widget's readers feed. */
export function resetGridPaging(view: Dashboard, state: RenderState, acting: ActingWidget, widgets: Record<string, { state: Obj }>): void {
  const { widgetId } = acting.action;
  const sources = acting.page.document.dataSources;
  if (!isObject(sources)) return;
  const reads = new RegExp(`\\bwidgets\\.${widgetId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`);
  const readers = new Set(
    Object.entries(sources)
      .filter(([, source]) => reads.test(JSON.stringify(source)))
      .map(([name]) => name),
  );
  if (!readers.size) return;
  for (const id of Object.keys(widgets)) {
    const widget = view.widget(acting.page.document, id);
    if (!widget || typeof widget.dataSource !== "string" || !readers.has(widget.dataSource)) continue;
    const grid = state.widgets[id];
    if (isObject(grid?.data_grid)) {
      state.widgets[id] = { ...grid, data_grid: { ...grid.data_grid, page: 1 } };
      widgets[id] = { state: state.widgets[id] };
    }
  }
}
