// Building an action's invocation and context by hand, as the run's object does.
import { env } from "cloudflare:test";
import type { Database } from "../../src/db/client";
import type { ActionName } from "../../src/definition/language/workflow-schema";
import type { ActionRecord } from "../../src/workflows/engine/types";
import type { ActionContext } from "../../src/workflows/actions/types";
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
  kicked: { tenantId: string; runId: string }[];
}

export function context(database: Database, fields: Partial<ActionContext> & { now?: () => number } = {}): TestContext {
  const kicked: { tenantId: string; runId: string }[] = [];
  return {
    runId: crypto.randomUUID(),
    tenantId: crypto.randomUUID(),
    env,
    database,
    now: () => 1_700_000_000_000,
    policyId: null,
    kick: async (runs) => void kicked.push(...runs),
    ...fields,
    kicked,
  };
}
