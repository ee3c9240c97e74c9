// The widget a posted `action` names, found where the host's user can see
// it: on the current page of the placement that asked, or on that
// placement's top modal. Anything else is 422 before a command runs.
import type { CommandDocument, PageDocument, WidgetDocument } from "../../../definition/language/spec-schema";
import { ApiError } from "../../../lib/errors";
import type { Dashboard, ModalState, Placement, PlacementType, RenderState } from "../contracts";
import { isObject } from "../../../lib/is-object";

/** A form's preview of a `file` field, when the form declares no handler of that name. */
export const PREVIEW_HANDLER = "preview";

export interface PostedAction {
  widgetId: string;
  handler: string;
  payload: unknown;
}

/** The page (or modal) an action acts on, and where its params and data live in the state. */
export interface ActingPage {
  key: string;
  document: PageDocument;
  /** The state itself for the base page, the open modal for a modal. */
  holder: RenderState | ModalState;
}

export interface ActingWidget {
  action: PostedAction;
  surface: PlacementType;
  page: ActingPage;
  widget: WidgetDocument;
  /** The handler's command list; undefined for a form's built-in preview. */
  commands?: CommandDocument[];
}

const refuse = (message: string, field: string) => new ApiError("UNPROCESSABLE_ENTITY", message, { field });

/** Every widget id a layout shows: rows, gates' `$then` and inline nodes' children, walked without recursion. */
export function layoutWidgetIds(layout: unknown): Set<string> {
  const ids = new Set<string>();
  const stack: unknown[] = Array.isArray(layout) ? [...layout] : [];
  while (stack.length) {
    const entry = stack.pop();
    if (typeof entry === "string") ids.add(entry);
    else if (Array.isArray(entry)) stack.push(...entry);
    else if (isObject(entry)) {
      if (typeof entry.$then === "string") ids.add(entry.$then);
      if (Array.isArray(entry.children)) stack.push(...entry.children);
    }
  }
  return ids;
}

function parse(posted: unknown): PostedAction & { surface?: string } {
  if (!isObject(posted)) throw refuse("action must be an object { widgetId, handler, payload?, surface? }", "action");
  const { widgetId, handler, surface } = posted;
  if (typeof widgetId !== "string" || widgetId === "") throw refuse("action.widgetId must be a non-empty string", "action.widgetId");
  if (typeof handler !== "string" || handler === "") throw refuse("action.handler must be a non-empty string", "action.handler");
  if (surface !== undefined && typeof surface !== "string") throw refuse("action.surface must be a placement type", "action.surface");
  return { widgetId, handler, payload: posted.payload, surface };
}

/** The page a placement shows and its top modal, each only when it shows the widget. */
function pagesShowing(view: Dashboard, state: RenderState, placement: Placement, widgetId: string): ActingPage | undefined {
  const open = state.modals.filter((modal) => modal.surface === placement.type);
  const top = open[open.length - 1];
  if (top) {
    const document = view.modal(top.page);
    if (document && layoutWidgetIds(document.layout).has(widgetId)) return { key: top.page, document, holder: top };
  }
  const key = state.page ?? placement.entry;
  const document = view.page(key);
  if (document && layoutWidgetIds(document.layout).has(widgetId)) return { key, document, holder: state };
  return undefined;
}

/** The posted action's widget and handler, or 422 naming what does not fit. */
export function locateAction(posted: unknown, view: Dashboard, state: RenderState): ActingWidget {
  const action = parse(posted);
  const placements = action.surface === undefined ? view.placements : view.placements.filter((p) => p.type === action.surface);
  if (action.surface !== undefined && !placements.length) throw refuse(`The dashboard has no ${action.surface} placement`, "action.surface");
  for (const placement of placements) {
    const page = pagesShowing(view, state, placement, action.widgetId);
    if (!page) continue;
    const widget = view.widget(page.document, action.widgetId);
    if (!widget) break;
    const handlers = isObject(widget.actionHandlers) ? widget.actionHandlers : {};
    const commands = Object.hasOwn(handlers, action.handler) ? handlers[action.handler] : undefined;
    const builtIn = commands === undefined && widget.widgetComponent === "form" && action.handler === PREVIEW_HANDLER;
    if (!Array.isArray(commands) && !builtIn) throw refuse(`The widget ${action.widgetId} has no handler ${action.handler}`, "action.handler");
    return { action: { widgetId: action.widgetId, handler: action.handler, payload: action.payload }, surface: placement.type, page, widget, commands };
  }
  throw refuse(
    `The widget ${action.widgetId} is not on the current page or the top modal${action.surface === undefined ? "" : ` of the ${action.surface}`}`,
    "action.widgetId",
  );
}
