// Declares a command kind once: its fields' schema and how a step of that
// kind runs. The schema is the publish schema's (COMMAND_FIELDS of
// definition/language/spec-schema.ts), so what publish accepts and what the
// step reads are one declaration; the step's type follows from it.
import { COMMAND_FIELDS, type CommandDocument, type CommandKind } from "../../../definition/language/spec-schema";
import type { StepContext } from "./step";

export interface CommandModule<K extends CommandKind> {
  kind: K;
  /** The kind's own fields, as publish checks them. */
  fields: (typeof COMMAND_FIELDS)[K];
  /** Runs one step; its result is `outputs.<stepId>`. Throws a StepFailed (or an ApiError) to fail the step. */
  run(step: CommandDocument<K>, ctx: StepContext): Promise<unknown>;
}

/** K is inferred from `kind` alone; `run` is typed from that kind's schema. */
export function command<const K extends CommandKind>(module: { kind: K; run: NoInfer<CommandModule<K>["run"]> }): CommandModule<K> {
  return { kind: module.kind, fields: COMMAND_FIELDS[module.kind], run: module.run };
}

/** The modules of a family, by kind. */
export type CommandFamily<K extends CommandKind> = { [P in K]: CommandModule<P> };
