// What a run's walk asks of the world (engine/types.ts Effects), as its
// object provides it: records kept and mirrored by the object, actions
// executed with the run's context, schemas read from the tenant's registry.
// A cancel stops the walk at its next record.
import type { Database } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { Redactor } from "../../lib/redact";
import { resolveSchemaName } from "../../schema/registry";
import { executeAction } from "../actions/catalog";
import { actionContext } from "../actions/context";
import type { ActionRecord, Effects, RunDocument, StepRecord } from "../engine/types";
import { handOverRuns } from "./run-client";

/** A cancel arrived while a walk was in flight: the walk records nothing more. */
export class RunStopped extends Error {}

export interface EffectSources {
  db: Database;
  doc: RunDocument;
  /** The env with its secrets resolved. */
  env: Record<string, unknown>;
  bindings: Env;
  clock: Clock;
  redactor: Redactor;
  /** Where work that outlives the walk goes: the start of a child run (the object's own state). */
  background: Pick<ExecutionContext, "waitUntil">;
  /** Whether a cancel is waiting: every record from then on throws RunStopped. */
  stopped(): boolean;
  recordStep(id: string, rec: StepRecord): Promise<void>;
  recordAction(rec: ActionRecord): Promise<void>;
  /** Keeps an action's record (its `detail`) without mirroring it. */
  keepAction(rec: ActionRecord): Promise<void>;
}

export function runEffects(s: EffectSources): Effects {
  const stoppable =
    <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
    (...args: A) => {
      if (s.stopped()) throw new RunStopped();
      return fn(...args);
    };
  return {
    now: () => s.clock.now(),
    secrets: s.redactor,
    recordStep: stoppable(s.recordStep),
    recordAction: stoppable(s.recordAction),
    execute: (invocation) =>
      executeAction(
        invocation,
        actionContext({
          doc: s.doc,
          env: s.env,
          bindings: s.bindings,
          database: s.db,
          now: () => s.clock.now(),
          redactor: s.redactor,
          handOver: (runs) => handOverRuns(s.bindings, s.background, runs),
          persist: stoppable((detail) => s.keepAction({ ...invocation.record, detail })),
        }),
      ),
    schema: (name) => s.db.tenantTx(s.doc.tenantId, (sql) => resolveSchemaName(sql, name)),
  };
}
