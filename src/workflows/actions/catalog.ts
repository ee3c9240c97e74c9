// The action catalog: one module per action name, gathered from the action
// families. The walker's `execute` effect goes through `executeAction`,
// which checks the resolved config against the module's schema before the
// module sees it.
import { check } from "../../lib/validate";
import { runError } from "../engine/walk";
import type { ActionInvocation, ActionOutcome } from "../engine/types";
import { archiveActions } from "./archive";
import { awaitInput } from "./await-input";
import { csvActions } from "./csv";
import { entityActions } from "./entity";
import { fileActions } from "./files";
import { invokeWorkflow } from "./invoke-workflow";
import { outboundActions } from "./outbound";
import { pdfActions } from "./pdf";
import { pipe } from "./pipe";
import type { ActionContext, ActionFamily } from "./types";

export const catalog: ActionFamily = {
  pipe,
  awaitInput,
  invokeWorkflow,
  ...outboundActions,
  ...entityActions,
  ...fileActions,
  ...archiveActions,
  ...pdfActions,
  ...csvActions,
};

/**
 * Executes one attempt of an action. A config its module's schema refuses is
 * a 422 VALIDATION_FAILED error outcome with `config.<path>: <reason>` lines;
 * a catalog name without a module answers an error outcome too, so a
 * definition naming it fails at that action, not at save.
 */
export async function executeAction(invocation: ActionInvocation, ctx: ActionContext): Promise<ActionOutcome> {
  const name = invocation.action.name;
  const module = catalog[name];
  if (!module) {
    return { kind: "error", error: runError("UNPROCESSABLE_ENTITY", `Action ${name} is not available in this release`, { action: name }) };
  }
  const errors = check(module.configSchema, invocation.config, "config");
  if (errors.length) {
    return { kind: "error", error: runError("VALIDATION_FAILED", `The config of action ${name} does not satisfy its schema`, { errors, validation_errors: errors }) };
  }
  return module.execute(invocation.config, invocation, ctx);
}
