// An app ready to render, for the identity tests: a tenant (the way
// `npm run tenant:create` makes one), an external company registered through
// POST /access/external-companies, and the spec, its version, the activation,
// the integration and its app token written as the owning role (the apps
// routes that make them are not on this branch's path to the render).
import { env } from "cloudflare:test";
import { Database } from "../../src/db/client";
import { resolveRenderIdentity, verifyRenderCredential, type IdentityDeps, type RenderRequest } from "../../src/apps/render/identity";
import type { Provider } from "../../src/apps/render/identity/provider";
import type { RenderIdentity } from "../../src/apps/render/contracts";
import { newAppToken } from "../../src/apps/tokens/token-format";
import type { OutboundEnv } from "../../src/lib/outbound/types";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";

export interface AppSetup {
  provider?: Provider;
  providerName?: string;
  companyExternalId?: string;
  policies?: Record<string, unknown>;
  allowedOrigins?: string[];
  /** Grants of the policy the activation binds (with `policies`). */
  policyGrants?: { resource: string; actions: string[]; resource_name?: string }[];
  tenant?: TenantCreds;
}

export interface App {
  tenant: TenantCreds;
  specId: string;
  activationId: string;
  integrationId: string;
  companyId: string;
  companyExternalId: string;
  providerName: string;
  policyId: string | null;
  /** The integration's live app token. */
  token: string;
}

export const bearerProvider = (extra: Partial<Provider> = {}): Provider => ({
  auth: { type: "bearer" },
  autoCreateUsers: true,
  identity: { user_external_id: { source: "body", path: "user.id" }, company_external_id: { source: "body", path: "company" }, user_email: { source: "body", path: "user.email" } },
  ...extra,
});


/** A live app token of `integrationId` (the old one stays live unless revoked). */
export async function insertToken(tenantId: string, integrationId: string, revoked = false): Promise<string> {
  const { raw, hash } = await newAppToken();
  await systemQuery(`INSERT INTO app_tokens (tenant_id, integration_id, token_hash, revoked_at) VALUES ($1, $2, $3, ${revoked ? "now()" : "NULL"})`, [tenantId, integrationId, hash]);
  return raw;
}

/** A second integration of the same activation, for a company registered now. */
export async function addIntegration(app: App, companyExternalId: string, providerName = app.providerName): Promise<{ integrationId: string; token: string }> {
  const company = await call("POST", "/access/external-companies", { auth: app.tenant.auth, body: { provider: providerName, external_id: companyExternalId } });
  if (company.status !== 201) throw new Error(`company: ${company.status} ${company.text}`);
  const [row] = await systemQuery(`INSERT INTO app_integrations (tenant_id, activation_id, external_company_id) VALUES ($1, $2, $3) RETURNING id`, [app.tenant.tenantId, app.activationId, company.json.data.id]);
  return { integrationId: row.id, token: await insertToken(app.tenant.tenantId, row.id) };
}

export async function setupApp(setup: AppSetup = {}): Promise<App> {
  const tenant = setup.tenant ?? (await createTenant());
  const providerName = setup.providerName ?? "host";
  const companyExternalId = setup.companyExternalId ?? `co-${crypto.randomUUID().slice(0, 8)}`;
  const company = await call("POST", "/access/external-companies", { auth: tenant.auth, body: { provider: providerName, external_id: companyExternalId } });
  if (company.status !== 201) throw new Error(`company: ${company.status} ${company.text}`);
  const document = {
    dashboards: { main: { name: "Main", surfaces: { dashboard: "home" }, pages: { home: { layout: [] } } } },
    providers: { [providerName]: setup.provider ?? bearerProvider() },
    ...(setup.policies ? { policies: setup.policies } : {}),
  };
  const [spec] = await systemQuery(`INSERT INTO app_specs (tenant_id, name, version, spec_document) VALUES ($1, $2, 1, $3) RETURNING id`, [tenant.tenantId, `spec-${crypto.randomUUID().slice(0, 8)}`, JSON.stringify(document)]);
  await systemQuery(`INSERT INTO app_spec_versions (tenant_id, spec_id, version, spec_document) VALUES ($1, $2, 1, $3)`, [tenant.tenantId, spec.id, JSON.stringify(document)]);
  let policyId: string | null = null;
  if (setup.policyGrants) {
    const [policy] = await systemQuery(`INSERT INTO policies (tenant_id, name) VALUES ($1, $2) RETURNING id`, [tenant.tenantId, `app-policy-${crypto.randomUUID().slice(0, 8)}`]);
    policyId = policy.id;
    for (const g of setup.policyGrants) {
      await systemQuery(`INSERT INTO grants (tenant_id, policy_id, resource, actions, resource_name) VALUES ($1, $2, $3, $4, $5)`, [tenant.tenantId, policyId, g.resource, g.actions, g.resource_name ?? null]);
    }
  }
  const [activation] = await systemQuery(`INSERT INTO app_activations (tenant_id, spec_id, policy_id) VALUES ($1, $2, $3) RETURNING id`, [tenant.tenantId, spec.id, policyId]);
  const [integration] = await systemQuery(`INSERT INTO app_integrations (tenant_id, activation_id, external_company_id, allowed_origins) VALUES ($1, $2, $3, $4) RETURNING id`, [
    tenant.tenantId,
    activation.id,
    company.json.data.id,
    setup.allowedOrigins ?? [],
  ]);
  return {
    tenant,
    specId: spec.id,
    activationId: activation.id,
    integrationId: integration.id,
    companyId: company.json.data.id,
    companyExternalId,
    providerName,
    policyId,
    token: await insertToken(tenant.tenantId, integration.id),
  };
}

/** A clock the test moves. */
export function testClock(start = Date.now()) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

export interface RenderCall {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  clock?: { now(): number };
}

async function withDeps<T>(clock: { now(): number } | undefined, fn: (deps: IdentityDeps) => Promise<T>): Promise<T> {
  const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  try {
    return await fn({ database, clock: clock ?? { now: () => Date.now() }, env: env as unknown as OutboundEnv });
  } finally {
    await database.close();
  }
}

const requestOf = (r: RenderCall): RenderRequest => ({ headers: new Headers(r.headers), query: new URLSearchParams(r.query), body: r.body ?? {} });

/** resolveRenderIdentity for one request, as the render route will call it. */
export function resolve(integrationId: string, r: RenderCall = {}): Promise<RenderIdentity> {
  return withDeps(r.clock, (deps) => resolveRenderIdentity(deps, integrationId, requestOf(r)));
}

/** Only the credential step. */
export function verify(integrationId: string, r: RenderCall = {}) {
  return withDeps(r.clock, (deps) => verifyRenderCredential(deps, integrationId, new Headers(r.headers)));
}

/** The error envelope parts a refused resolution throws, or a failure when it resolves. */
export async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string; message: string; details: Record<string, unknown> }> {
  const outcome = await p.then(
    (value) => ({ resolved: value }),
    (e: unknown) => ({ error: e }),
  );
  if ("resolved" in outcome) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.resolved)}`);
  const e = outcome.error as { status?: number; code?: string; message: string; details?: Record<string, unknown> };
  if (typeof e.status !== "number") throw e;
  return { status: e.status, code: e.code!, message: e.message, details: e.details ?? {} };
}
