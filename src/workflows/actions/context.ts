// Builds the context an action executes with, for the run's object and for
// tests that execute an action by hand: one place that decides what an
// action may reach.
import { tenantDb, type Database } from "../../db/client";
import type { Principal } from "../../gateway/principal";
import { Redactor } from "../../lib/redact";
import { policyPrincipal } from "../../access/policy-principal";
import { confinedServices } from "../../access/confined-services";
import type { RunDocument } from "../engine/types";
import type { ActionContext } from "./types";

export interface ContextSources {
  doc: Pick<RunDocument, "runId" | "tenantId" | "policyId" | "context"> & { definition: Pick<RunDocument["definition"], "auth"> };
  /** The env with secret references resolved (engine/secrets.ts). */
  env: Record<string, unknown>;
  bindings: Env;
  database: Database;
  now(): number;
  redactor: Redactor;
  kick: ActionContext["kick"];
  persist: ActionContext["persist"];
}

export function actionContext(s: ContextSources): ActionContext {
  let principal: Promise<Principal> | undefined;
  const tenant = tenantDb(s.database, s.doc.tenantId);
  const policy = () => (principal ??= tenant.tx((sql) => policyPrincipal(sql, s.doc.policyId)));
  return {
    runId: s.doc.runId,
    tenantId: s.doc.tenantId,
    env: s.bindings,
    database: s.database,
    now: s.now,
    policyId: s.doc.policyId,
    services: async () => confinedServices(await policy(), tenant, s.bindings),
    kick: s.kick,
    origin: s.bindings.PUBLIC_URL.replace(/\/+$/, ""),
    authProfiles: s.doc.definition.auth ?? {},
    profileScope: { config: { env: s.env }, context: s.doc.context },
    conceal: (value) => s.redactor.conceal(value),
    redact: (value) => s.redactor.value(value),
    persist: s.persist,
  };
}
