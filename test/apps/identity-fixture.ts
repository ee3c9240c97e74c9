// An app ready to render, for the identity tests, made the way an operator
// makes one: a tenant (as `npm run tenant:create` does: no HTTP route creates
// a tenant), then through the gateway an external company, the spec
// published, its activation (bound to a policy when asked), the integration
// and its app token.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { Database } from "../../src/db/client";
import { resolveRenderIdentity, verifyRenderCredential, type IdentityDeps, type RenderRequest } from "../../src/apps/render/identity";
import type { Provider } from "../../src/apps/render/identity/provider";
import type { RenderIdentity } from "../../src/apps/render/contracts";
import type { OutboundEnv } from "../../src/lib/outbound/types";
import { DurableRateLimits } from "../../src/lib/ratelimit/do-client";
import { createLogger } from "../../src/lib/logger";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createPolicy, type Grant } from "../access/fixture";
import { dashboards, insertSpec, putConfig, registerCompany } from "./fixture";

export interface AppSetup {
  provider?: Provider;
  providerName?: string;
  /** Further providers the spec declares, for integrations of their companies (addIntegration). */
  otherProviders?: Record<string, Provider>;
  companyExternalId?: string;
  policies?: Record<string, unknown>;
  allowedOrigins?: string[];
  /** Grants of a tenant policy the activation is bound to (with `policies`). */
  policyGrants?: Grant[];
  /** The spec's dashboards (default: one empty page). */
  dashboards?: object;
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
  identity: {
    user_external_id: { source: "body", path: "user.id" },
    company_external_id: { source: "body", path: "company" },
    user_email: { source: "body", path: "user.email" },
  },
  ...extra,
});

const tokenPath = (specId: string, integrationId: string) => `/apps/${specId}/integrations/${integrationId}/token`;

/** An integration of the spec's activation for the company, with its first app token minted. */
async function integrate(
  tenant: TenantCreds,
  specId: string,
  companyId: string,
  allowedOrigins: string[] = [],
): Promise<{ integrationId: string; activationId: string; token: string }> {
  const integration = await call("POST", `/apps/${specId}/integrations`, {
    auth: tenant.auth,
    body: { external_company_id: companyId, allowed_origins: allowedOrigins },
  });
  expect(integration.status, integration.text).toBe(201);
  const integrationId = integration.json.data.id as string;
  const minted = await call("PUT", tokenPath(specId, integrationId), { auth: tenant.auth });
  expect(minted.status, minted.text).toBe(201);
  return { integrationId, activationId: integration.json.data.activation_id, token: minted.json.raw_token };
}

/** Rotates the integration's app token: the one it had stops working at once; answers the new one. */
export async function rotateToken(app: App): Promise<string> {
  const rotated = await call("PUT", `${tokenPath(app.specId, app.integrationId)}?rotate=true`, { auth: app.tenant.auth });
  expect(rotated.status, rotated.text).toBe(200);
  return rotated.json.raw_token;
}

export async function setIntegrationEnabled(app: App, isEnabled: boolean): Promise<void> {
  const res = await call("PUT", `/apps/${app.specId}/integrations/${app.integrationId}`, { auth: app.tenant.auth, body: { is_enabled: isEnabled } });
  expect([res.status, res.json?.data?.is_enabled], res.text).toEqual([200, isEnabled]);
}

/** A second integration of the same activation, for a company registered now (its provider one the spec declares). */
export async function addIntegration(
  app: App,
  companyExternalId: string,
  providerName = app.providerName,
): Promise<{ integrationId: string; token: string; companyExternalId: string }> {
  const company = await registerCompany(app.tenant, providerName, companyExternalId);
  const { integrationId, token } = await integrate(app.tenant, app.specId, company.id);
  return { integrationId, token, companyExternalId };
}

export async function setupApp(setup: AppSetup = {}): Promise<App> {
  const tenant = setup.tenant ?? (await createTenant());
  const providerName = setup.providerName ?? "host";
  const company = await registerCompany(tenant, providerName, setup.companyExternalId);
  const document = {
    dashboards: setup.dashboards ?? dashboards,
    providers: { ...setup.otherProviders, [providerName]: setup.provider ?? bearerProvider() },
    ...(setup.policies ? { policies: setup.policies } : {}),
  };
  const spec = await insertSpec(tenant, [document]);
  const policyId = setup.policyGrants ? (await createPolicy(tenant.auth, setup.policyGrants)).id : null;
  const activation = await putConfig(tenant, spec.id, policyId ? { policy_id: policyId } : {});
  expect([activation.status, activation.json?.data?.policy_id], activation.text).toEqual([200, policyId]);
  const { integrationId, activationId, token } = await integrate(tenant, spec.id, company.id, setup.allowedOrigins);
  expect(activationId).toBe(activation.json.data.id);
  return { tenant, specId: spec.id, activationId, integrationId, companyId: company.id, companyExternalId: company.external_id, providerName, policyId, token };
}

/** POST /apps/run/{integrationId} through the gateway with the integration's app token. */
export const run = (integrationId: string, token: string, body: Record<string, unknown>) =>
  call("POST", `/apps/run/${integrationId}`, { auth: `Bearer ${token}`, body });

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
    return await fn({
      database,
      clock: clock ?? { now: () => Date.now() },
      env: env as unknown as OutboundEnv,
      rateLimits: new DurableRateLimits(env.RATE_LIMITER),
      log: createLogger({ test: "identity" }),
    });
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
