// Where the acting placement goes: `navigate` to a page or a modal, and
// `closeModal` back to what lies below.
import { mergePatch } from "../../config/merge";
import { MAX_MODALS, MAX_STATE_PART } from "../contracts";
import { command } from "./command";
import { fail, sizeOf, topModal } from "./step";
import { isObject } from "../../../lib/is-object";

export const navigate = command({
  kind: "navigate",
  async run(step, ctx) {
    const page = await ctx.shown(step.page, "string");
    if (typeof page !== "string") throw fail("navigate.page must resolve to a page key");
    const params = step.params === undefined ? {} : await ctx.shown(step.params);
    if (!isObject(params)) throw fail("navigate.params must resolve to an object");
    if (sizeOf(params) > MAX_STATE_PART) throw fail(`navigate.params is over ${MAX_STATE_PART} characters`);
    const { state, view } = ctx.stage;
    if (step.modal === true) {
      if (!view.modal(page)) throw fail(`navigate names ${page}, which is no modal of this dashboard`, { page });
      if (state.modals.length >= MAX_MODALS) throw fail(`At most ${MAX_MODALS} modals are open at once`);
      state.modals.push({ page, params, data: {}, surface: ctx.acting.surface });
      return { page, modal: true };
    }
    if (!view.page(page)) throw fail(`navigate names ${page}, which is no page of this dashboard`, { page });
    // Every placement moves to the page; the modals opened over the old one close.
    state.page = page;
    state.params = params;
    state.data = {};
    state.modals = [];
    return { page, modal: false };
  },
});

export const closeModal = command({
  kind: "closeModal",
  async run(step, ctx) {
    const state = ctx.stage.state;
    const top = topModal(ctx);
    if (top < 0) throw fail("closeModal: no modal is open");
    const result = step.result === undefined ? undefined : await ctx.shown(step.result);
    const closed = state.modals[top];
    // The page below takes the result: a result it refuses leaves the modal open, so nothing is popped before the check.
    const below = state.modals.slice(0, top).findLastIndex((modal) => modal.surface === ctx.acting.surface);
    const holder = below < 0 ? state : state.modals[below];
    const merged = result === undefined ? holder.data : mergePatch(holder.data, result);
    if (!isObject(merged) || sizeOf(merged) > MAX_STATE_PART)
      throw fail(`closeModal.result must resolve to an object that keeps the page data under ${MAX_STATE_PART} characters`);
    state.modals.splice(top, 1);
    holder.data = merged;
    return { page: closed.page };
  },
});

export const navigationCommands = { navigate, closeModal };
