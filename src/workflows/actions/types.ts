// What an action module is and what it is given: the catalog (catalog.ts)
// maps each action name to one module; the run's object builds the context.
import type { Database } from "../../db/client";
import type { ActionName } from "../../definition/language/workflow-schema";
import type { AuthProfile } from "../../lib/outbound/profile-schema";
import type { ConfinedServices } from "../../access/confined-services";
import type { JSONSchema } from "json-schema-to-ts";
import type { ActionInvocation, ActionOutcome } from "../engine/types";

export interface ActionContext {
  /** The run's id; for actions an app command runs inside its request, the request's. */
  runId: string;
  /** The run a child run started by an action is recorded under: the run's id; null inside an app request (no run: the child starts a chain of its own). */
  parentRunId: string | null;
  tenantId: string;
  /** The Worker's bindings. */
  env: Env;
  database: Database;
  now(): number;
  /** The access policy the run acts with; null: none (a test run, an app request: `services` carries the principal). */
  policyId: string | null;
  /** The confined services of the run's principal (exactly its policy's grants, read once per walk), new for each call: their `published` waits for that action's events only. */
  services(): Promise<ConfinedServices>;
  /**
   * Hands child runs whose rows are committed to their objects, as a route
   * hands over the runs it starts (runs/run-client.ts handOverRuns): each
   * object is armed before this returns and started without being waited
   * for, so the child runs alongside the action's run, not inside it.
   */
  handOver(runs: { tenantId: string; runId: string }[]): Promise<void>;
  /** The service's public origin (PUBLIC_URL), for the absolute links an action makes. */
  origin: string;
  /**
   * Epoch ms, for an action an app command runs inside its request: its
   * caller waits, so an outbound call retries within the request and ends by
   * then (lib/outbound/within-deadline.ts). None in a run, whose retries wait
   * for the run's alarm.
   */
  deadline?: number;
  /** The running document's root `auth` map: profiles by name. */
  authProfiles: Record<string, AuthProfile>;
  /**
   * What a root auth profile's templates read: a run's `config.env` with
   * secret references resolved (a missing one as a marker:
   * lib/secret-markers.ts) and its `context`; an app command's scope.
   */
  profileScope: Record<string, unknown>;
  /** Adds a credential (a resolved secret, a token) to what no record, error or log line may carry. */
  conceal(value: string): void;
  /** A value or text with every concealed credential replaced by `***`. */
  redact<T>(value: T): T;
  /**
   * Keeps `detail` on the action's record in the run's storage before the
   * action goes on (state that must survive a crash between here and the
   * outcome). Throws when the storage write fails.
   */
  persist(detail: unknown): Promise<void>;
}

/**
 * What an action needs of the run's policy, read from its config: as
 * written in the definition (templates unresolved) at activation, as
 * resolved when it runs. Strings as GET /access/me/permissions writes them:
 * `resource:action`, or `entity:<action>:<type name>` for a type the config
 * names literally. The config may be anything at activation (a template in
 * place of an object), so a declaration reads it defensively.
 */
export type Permissions = (config: Record<string, unknown>) => string[];

/** An action as the catalog holds it; written with `action()` (action.ts), which derives `C` from the schema. */
export interface ActionModule<C = unknown> {
  name: ActionName;
  /** The resolved config is checked against it before `execute` sees it. */
  configSchema: JSONSchema;
  permissions: Permissions;
  execute(config: C, invocation: ActionInvocation, ctx: ActionContext): Promise<ActionOutcome>;
}

/** A family of actions (entity, files, archives, ...), each module under its catalog name. */
export type ActionFamily = Partial<Record<ActionName, ActionModule>>;
