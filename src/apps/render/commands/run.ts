// A posted action's command list, run before the screens resolve (docs/apps.md,
// "Commands"): each step in order through the one sequencing of
// lib/sequence.ts, its `if`, `onSuccess` and `onError`; what a step changes
// of the state (the page, modals, page data, widget state) the screens then
// show. A failed step with `onError` runs it and the list goes on; without
// one it adds an ERROR notification and the list stops. A step that writes
// empties the sources read so far and reloads the render context.
import type { CommandDocument } from "../../../definition/language/spec-schema";
import { ApiError, errorValue, type ErrorValue } from "../../../lib/errors";
import { runSequence, type SequenceEffects, type StepOutcome } from "../../../lib/sequence";
import { evaluateExpression, expressionsIn, ExpressionError, ExpressionSyntaxError, resolveSmartValue, withFunctions, type Scope } from "../../../lib/smart-values";
import { mergePatch } from "../../config/merge";
import type { RenderContext } from "../contracts";
import type { RenderNotifications } from "../pages/notifications";
import { DeadlineExceeded, type PageInput, type PageScope, type RenderRun } from "../pages/page-scope";
import type { DashboardView } from "../pages/dashboard";
import { MAX_MODALS, MAX_STATE_PART, MAX_WIDGET_STATE } from "../pages/state";
import type { RenderState } from "../pages/types";
import { fieldName, foreignFiles, formFields, missingRequired, previewUpload, submits } from "./form";
import type { CommandServices, PrincipalOp } from "./services";
import { locateAction, type ActingWidget } from "./target";
import { isObject } from "../../../lib/is-object";

/** Command steps one request may run, onSuccess and onError included: a list that navigates or notifies in a loop ends here. */
export const MAX_COMMAND_STEPS = 100;

type Obj = Record<string, unknown>;
const sizeOf = (value: unknown) => JSON.stringify(value).length;

/** What the screens' resolution hands the commands: the state they change and how a page's scope is made. */
export interface CommandStage {
  view: DashboardView;
  state: RenderState;
  run: RenderRun;
  notes: RenderNotifications;
  debug: unknown[];
  /** A page's scope with sources of its own: made again after a write, so later reads fetch anew. */
  pageScope(input: Omit<PageInput, "sources">): PageScope;
}

export interface CommandWorld {
  services: CommandServices;
  /** The render context loaded again (a config or secret write changed it). */
  reloadContext(): Promise<RenderContext>;
}

/** A command's failure as the step records it. */
class StepFailed extends Error {
  constructor(readonly error: ErrorValue) {
    super(error.message);
  }
}

const fail = (message: string, details: Record<string, unknown> = {}) => new StepFailed(errorValue("UNPROCESSABLE_ENTITY", message, details));

/** A thrown failure as a step's error; an unexpected one passes through (the render answers 500). */
function asError(err: unknown): ErrorValue {
  if (err instanceof StepFailed) return err.error;
  if (err instanceof ApiError) return err.value;
  if (err instanceof ExpressionError || err instanceof ExpressionSyntaxError) return errorValue("UNPROCESSABLE_ENTITY", err.message);
  if (err instanceof DeadlineExceeded) return errorValue("SERVICE_UNAVAILABLE", "The render's deadline passed before the step ended");
  throw err;
}

/** A command as sequencing reads it: `onError` makes a failure go on to the next step. */
type Sequenced = CommandDocument & { errorPolicy: "fail" | "continue"; onSuccess?: Sequenced[]; onError?: Sequenced[] };

function sequenced(list: readonly CommandDocument[]): Sequenced[] {
  return list.map((command) => ({
    ...command,
    errorPolicy: command.onError?.length ? "continue" : "fail",
    onSuccess: command.onSuccess && sequenced(command.onSuccess),
    onError: command.onError && sequenced(command.onError),
  }));
}

class CommandRun {
  private scope: PageScope;
  private readonly outputs: Obj = {};
  private readonly widgets: Record<string, { state: Obj }>;
  private steps = 0;

  constructor(
    private readonly stage: CommandStage,
    private readonly world: CommandWorld,
    private readonly acting: ActingWidget,
  ) {
    this.widgets = Object.fromEntries([...stage.view.widgetIds()].map((id) => [id, { state: stage.state.widgets[id] ?? {} }]));
    this.scope = this.freshScope();
  }

