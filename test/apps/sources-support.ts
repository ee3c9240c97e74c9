// Building the data sources of one page by hand, as the renderer does: the
// app user's services (a policy's principal in a real tenant), the render's
// budget and deadline, and the notifications and masking collected.
import { env } from "cloudflare:test";
import { confinedServices } from "../../src/access/confined-services";
import { policyPrincipal } from "../../src/access/policy-principal";
import { Database, tenantDb } from "../../src/db/client";
import type { Notification, PageSources, SourceEnvironment } from "../../src/apps/render/contracts";
import { pageSources } from "../../src/apps/render/sources";
import { Redactor } from "../../src/lib/redact";
import { EvaluationBudget } from "../../src/lib/smart-values";
import type { TenantCreds } from "../support/api";
import { policyGranting } from "../workflows/actions-support";

export interface Harness {
  sources: PageSources;
  notifications: Notification[];
  secrets: Redactor;
  budget: EvaluationBudget;
}

export interface HarnessOptions {
  /** `resource:action` strings the app user holds (a policy made through the API). */
  permissions?: string[];
  budget?: EvaluationBudget;
  /** Epoch ms; far away by default. */
  deadline?: number;
  authProfiles?: Record<string, unknown>;
  functions?: Record<string, string>;
  /** Secret values the render context carries. */
  secrets?: string[];
  grids?: Record<string, string>;
}

const databases: Database[] = [];

/** The app user's services in `t`: exactly the grants of a policy holding `permissions`. */
export async function servicesFor(t: TenantCreds, permissions: string[]) {
  const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  databases.push(database);
  const policyId = await policyGranting(t, permissions);
  const tenant = tenantDb(database, t.tenantId);
  const principal = await tenant.tx((sql) => policyPrincipal(sql, policyId));
  return confinedServices(principal, tenant, env, "app");
}

export async function closeDatabases(): Promise<void> {
  await Promise.all(databases.splice(0).map((d) => d.close()));
}

export async function harness(t: TenantCreds, dataSources: Record<string, unknown>, options: HarnessOptions = {}): Promise<Harness> {
  const notifications: Notification[] = [];
  const secrets = new Redactor(options.secrets ?? []);
  const budget = options.budget ?? new EvaluationBudget();
  const environment: SourceEnvironment = {
    services: await servicesFor(t, options.permissions ?? ["entity:read", "entity_type:read", "schema:read"]),
    budget,
    deadline: options.deadline ?? Date.now() + 60_000,
    functions: options.functions ?? {},
    authProfiles: options.authProfiles ?? {},
    notify: (n) => void notifications.push(n),
    bindings: env,
    secrets,
  };
  return { sources: pageSources(dataSources, environment, options.grids), notifications, secrets, budget };
}

/** The render context a page's sources resolve against. */
export function pageScope(fields: { params?: Record<string, unknown>; widgets?: Record<string, unknown>; config?: Record<string, unknown> } = {}) {
  return {
    config: { app: {}, integration: {}, company: {}, team: {}, user: {}, ...fields.config },
    secretsSet: { tenant: [], user: [], company: [], team: [] },
    permissions: [],
    context: {},
    identity: {},
    provider: { provider: "host", identity: {} },
    page: { key: "home", params: fields.params ?? {}, data: {}, widgets: fields.widgets ?? {} },
  };
}
