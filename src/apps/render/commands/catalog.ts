// The command catalog: one module per kind of the spec language, gathered
// from the families. Its type asks for every kind of COMMAND_KINDS (a test
// holds it to the publish schema's list too), and `executeCommand` hands a
// step to its kind's module.
import type { CommandDocument, CommandKind } from "../../../definition/language/spec-schema";
import type { CommandModule } from "./command";
import { inlineCommands } from "./inline";
import { navigationCommands } from "./navigation";
import { noticeCommands } from "./notices";
import { stateCommands } from "./state";
import type { StepContext } from "./step";
import { uploadCommands } from "./uploads";
import { writeCommands } from "./writes";

export const COMMANDS: { [K in CommandKind]: CommandModule<K> } = {
  ...navigationCommands,
  ...stateCommands,
  ...noticeCommands,
  ...inlineCommands,
  ...writeCommands,
  ...uploadCommands,
};

/** Runs one step by its kind's module. */
export function executeCommand<K extends CommandKind>(step: CommandDocument<K>, ctx: StepContext): Promise<unknown> {
  const module: CommandModule<K> = COMMANDS[step.kind];
  return module.run(step, ctx);
}