  private freshScope(): PageScope {
    const { key, document, holder } = this.acting.page;
    return this.stage.pageScope({
      key,
      document,
      widgets: this.widgets,
      // Read through the holder, so a step sees what the steps before it set.
      get params() {
        return holder.params;
      },
      get data() {
        return holder.data;
      },
    });
  }

  private extra(): Scope {
    const { widgetId, payload } = this.acting.action;
    const itemId = isObject(payload) ? payload.itemId : undefined;
    return { outputs: this.outputs, payload, itemId, thisWidget: { id: widgetId, state: this.widgets[widgetId]?.state ?? {} } };
  }

  /** A value for the answer (state, notifications, debug): anything computed from a secret is masked. */
  private shown(value: unknown, expects: "string" | "json" = "json"): Promise<unknown> {
    return this.scope.resolve(value, this.extra(), expects);
  }

  /** A value that leaves the answer (a config or secret write, a slot request): as computed. */
  private async written(value: unknown, expects: "string" | "json" = "json"): Promise<unknown> {
    const scope = await this.commandScope(value);
    return resolveSmartValue(value, scope, { expects, budget: this.stage.run.budget, functions: this.stage.run.functions });
  }

  /** The command scope with the page's sources `value`'s expressions read. */
  private commandScope(value: unknown): Promise<Scope> {
    return this.scope.scopeFor(
      expressionsIn(value, "").map((found) => found.text),
      this.extra(),
    );
  }

  /** A step wrote: sources are fetched anew and the render context reloaded. */
  private async wrote(contextChanged: boolean): Promise<void> {
    if (contextChanged) this.stage.run.context = await this.world.reloadContext();
    this.scope = this.freshScope();
  }

  async run(commands: readonly CommandDocument[], outputs: Obj = {}): Promise<void> {
    Object.assign(this.outputs, outputs);
    const effects: SequenceEffects<Sequenced, ErrorValue> = {
      execute: (step, key) => this.step(step, key),
      notRun: async (step, key, failure) => {
        if (!failure) return { status: "skipped" };
        return this.failed(step, key, errorValue("UNPROCESSABLE_ENTITY", `if: ${failure.message}`));
      },
    };
    const functions = this.stage.run.functions;
    await runSequence<Sequenced, ErrorValue>({
      steps: sequenced(commands),
      prefix: "",
      scope: {},
      outputs: this.outputs,
      effects,
      budget: this.stage.run.budget,
      condition: async (text) => evaluateExpression(withFunctions(text, functions), await this.scope.scopeFor([text], this.extra()), this.stage.run.budget),
    });
  }

  /** A failure: with `onError` it is handled there; without, it is the answer's ERROR notification. */
  private failed(step: Sequenced, key: string, error: ErrorValue): StepOutcome<ErrorValue> {
    if (!step.onError?.length) {
      const id = `step-error-${step.stepId ?? key}`;
      const code = typeof error.details.code === "string" ? error.details.code : error.code;
      // A refused config's first line says what to fix.
      const lines = error.details.errors;
      const first = Array.isArray(lines) && typeof lines[0] === "string" ? ` (${lines[0]}${lines.length > 1 ? `; ${lines.length - 1} more` : ""})` : "";
      this.stage.notes.notify({ id, level: "ERROR", message: `The ${step.kind} step ${step.stepId ?? key} failed: ${error.message}${first}` }, { code, message: error.message, status: error.status });
    }
    return { status: "error", error };
  }

  private async step(step: Sequenced, key: string): Promise<StepOutcome<ErrorValue>> {
    if (++this.steps > MAX_COMMAND_STEPS) {
      return this.failed(step, key, errorValue("UNPROCESSABLE_ENTITY", `One request runs at most ${MAX_COMMAND_STEPS} command steps`, { limit: MAX_COMMAND_STEPS }));
    }
    try {
      return { status: "success", result: await this.execute(step, key) };
    } catch (err) {
      return this.failed(step, key, asError(err));
    }
  }

