// What a command's step works with (the runner, run.ts, provides it): the
// stage the screens resolve from, the world's services, the acting widget,
// and the two ways a smart value resolves; and how a step fails.
import { errorValue, type ErrorValue } from "../../../lib/errors";
import type { Scope } from "../../../lib/smart-values";
import type { CommandStage } from "../contracts";
import type { CommandServices } from "./services";
import type { ActingWidget } from "./target";

export type Obj = Record<string, unknown>;
/** A state part's size as the state's bounds count it: characters of its JSON. */
export const sizeOf = (value: unknown) => JSON.stringify(value).length;

export interface StepContext {
  /** The step's position (`0`, `1.onError.0`): its id when it has no stepId. */
  key: string;
  stage: CommandStage;
  services: CommandServices;
  acting: ActingWidget;
  /** Each widget's state as the command scope shows it (`thisWidget`, `page.widgets`). */
  widgets: Record<string, { state: Obj }>;
  /** Each earlier step's result by stepId. */
  outputs: Obj;
  /** A value for the answer (state, notifications, debug): anything computed from a secret is masked. */
  shown(value: unknown, expects?: "string" | "json"): Promise<unknown>;
  /** A value that leaves the answer (a config or secret write, a slot request): as computed. */
  written(value: unknown, expects?: "string" | "json"): Promise<unknown>;
  /** The command scope with the page's sources `value`'s expressions read: what an inline action list's templates see. */
  scopeFor(value: unknown): Promise<Scope>;
  /** Later reads of sources fetch again. */
  refresh(): void;
  /** A step wrote: sources are fetched anew, and the render context reloaded when the write changed it (a config or secret). */
  wrote(contextChanged: boolean): Promise<void>;
}

/** A command's failure as the step records it. */
export class StepFailed extends Error {
  constructor(readonly error: ErrorValue) {
    super(error.message);
  }
}

export const fail = (message: string, details: Record<string, unknown> = {}) => new StepFailed(errorValue("UNPROCESSABLE_ENTITY", message, details));

/** The index in the state of the open modal on top of the acting placement's stack; -1 when none is open. */
export function topModal(ctx: StepContext): number {
  const modals = ctx.stage.state.modals;
  for (let i = modals.length - 1; i >= 0; i--) if (modals[i].surface === ctx.acting.surface) return i;
  return -1;
}
