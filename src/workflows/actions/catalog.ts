// The action catalog: one module per action name, gathered from the action
// families. The walker's `execute` effect goes through `executeAction`,
// which checks the resolved config against the module's schema before the
// module sees it.
import { check } from "../../lib/validate";
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
import { errorValue } from "../../lib/errors";
import { refusedUnless } from "../../access/confined-services";

/** Every action name of the language has its module here (a test holds the catalog to the language's list). */
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
 * What a result may hold, as JSON: it is kept in the run's records (a stored
 * value holds at most 2 MB, with the action's config beside it). Large data
 * moves as temp files.
 */
export const MAX_RESULT_BYTES = 1024 * 1024;

/**
 * Executes one attempt of an action. A config its module's schema refuses is
 * a 422 VALIDATION_FAILED error outcome with `config.<path>: <reason>` lines;
 * a permission the module declares and the run's policy lacks, a 403
 * FORBIDDEN one, before anything is read or written; a result over
 * MAX_RESULT_BYTES fails the action.
 */
export async function executeAction(invocation: ActionInvocation, ctx: ActionContext): Promise<ActionOutcome> {
  const name = invocation.action.name;
  const module = catalog[name];
  // The definition was checked at save against the same list of names.
  if (!module) throw new Error(`action ${name} has no module in the catalog`);
  const errors = check(module.configSchema, invocation.config, "config");
  if (errors.length) {
    return {
      kind: "error",
      error: errorValue("VALIDATION_FAILED", `The config of action ${name} does not satisfy its schema`, { errors, validation_errors: errors }),
    };
  }
  const permissions = module.permissions(invocation.config as Record<string, unknown>);
  // An action that needs nothing of the policy never reads it.
  const refused = permissions.length ? refusedUnless(await ctx.services(), permissions) : undefined;
  if (refused) return refused;
  const outcome = await module.execute(invocation.config, invocation, ctx);
  if (outcome.kind !== "success") return outcome;
  const json = JSON.stringify(outcome.result) ?? "";
  // A UTF-16 unit is at most 3 UTF-8 bytes: most results need no encoding to be known small.
  if (json.length * 3 <= MAX_RESULT_BYTES) return outcome;
  const size = new TextEncoder().encode(json).byteLength;
  if (size <= MAX_RESULT_BYTES) return outcome;
  const message = `The result of action ${name} is ${size} bytes, over the ${MAX_RESULT_BYTES} a result may hold; move large data as temp files`;
  return { kind: "error", error: errorValue("UNPROCESSABLE_ENTITY", message, { size, limit: MAX_RESULT_BYTES }), detail: outcome.detail };
}