  private execute(step: Sequenced, key: string): Promise<unknown> {
    switch (step.kind) {
      case "navigate":
        return this.navigate(step);
      case "refresh":
        this.scope = this.freshScope();
        return Promise.resolve(null);
      case "setPageData":
        return this.setPageData(step);
      case "setWidgetState":
        return this.setWidgetState(step);
      case "notify":
        return this.notify(step, key);
      case "actions":
        return this.actions(step);
      case "job":
        return this.job(step);
      case "setPrincipalConfig":
        return this.setPrincipalConfig(step);
      case "setSecret":
        return this.setSecret(step);
      case "createTempFileUploadUrl":
        return this.uploadSlots(step);
      case "closeModal":
        return this.closeModal(step);
      case "debug":
        return this.debug(step);
    }
  }

  private async navigate(step: Sequenced): Promise<unknown> {
    const page = await this.shown(step.page, "string");
    if (typeof page !== "string") throw fail("navigate.page must resolve to a page key");
    const params = step.params === undefined ? {} : await this.shown(step.params);
    if (!isObject(params)) throw fail("navigate.params must resolve to an object");
    if (sizeOf(params) > MAX_STATE_PART) throw fail(`navigate.params is over ${MAX_STATE_PART} characters`);
    const state = this.stage.state;
    if (step.modal === true) {
      if (!this.stage.view.modal(page)) throw fail(`navigate names ${page}, which is no modal of this dashboard`, { page });
      if (state.modals.length >= MAX_MODALS) throw fail(`At most ${MAX_MODALS} modals are open at once`);
      state.modals.push({ page, params, data: {}, surface: this.acting.surface });
      return { page, modal: true };
    }
    if (!this.stage.view.page(page)) throw fail(`navigate names ${page}, which is no page of this dashboard`, { page });
    // Every placement moves to the page; the modals opened over the old one close.
    state.page = page;
    state.params = params;
    state.data = {};
    state.modals = [];
    return { page, modal: false };
  }

  /** The open modal on top of the acting placement's stack, with its index in the state. */
  private topModal(): number {
    const modals = this.stage.state.modals;
    for (let i = modals.length - 1; i >= 0; i--) if (modals[i].surface === this.acting.surface) return i;
    return -1;
  }

  private async setPageData(step: Sequenced): Promise<unknown> {
    const data = await this.shown(step.data);
    if (!isObject(data)) throw fail("setPageData.data must resolve to an object");
    const state = this.stage.state;
    const top = this.topModal();
    if (step.inModal === true && top < 0) throw fail("setPageData.inModal: no modal is open");
    const holder = step.inModal === true ? state.modals[top] : state;
    const merged = mergePatch(holder.data, data) as Obj;
    if (sizeOf(merged) > MAX_STATE_PART) throw fail(`The page data would be over ${MAX_STATE_PART} characters`);
    holder.data = merged;
    return merged;
  }

  private async setWidgetState(step: Sequenced): Promise<unknown> {
    const id = step.widgetId as string;
    if (!Object.hasOwn(this.widgets, id)) throw fail(`setWidgetState names ${id}, which is no widget of this dashboard`, { widget_id: id });
    const patch = await this.shown(step.state);
    if (!isObject(patch)) throw fail("setWidgetState.state must resolve to an object");
    const widgets = this.stage.state.widgets;
    const merged = mergePatch(widgets[id] ?? {}, patch) as Obj;
    const others = Object.entries(widgets).reduce((sum, [other, value]) => (other === id ? sum : sum + sizeOf(value)), 0);
    const size = sizeOf(merged);
    if (size > MAX_STATE_PART || others + size > MAX_WIDGET_STATE) throw fail(`The state of ${id} would be over the ${MAX_STATE_PART} characters one widget may hold`);
    widgets[id] = merged;
    this.widgets[id] = { state: merged };
    return merged;
  }

  private async notify(step: Sequenced, key: string): Promise<unknown> {
    const message = await this.shown(step.message, "string");
    const text = typeof message === "string" ? message : JSON.stringify(message);
    const level = step.level === "WARN" ? "WARNING" : step.level === "ERROR" ? "ERROR" : "INFO";
    this.stage.notes.notify({ id: step.stepId ?? `notify-${key}`, level, message: text });
    return { message: text };
  }

