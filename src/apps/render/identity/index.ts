// Who a render acts for (docs/apps.md, "Who a render acts for"): the host's
// credential checked against the integration the path names, the identity
// its provider's extractors read, the company it must belong to, the tenant
// user it maps to (provisioned when the provider allows), and what that
// user may do.
//
// Two steps, because the credential is checked before the body is read (a
// route's auth strategy, lib/route-auth.ts) and identity needs the body:
// `verifyRenderCredential` (the `renderHost` strategy runs it), then
// `identifyRenderUser`. `resolveRenderIdentity` runs both.
import type { Database } from "../../../db/client";
import { tenantDb } from "../../../db/client";
import type { Clock } from "../../../lib/clock";
import type { Logger } from "../../../lib/logger";
import { ApiError } from "../../../lib/errors";
import type { AuthStrategy } from "../../../gateway/route-auth";
import type { OutboundEnv } from "../../../lib/outbound/types";
import type { RateLimits } from "../../../lib/ratelimit/interface";
import type { RenderIdentity } from "../contracts";
import { appUserPrincipal } from "./app-principal";
import { verifyAppToken } from "./app-token";
import { personOf, resolveAppUser } from "./app-user";
import { presentedCredential } from "./credential";
import { verifyExchange } from "./exchange";
import { extractIdentity, type IdentitySource } from "./extractors";
import { verifyOidc } from "./oidc";
import { checkOrigin } from "./origin";
import type { Provider } from "./provider";
import { CredentialRefused, refused, unauthorized } from "./refusal";
import { loadTarget, type RenderTarget } from "./target";
import type { Claims } from "./token-checks";

export { appUserIdentity } from "./app-principal";
export { checkOrigin } from "./origin";
export { RESERVED_BODY_KEYS } from "./extractors";
export type { RenderTarget } from "./target";

/** What identity resolution reaches the world with; a RequestContext is one. */
export interface IdentityDeps {
  database: Database;
  clock: Clock;
  /** The outbound client's bindings (JWKS and metadata documents are fetched through it). */
  env: OutboundEnv;
  /** Where each integration's key-document fetch budget is kept (key-documents.ts). */
  rateLimits: RateLimits;
  /** Where a refused credential's reason goes: the operator's to read, never the caller's. */
  log: Logger;
}

/** A render whose credential checked out: its target, and the verified claims of an identity token. */
export interface VerifiedRender {
  target: RenderTarget & { provider: Provider };
  /** The identity token's verified claims (oidc, exchange); undefined for an app token. */
  claims?: Claims;
}

/** The request as identity reads it. */
export interface RenderRequest {
  headers: Headers;
  query: URLSearchParams;
  /** The posted JSON object; its reserved keys (`state`, `action`, `context`) are never read as identity. */
  body: Record<string, unknown>;
}

/**
 * The credential of a render for `integrationId`: 401 unless it is the
 * integration's live app token (bearer) or an identity token its provider
 * verifies (oidc, exchange), the one refusal until a signature checks out
 * (refusal.ts); then 403 for a disabled integration, an inactive company or
 * an Origin the integration does not list.
 */
export async function verifyRenderCredential(deps: IdentityDeps, integrationId: string, headers: Headers): Promise<VerifiedRender> {
  try {
    return await verifiedCredential(deps, integrationId, headers);
  } catch (e) {
    if (e instanceof CredentialRefused) deps.log.warn("render credential refused", { integration: integrationId, reason: e.reason });
    throw e;
  }
}

