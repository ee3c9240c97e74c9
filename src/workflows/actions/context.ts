// Builds the context an action executes with, for the run's object, for an
// app command that runs actions inside its request (../inline.ts) and for
// tests that execute an action by hand: one place that decides what an
// action may reach.
import { tenantDb, type Database, type TenantDb } from "../../db/client";
import type { AuthProfile } from "../../lib/outbound/profile-schema";
import type { Principal } from "../../lib/principal";
import { errorValue, type ErrorValue } from "../../lib/errors";
import type { Redactor } from "../../lib/redact";
import { policyPrincipal } from "../../access/policy-principal";
import { confinedServices, type ServiceHolder } from "../../access/confined-services";
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
  handOver: ActionContext["handOver"];
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

/** What every context is made of; `principal` is read when an action first reaches data. */
interface Parts {
  runId: string;
  parentRunId: string | null;
  tenant: TenantDb;
  policyId: string | null;
  principal(): Promise<Principal>;
  /** Who a refusal names: a run's policy, or an app request's user. */
  holder: ServiceHolder;
  bindings: Env;
  database: Database;
  now(): number;
  redactor: Redactor;
  handOver: ActionContext["handOver"];
  persist: ActionContext["persist"];
  authProfiles: Record<string, AuthProfile>;
  profileScope: Record<string, unknown>;
  deadline?: number;
}

function contextOf(p: Parts): ActionContext {
  let principal: Promise<Principal> | undefined;
  return {
    runId: p.runId,
    parentRunId: p.parentRunId,
    tenantId: p.tenant.tenantId,
    env: p.bindings,
    database: p.database,
    now: p.now,
    policyId: p.policyId,
    services: async () => confinedServices(await (principal ??= p.principal()), p.tenant, p.bindings, p.holder),
    handOver: p.handOver,
    origin: p.bindings.PUBLIC_URL.replace(/\/+$/, ""),
    authProfiles: p.authProfiles,
    profileScope: p.profileScope,
    deadline: p.deadline,
    conceal: (value) => p.redactor.conceal(value),
    redact: (value) => p.redactor.value(value),
    persist: p.persist,
  };
}

export function actionContext(s: ContextSources): ActionContext {
  return contextOf({
    ...s,
    runId: s.doc.runId,
    parentRunId: s.doc.runId,
    tenant: tenantDb(s.database, s.doc.tenantId),
    policyId: s.doc.policyId,
    principal: () => runPrincipal(s.database, s.doc, s.now()),
    holder: "run",
    authProfiles: s.doc.definition.auth ?? {},
    profileScope: { config: { env: s.env }, context: s.doc.context },
  });
}

/** What an app request lends the actions one of its commands runs. */
export interface RequestContextSources {
  /** Stands for the run id in what an action derives from it (idempotency keys). */
  requestId: string;
  /** The request's tenant, unconfined: the services confine it to `principal`. */
  tenant: TenantDb;
  /** The app user: the actions have exactly its permissions. */
  principal: Principal;
  bindings: Env;
  database: Database;
  now(): number;
  redactor: Redactor;
  handOver: ActionContext["handOver"];
  /** The spec's root `auth` map. */
  authProfiles: Record<string, AuthProfile>;
  /** What a root profile's templates read: the command's scope. */
  profileScope: Record<string, unknown>;
  /** Epoch ms: the request's deadline, which no action's work may pass. */
  deadline: number;
}

/** An action inside a request that the request's deadline ended, before it started or while it ran. */
export function requestDeadlinePassed(action: string): ErrorValue {
  return errorValue("SERVICE_UNAVAILABLE", `The request's deadline passed before action ${action} finished; run long work from a workflow`, { action });
}

/**
 * The context of an action an app command runs inside its request, as the
 * app user. Nothing outlives the request, so there is no storage to keep an
 * action's detail in: only a waiting action persists one, and those are
 * refused before they run.
 */
export function requestActionContext(s: RequestContextSources): ActionContext {
  return contextOf({
    ...s,
    runId: s.requestId,
    parentRunId: null,
    policyId: null,
    principal: async () => s.principal,
    holder: "app",
    persist: async () => undefined,
  });
}
