// What the screens read changes: `setPageData` and `setWidgetState` merge
// into the state (RFC 7396), within the bounds a posted state has;
// `refresh` has later reads of sources fetch again.
import { mergePatch } from "../../config/merge";
import { MAX_STATE_PART, MAX_WIDGET_STATE } from "../contracts";
import { command } from "./command";
import { fail, sizeOf, topModal } from "./step";
import { isObject } from "../../../lib/is-object";

export const refresh = command({
  kind: "refresh",
  async run(_step, ctx) {
    ctx.refresh();
    return null;
  },
});

export const setPageData = command({
  kind: "setPageData",
  async run(step, ctx) {
    const data = await ctx.shown(step.data);
    if (!isObject(data)) throw fail("setPageData.data must resolve to an object");
    const state = ctx.stage.state;
    const top = topModal(ctx);
    if (step.inModal === true && top < 0) throw fail("setPageData.inModal: no modal is open");
    const holder = step.inModal === true ? state.modals[top] : state;
    const merged = mergePatch(holder.data, data);
    if (sizeOf(merged) > MAX_STATE_PART) throw fail(`The page data would be over ${MAX_STATE_PART} characters`);
    holder.data = merged;
    return merged;
  },
});

export const setWidgetState = command({
  kind: "setWidgetState",
  async run(step, ctx) {
    const id = step.widgetId;
    if (!Object.hasOwn(ctx.widgets, id)) throw fail(`setWidgetState names ${id}, which is no widget of this dashboard`, { widget_id: id });
    const patch = await ctx.shown(step.state);
    if (!isObject(patch)) throw fail("setWidgetState.state must resolve to an object");
    const widgets = ctx.stage.state.widgets;
    const merged = mergePatch(widgets[id] ?? {}, patch);
    const others = Object.entries(widgets).reduce((sum, [other, value]) => (other === id ? sum : sum + sizeOf(value)), 0);
    const size = sizeOf(merged);
    if (size > MAX_STATE_PART || others + size > MAX_WIDGET_STATE)
      throw fail(`The state of ${id} would be over the ${MAX_STATE_PART} characters one widget may hold`);
    widgets[id] = merged;
    ctx.widgets[id] = { state: merged };
    return merged;
  },
});

export const stateCommands = { refresh, setPageData, setWidgetState };