  private async actions(step: Sequenced): Promise<unknown> {
    const scope = await this.commandScope(step);
    const outcome = await this.world.services.actions(
      {
        actions: Array.isArray(step.actions) ? step.actions : [],
        input: step.input,
        output: step.output,
        permissionSet: step.permissionSet === "dataMutation" ? "dataMutation" : "readonly",
        additionalAllowed: (step.additionalAllowed as string[] | undefined) ?? [],
        denied: (step.denied as string[] | undefined) ?? [],
      },
      scope,
    );
    return this.inline(outcome);
  }

  private async job(step: Sequenced): Promise<unknown> {
    const scope = await this.commandScope(step);
    const outcome = await this.world.services.job(
      { job: step.job as string, input: step.input, additionalAllowed: (step.additionalAllowed as string[] | undefined) ?? [], denied: (step.denied as string[] | undefined) ?? [] },
      scope,
    );
    return this.inline(outcome);
  }

  private async inline(outcome: Awaited<ReturnType<CommandServices["actions"]>>): Promise<unknown> {
    if (outcome.wrote) await this.wrote(false);
    if (outcome.status === "error") throw new StepFailed(outcome.error);
    return outcome.output;
  }

  private async setPrincipalConfig(step: Sequenced): Promise<unknown> {
    const principalId = step.principalId === undefined ? undefined : await this.written(step.principalId, "string");
    if (principalId !== undefined && (typeof principalId !== "string" || principalId === "")) throw fail("setPrincipalConfig.principalId must resolve to a non-empty string");
    const hasConfig = step.config !== undefined;
    if (hasConfig === (step.ops !== undefined)) throw fail("setPrincipalConfig takes either config or ops");
    const config = hasConfig ? await this.written(step.config) : undefined;
    if (hasConfig && !isObject(config)) throw fail("setPrincipalConfig.config must resolve to an object");
    const ops: PrincipalOp[] = [];
    for (const op of (step.ops as Obj[] | undefined) ?? []) {
      ops.push({ op: op.op as PrincipalOp["op"], path: op.path as string, value: await this.written(op.value), ...(op.by !== undefined && { by: op.by as 1 | -1 }) });
    }
    const effective = await this.world.services.setPrincipalConfig({
      principalType: step.principalType as "company" | "team" | "user",
      ...(principalId !== undefined && { principalId: principalId as string }),
      ...(hasConfig ? { config: config as Obj } : { ops }),
    });
    await this.wrote(true);
    return effective;
  }

  private async setSecret(step: Sequenced): Promise<unknown> {
    const value = await this.written(step.value, "string");
    if (typeof value !== "string" || value === "") throw fail("setSecret.value must resolve to a non-empty string");
    // The value is a secret from now on: nothing this render answers may show it.
    this.stage.run.secrets?.conceal(value);
    await this.world.services.setSecret(step.target as string, value);
    await this.wrote(true);
    return null;
  }

  private async uploadSlots(step: Sequenced): Promise<unknown> {
    const slots = await this.written(step.slots);
    const ttl = step.ttl === undefined ? undefined : await this.written(step.ttl);
    return this.world.services.uploadSlots({ slots, type: step.type, ttl });
  }

  private async closeModal(step: Sequenced): Promise<unknown> {
    const state = this.stage.state;
    const top = this.topModal();
    if (top < 0) throw fail("closeModal: no modal is open");
    const result = step.result === undefined ? undefined : await this.shown(step.result);
    const closed = state.modals[top];
    // The page below takes the result: a result it refuses leaves the modal open, so nothing is popped before the check.
    const below = state.modals.slice(0, top).findLastIndex((modal) => modal.surface === this.acting.surface);
    const holder = below < 0 ? state : state.modals[below];
    const merged = result === undefined ? holder.data : mergePatch(holder.data, result);
    if (!isObject(merged) || sizeOf(merged) > MAX_STATE_PART) throw fail(`closeModal.result must resolve to an object that keeps the page data under ${MAX_STATE_PART} characters`);
    state.modals.splice(top, 1);
    holder.data = merged;
    return { page: closed.page };
  }

