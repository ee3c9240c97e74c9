// A posted action's command list, run before the screens resolve (docs/apps.md,
// "Commands"): the sequencing and the scope. Each step goes in order through
// the one sequencing of lib/sequence.ts, its `if`, `onSuccess` and
// `onError`, and runs by its kind's declaration (catalog.ts) with the
// command scope this runner keeps: the acting page's sources, `outputs`,
// `payload`, `thisWidget`. A failed step with `onError` runs it and the list
// goes on; without one it adds an ERROR notification and the list stops. A
// step that writes empties the sources read so far, and reloads the render
// context when it wrote a config or a secret.
import type { CommandDocument } from "../../../definition/language/spec-schema";
import { ApiError, errorValue, type ErrorValue } from "../../../lib/errors";
import { runSequence, type SequenceEffects, type StepOutcome } from "../../../lib/sequence";
import {
  evaluateExpression,
  expressionsIn,
  ExpressionError,
  ExpressionSyntaxError,
  resolveSmartValue,
  withFunctions,
  type Scope,
} from "../../../lib/smart-values";
import { DeadlineExceeded, MAX_MODALS, type CommandStage, type PageEvaluation, type RenderContext } from "../contracts";
import { executeCommand } from "./catalog";
import { resetGridPaging } from "./grid-reset";
import { fieldName, foreignFiles, formFields, missingRequired, previewUpload, submits } from "./form";
import type { CommandServices } from "./services";
import { StepFailed, type Obj, type StepContext } from "./step";
import { locateAction, type ActingWidget } from "./target";
import { isObject } from "../../../lib/is-object";

/** Command steps one request may run, onSuccess and onError included: a list that navigates or notifies in a loop ends here. */
export const MAX_COMMAND_STEPS = 100;

export interface CommandWorld {
  services: CommandServices;
  /** The render context loaded again (a config or secret write changed it). */
  reloadContext(): Promise<RenderContext>;
}

/** A thrown failure as a step's error; an unexpected one passes through (the render answers 500). */
function asError(err: unknown): ErrorValue {
  if (err instanceof StepFailed) return err.error;
  if (err instanceof ApiError) return err.value;
  if (err instanceof ExpressionError || err instanceof ExpressionSyntaxError) return errorValue("UNPROCESSABLE_ENTITY", err.message);
  if (err instanceof DeadlineExceeded) return errorValue("SERVICE_UNAVAILABLE", "The render's deadline passed before the step ended");
  throw err;
}

/** A command as sequencing reads it: `onError` makes a failure go on to the next step. */
interface Sequenced {
  command: CommandDocument;
  if?: string;
  stepId?: string;
  errorPolicy: "fail" | "continue";
  onSuccess?: Sequenced[];
  onError?: Sequenced[];
}

function sequenced(list: readonly CommandDocument[]): Sequenced[] {
  return list.map((command) => ({
    command,
    if: command.if,
    stepId: command.stepId,
    errorPolicy: command.onError?.length ? "continue" : "fail",
    onSuccess: command.onSuccess && sequenced(command.onSuccess),
    onError: command.onError && sequenced(command.onError),
  }));
}

class CommandRun {
  private scope: PageEvaluation;
  private readonly outputs: Obj = {};
  private readonly widgets: Record<string, { state: Obj }>;
  private steps = 0;

  constructor(
    private readonly stage: CommandStage,
    private readonly world: CommandWorld,
    private readonly acting: ActingWidget,
  ) {
    this.widgets = Object.fromEntries([...stage.view.widgetIds()].map((id) => [id, { state: stage.state.widgets[id] ?? {} }]));
    resetGridPaging(stage.view, stage.state, acting, this.widgets);
    this.scope = this.freshScope();
  }

  private freshScope(): PageEvaluation {
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

  /** What a step of the list works with; `key` is its position. */
  private context(key: string): StepContext {
    return {
      key,
      stage: this.stage,
      services: this.world.services,
      acting: this.acting,
      widgets: this.widgets,
      outputs: this.outputs,
      shown: (value, expects) => this.shown(value, expects),
      written: (value, expects) => this.written(value, expects),
      scopeFor: (value) => this.commandScope(value),
      refresh: () => {
        this.scope = this.freshScope();
      },
      wrote: (contextChanged) => this.wrote(contextChanged),
    };
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
      this.stage.notes.notify(
        { id, level: "ERROR", message: `The ${step.command.kind} step ${step.stepId ?? key} failed: ${error.message}${first}` },
        { code, message: error.message, status: error.status },
      );
    }
    return { status: "error", error };
  }

  private async step(step: Sequenced, key: string): Promise<StepOutcome<ErrorValue>> {
    if (++this.steps > MAX_COMMAND_STEPS) {
      return this.failed(
        step,
        key,
        errorValue("UNPROCESSABLE_ENTITY", `One request runs at most ${MAX_COMMAND_STEPS} command steps`, { limit: MAX_COMMAND_STEPS }),
      );
    }
    try {
      return { status: "success", result: await executeCommand(step.command, this.context(key)) };
    } catch (err) {
      return this.failed(step, key, asError(err));
    }
  }

  /** A form's submit: every required field has a value, else no command runs; the commands see the values as `outputs.form`. */
  async submit(commands: readonly CommandDocument[]): Promise<void> {
    const { widgetId } = this.acting.action;
    const values = this.formValues();
    const fields = await formFields(this.scope, this.acting.widget, this.extra());
    const missing = missingRequired(fields, values);
    if (missing.length) {
      const names = missing.map(fieldName).join(", ");
      this.stage.notes.notify({
        id: `form-required-${widgetId}`,
        level: "ERROR",
        message: `Fill in the required field${missing.length > 1 ? "s" : ""} ${names} of ${widgetId}.`,
      });
      return;
    }
    const foreign = await foreignFiles(fields, values, this.world.services);
    if (foreign.length) {
      const names = foreign.map(fieldName).join(", ");
      this.stage.notes.notify({
        id: `form-file-invalid-${widgetId}`,
        level: "ERROR",
        message: `Upload the file${foreign.length > 1 ? "s" : ""} for ${names} of ${widgetId} again: no live upload of yours holds it.`,
      });
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
    if (state.modals.length >= MAX_MODALS)
      return void this.stage.notes.notify({ id: `form-preview-error-${widgetId}`, level: "ERROR", message: `At most ${MAX_MODALS} modals are open at once.` });
    state.modals.push({ page: opened.page, params: opened.params, data: {}, surface: this.acting.surface });
  }
}

/**
 * Runs the posted action against the stage's state: 422 when it names no
 * widget and handler the user can see, before anything runs.
 */
export async function runAction(stage: CommandStage, world: CommandWorld, posted: unknown): Promise<void> {
  const acting = locateAction(posted, stage.view, stage.state);
  const run = new CommandRun(stage, world, acting);
  if (!acting.commands) return run.preview();
  if (acting.widget.widgetComponent === "form" && submits(acting.widget, acting.action.handler)) return run.submit(acting.commands);
  return run.run(acting.commands);
}
