// Building an action's invocation and context by hand, as the run's object does.
import { env } from "cloudflare:test";
import type { Database } from "../../src/db/client";
import type { ActionName } from "../../src/definition/language/workflow-schema";
import type { AuthProfile } from "../../src/lib/outbound/profile-schema";
import type { ActionRecord } from "../../src/workflows/engine/types";
import type { ActionContext } from "../../src/workflows/actions/types";
import { actionContext } from "../../src/workflows/actions/context";
import { Redactor } from "../../src/lib/redact";
import { call, type TenantCreds } from "../support/api";

/** A policy granting exactly `permissions` (`resource:action`), made through the API. */
export async function policyGranting(t: TenantCreds, permissions: string[]): Promise<string> {
  const grants = permissions.map((p) => ({ resource: p.split(":")[0], actions: [p.split(":")[1]] }));
  const res = await call("POST", "/access/policies", { auth: t.auth, body: { name: `p-${crypto.randomUUID().slice(0, 8)}`, grants } });
  if (res.status !== 201) throw new Error(`policy: ${res.status} ${res.text}`);
  return res.json.data.id;
}

export function invocation(name: ActionName, config: unknown, record: Partial<ActionRecord> = {}, runId = crypto.randomUUID()) {
  const rec: ActionRecord = { key: "a/0", jobId: "a", name, status: "running", attempt: 1, config, ...record };
  return { record: rec, action: { name, config: config as Record<string, unknown> }, config, idempotencyKey: `${runId}:${rec.key}:${rec.attempt}` };
}

export interface TestContext extends ActionContext {
  /** Every child run the action handed over, in order. */
  handedOver: { tenantId: string; runId: string }[];
  /** Every `persist` call's detail, in order. */
  persisted: unknown[];
  redactor: Redactor;
}

export interface ContextFields {
  runId?: string;
  tenantId?: string;
  policyId?: string | null;
  now?: () => number;
  /** The env as the run resolved it (secret values in place). */
  env?: Record<string, unknown>;
  context?: Record<string, unknown>;
  auth?: Record<string, AuthProfile>;
  persist?: ActionContext["persist"];
}

/** An action context as the run's object builds it (actions/context.ts), with what it did recorded. */
export function context(database: Database, fields: ContextFields = {}): TestContext {
  const handedOver: { tenantId: string; runId: string }[] = [];
  const persisted: unknown[] = [];
  const redactor = new Redactor();
  const built = actionContext({
    doc: {
      runId: fields.runId ?? crypto.randomUUID(),
      tenantId: fields.tenantId ?? crypto.randomUUID(),
      policyId: fields.policyId ?? null,
      context: fields.context ?? {},
      definition: { auth: fields.auth },
    },
    env: fields.env ?? {},
    bindings: env,
    database,
    now: fields.now ?? (() => 1_700_000_000_000),
    redactor,
    handOver: async (runs) => void handedOver.push(...runs),
    persist: fields.persist ?? (async (detail) => void persisted.push(detail)),
  });
  return { ...built, handedOver, persisted, redactor };
}
