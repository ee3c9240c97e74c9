// The state a host posts back, taken as untrusted input: every name is
// checked against the dashboard, every size bounded, and what does not fit
// is dropped or reset in a way the answer states (docs/apps.md, "What a render answers",
// "Hostile state").
import type { DashboardView } from "./dashboard";
import type { RenderNotifications } from "./notifications";
import { PLACEMENT_TYPES } from "./types";
import { MAX_MODALS, MAX_STATE_PART, MAX_WIDGET_STATE, type ModalState, type PlacementType, type RenderState } from "../contracts";
import { isObject } from "../../../lib/is-object";

const sizeOf = (value: unknown) => JSON.stringify(value).length;

export function freshState(dashboard: string): RenderState {
  return { dashboard, page: null, params: {}, data: {}, widgets: {}, modals: [] };
}

/** A posted params or data object, or `{}` (with a warning when one was posted but is too large). */
function part(value: unknown, name: string, notes: RenderNotifications): Record<string, unknown> {
  if (!isObject(value)) return {};
  if (sizeOf(value) > MAX_STATE_PART) {
    notes.notify({ id: "state-too-large", level: "WARNING", message: `The posted ${name} exceeded ${MAX_STATE_PART} characters and was reset.` });
    return {};
  }
  return value;
}

/**
 * The posted `state` made safe for `view`: a state of another dashboard (or
 * none) starts fresh; an unknown page goes back to the entry pages; unknown
 * modals and unknown widgets are dropped; oversized parts are reset.
 */
export function normaliseState(posted: unknown, view: DashboardView, notes: RenderNotifications): RenderState {
  const state = freshState(view.key);
  if (!isObject(posted)) return state;
  if (posted.dashboard !== undefined && posted.dashboard !== view.key) {
    notes.notify({ id: "state-reset", level: "WARNING", message: "The posted state belongs to another dashboard; the dashboard starts afresh." });
    return state;
  }
  const known = typeof posted.page === "string" && view.page(posted.page) !== undefined;
  if (known || posted.page === undefined || posted.page === null) {
    // Before the first navigate, params and data belong to the entry pages.
    state.page = known ? (posted.page as string) : null;
    state.params = part(posted.params, "params", notes);
    state.data = part(posted.data, "data", notes);
  } else {
    notes.notify({
      id: "state-page-unknown",
      level: "WARNING",
      message: "The posted page is no page of this dashboard; every placement shows its entry page.",
    });
  }
  state.widgets = widgetStates(posted.widgets, view, notes);
  state.modals = modals(posted.modals, view, notes);
  return state;
}

function widgetStates(posted: unknown, view: DashboardView, notes: RenderNotifications): Record<string, Record<string, unknown>> {
  if (!isObject(posted)) return {};
  const known = view.widgetIds();
  const kept: [string, Record<string, unknown>][] = [];
  let total = 0;
  for (const [id, value] of Object.entries(posted)) {
    // A name the dashboard has no widget for is dropped without a word: nothing reads it.
    if (!known.has(id) || !isObject(value)) continue;
    const size = sizeOf(value);
    if (size > MAX_STATE_PART || total + size > MAX_WIDGET_STATE) {
      notes.notify({ id: `widget-state-too-large-${id}`, level: "WARNING", message: `The state of ${id} was too large and was reset.` });
      continue;
    }
    total += size;
    kept.push([id, value]);
  }
  // fromEntries defines each id as an own key, whatever it is called.
  return Object.fromEntries(kept);
}

function modals(posted: unknown, view: DashboardView, notes: RenderNotifications): ModalState[] {
  if (!Array.isArray(posted)) return [];
  const kept: ModalState[] = [];
  let dropped = false;
  for (const entry of posted) {
    const surface = isObject(entry) ? entry.surface : undefined;
    const valid =
      isObject(entry) &&
      typeof entry.page === "string" &&
      view.modal(entry.page) &&
      typeof surface === "string" &&
      (PLACEMENT_TYPES as readonly string[]).includes(surface) &&
      view.placement(surface);
    if (!valid || kept.length >= MAX_MODALS) {
      dropped = true;
      continue;
    }
    kept.push({
      page: entry.page as string,
      params: part(entry.params, "modal params", notes),
      data: part(entry.data, "modal data", notes),
      surface: surface as PlacementType,
    });
  }
  if (dropped)
    notes.notify({
      id: "state-modal-dropped",
      level: "WARNING",
      message: `Modals of the posted state that this dashboard does not have, or beyond ${MAX_MODALS}, were closed.`,
    });
  return kept;
}