  private async debug(step: Sequenced): Promise<unknown> {
    const value = step.value === undefined ? structuredClone(this.outputs) : await this.shown(step.value);
    const masked = this.stage.run.secrets?.size ? this.stage.run.secrets.value(value) : value;
    this.stage.debug.push(masked);
    return masked;
  }

  /** A form's submit: every required field has a value, else no command runs; the commands see the values as `outputs.form`. */
  async submit(commands: readonly CommandDocument[]): Promise<void> {
    const { widgetId } = this.acting.action;
    const values = this.formValues();
    const fields = await formFields(this.scope, this.acting.widget, this.extra());
    const missing = missingRequired(fields, values);
    if (missing.length) {
      const names = missing.map(fieldName).join(", ");
      this.stage.notes.notify({ id: `form-required-${widgetId}`, level: "ERROR", message: `Fill in the required field${missing.length > 1 ? "s" : ""} ${names} of ${widgetId}.` });
      return;
    }
    const foreign = await foreignFiles(fields, values, this.world.services);
    if (foreign.length) {
      const names = foreign.map(fieldName).join(", ");
      this.stage.notes.notify({ id: `form-file-invalid-${widgetId}`, level: "ERROR", message: `Upload the file${foreign.length > 1 ? "s" : ""} for ${names} of ${widgetId} again: no live upload of yours holds it.` });
      return;
    }
    await this.run(commands, { form: values });
  }

  /** A form's values: its widget state, with the payload's keys over it. */
  private formValues(): Obj {
    const { widgetId, payload } = this.acting.action;
    return { ...(this.widgets[widgetId]?.state ?? {}), ...(isObject(payload) ? payload : {}) };
  }

  /** A form's built-in preview of a `file` field: its previewPage opens as a modal showing the upload. */
  async preview(): Promise<void> {
    const { widgetId, payload } = this.acting.action;
    const fields = await formFields(this.scope, this.acting.widget, this.extra());
    const opened = await previewUpload({ widgetId, fields, payload, values: this.formValues(), services: this.world.services, notes: this.stage.notes });
    if (!opened) return;
    if (!this.stage.view.modal(opened.page)) throw new ApiError("UNPROCESSABLE_ENTITY", `The previewPage ${opened.page} is no modal of this dashboard`);
    const state = this.stage.state;
    if (state.modals.length >= MAX_MODALS) return void this.stage.notes.notify({ id: `form-preview-error-${widgetId}`, level: "ERROR", message: `At most ${MAX_MODALS} modals are open at once.` });
    state.modals.push({ page: opened.page, params: opened.params, data: {}, surface: this.acting.surface });
  }

  /** An action on a widget a source reads sends the grid that source feeds back to its first page. */
  resetPaging(): void {
    const { widgetId } = this.acting.action;
    const sources = this.acting.page.document.dataSources;
    if (!isObject(sources)) return;
    const reads = new RegExp(`\\bwidgets\\.${widgetId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`);
    const readers = new Set(Object.entries(sources).filter(([, source]) => reads.test(JSON.stringify(source))).map(([name]) => name));
    if (!readers.size) return;
    const state = this.stage.state;
    for (const id of Object.keys(this.widgets)) {
      const widget = this.stage.view.widget(this.acting.page.document, id);
      if (!widget || typeof widget.dataSource !== "string" || !readers.has(widget.dataSource)) continue;
      const grid = state.widgets[id];
      if (isObject(grid?.data_grid)) {
        state.widgets[id] = { ...grid, data_grid: { ...grid.data_grid, page: 1 } };
        this.widgets[id] = { state: state.widgets[id] };
      }
    }
  }
}

/**
 * Runs the posted action against the stage's state: 422 when it names no
 * widget and handler the user can see, before anything runs.
 */
export async function runAction(stage: CommandStage, world: CommandWorld, posted: unknown): Promise<void> {
  const acting = locateAction(posted, stage.view, stage.state);
  const run = new CommandRun(stage, world, acting);
  run.resetPaging();
  if (!acting.commands) return run.preview();
  if (acting.widget.widgetComponent === "form" && submits(acting.widget, acting.action.handler)) return run.submit(acting.commands);
  return run.run(acting.commands);
}

