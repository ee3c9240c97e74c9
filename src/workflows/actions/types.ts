// What an action module is and what it is given: the catalog (catalog.ts)
// maps each action name to one module; the run's object builds the context.
import type { Database } from "../../db/client";
import type { ActionName } from "../../definition/language/workflow-schema";
import type { JsonSchema } from "../../lib/validate";
import type { ActionInvocation, ActionOutcome } from "../engine/types";

export interface ActionContext {
  runId: string;
  tenantId: string;
  /** The Worker's bindings. */
  env: Env;
  database: Database;
  now(): number;
  /** The access policy the run acts with; null: no permissions. */
  policyId: string | null;
  /** Kicks child runs after commit. */
  kick(runs: { tenantId: string; runId: string }[]): Promise<void>;
}

export interface ActionModule<C = any> {
  name: ActionName;
  /** The resolved config is checked against it before `execute` sees it. */
  configSchema: JsonSchema;
  execute(config: C, invocation: ActionInvocation, ctx: ActionContext): Promise<ActionOutcome>;
}
