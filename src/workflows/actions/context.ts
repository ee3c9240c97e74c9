// Builds the context an action executes with, for the run's object and for
// tests that execute an action by hand: one place that decides what an
// action may reach.
import { tenantDb, type Database } from "../../db/client";
import type { Principal } from "../../gateway/principal";
import { Redactor } from "../../lib/redact";
import { policyPrincipal } from "../../access/policy-principal";
import { confinedServices } from "../../access/confined-services";
import { tokenPrincipal } from "../../auth/credentials";
import type { RunDocument } from "../engine/types";
import type { ActionContext } from "./types";

export interface ContextSources {
  doc: Pick<RunDocument, "runId" | "tenantId" | "policyId" | "callerTokenId" | "context"> & { definition: Pick<RunDocument["definition"], "auth"> };
  /** The env with secret references resolved (engine/secrets.ts). */
  env: Record<string, unknown>;
  bindings: Env;
  database: Database;
  now(): number;
  redactor: Redactor;
  kick: ActionContext["kick"];
  persist: ActionContext["persist"];
}

/**
 * Who the run acts as: a test run as its caller's token does now (no
 * permissions once that token is unusable), any other run as its policy.
 */
async function runPrincipal(database: Database, doc: ContextSources["doc"], now: number): Promise<Principal> {
  const ofPolicy = (policyId: string | null) => tenantDb(database, doc.tenantId).tx((sql) => policyPrincipal(sql, policyId));
  const tokenId = doc.callerTokenId;
  if (tokenId === undefined) return ofPolicy(doc.policyId);
  return (await database.system((sql) => tokenPrincipal(sql, doc.tenantId, tokenId, now))) ?? ofPolicy(null);
}

export function actionContext(s: ContextSources): ActionContext {
  let principal: Promise<Principal> | undefined;
  const tenant = tenantDb(s.database, s.doc.tenantId);
  const policy = () => (principal ??= runPrincipal(s.database, s.doc, s.now()));
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