async function verifiedCredential(deps: IdentityDeps, integrationId: string, headers: Headers): Promise<VerifiedRender> {
  const target = await loadTarget(deps.database, integrationId);
  // An unknown integration, or one whose spec version no longer declares its
  // provider, is refused as a wrong credential is (refusal.ts).
  const provider = target?.provider;
  if (!target || !provider) throw refused(target ? "the spec version in use declares no such provider" : "unknown integration");
  const credential = presentedCredential(headers, provider.auth);
  const keys = { env: deps.env, rateLimits: deps.rateLimits, integrationId: target.integrationId, now: deps.clock.now() };
  let claims: Claims | undefined;
  switch (provider.auth.type) {
    case "bearer":
      await verifyAppToken(deps.database, target.integrationId, credential);
      break;
    case "oidc":
      claims = await verifyOidc(credential, provider.auth, keys);
      break;
    case "exchange":
      claims = await verifyExchange(credential, provider.auth, keys);
      break;
    default:
      throw refused("unknown provider auth type");
  }
  if (!target.isEnabled) throw new ApiError("FORBIDDEN", `Integration ${target.integrationId} is disabled`);
  if (!target.companyActive) throw new ApiError("FORBIDDEN", `External company ${target.companyExternalId} of the integration is inactive`);
  checkOrigin(target, headers.get("Origin"));
  return { target: { ...target, provider }, claims };
}

/** An identity value usable as an external id: a non-empty string (a number is read as its digits), at most 500 characters. */
function externalIdOf(value: unknown): string | undefined {
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  return typeof text === "string" && text !== "" && text.length <= 500 ? text : undefined;
}

/**
 * The app user of a verified render: its identity keys, its company (403
 * unless it is the integration's), the tenant user it maps to (403 for an
 * inactive or unprovisioned one) and that user's principal.
 */
export async function identifyRenderUser(deps: IdentityDeps, verified: VerifiedRender, request: RenderRequest): Promise<RenderIdentity> {
  const { target, claims } = verified;
  const source: IdentitySource = claims ? { kind: "claims", claims } : { kind: "request", ...request };
  const identity = await extractIdentity(target.provider, source);
  const userExternalId = externalIdOf(identity.user_external_id);
  if (!userExternalId) throw unauthorized("The request names no user: the provider's user_external_id extractor found no value");
  const declaresCompany = Object.hasOwn(target.provider.identity ?? {}, "company_external_id");
  // An identity-token provider without a company extractor speaks for the integration's company.
  const companyExternalId = declaresCompany || !claims ? externalIdOf(identity.company_external_id) : target.companyExternalId;
  if (!companyExternalId) throw unauthorized("The request names no company: the provider's company_external_id extractor found no value");
  if (companyExternalId !== target.companyExternalId) {
    throw new ApiError("FORBIDDEN", `The request's company ${companyExternalId} is not the integration's company`, { company_external_id: companyExternalId });
  }
  const tenant = tenantDb(deps.database, target.tenantId);
  const { userId, notifications } = await resolveAppUser(tenant, target, target.provider, personOf(identity, userExternalId));
  return {
    tenantId: target.tenantId,
    integrationId: target.integrationId,
    activationId: target.activationId,
    specId: target.specId,
    specVersion: target.specVersion,
    provider: target.providerName,
    externalCompanyId: target.externalCompanyId,
    companyExternalId,
    userId,
    identity,
    principal: await appUserPrincipal(tenant, target, userId),
    notifications,
  };
}

/** The whole of it for one request: credential, then identity. */
export async function resolveRenderIdentity(deps: IdentityDeps, integrationId: string, request: RenderRequest): Promise<RenderIdentity> {
  return identifyRenderUser(deps, await verifyRenderCredential(deps, integrationId, request.headers), request);
}

/**
 * The route strategy of `POST /apps/run/{param}`: the credential checked
 * before the body is read, the request bound to the integration's tenant.
 * The handler then calls `identifyRenderUser` with the body.
 */
export function renderHost(param: string): AuthStrategy<VerifiedRender> {
  return {
    scheme: "appHost",
    authenticate: async (c, { params }) => {
      const verified = await verifyRenderCredential(c.var.ctx, params[param], c.req.raw.headers);
      c.set("ctx", c.var.ctx.forTenant(verified.target.tenantId));
      return verified;
    },
  };
}
