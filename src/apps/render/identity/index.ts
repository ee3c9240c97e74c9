// Who a render acts for (docs/apps.md, "Who a render acts for"): the host's
// credential checked against the integration the path names, the identity
// its provider's extractors read, the company it must belong to, the tenant
// user it maps to (provisioned when the provider allows), and what that
// user may do.
//
// Two steps, because the credential is checked before the body is read (a
// route's auth strategy, gateway/route-auth.ts) and identity needs the body:
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
import type { Notification, RenderIdentity } from "../contracts";
import { isUuid } from "../../../lib/ids";
import { APP_TOKEN } from "../../tokens/token-format";
import { appUserPrincipal } from "./app-principal";
import { appTokenHash, verifyAppToken } from "./app-token";
import { confirmIdentity, StaleIdentity, targets, userKey, users, type CachedUser } from "./cache";
import type { IdentityGuard } from "../contracts";
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
export { confirmIdentity, StaleIdentity } from "./cache";

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
  /** What the render must find still true before it counts, when the target came from the isolate's cache (cache.ts). */
  guard?: IdentityGuard;
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
export async function verifyRenderCredential(deps: IdentityDeps, integrationId: string, headers: Headers, useCache = true): Promise<VerifiedRender> {
  try {
    return await verifiedCredential(deps, integrationId, headers, useCache);
  } catch (e) {
    if (e instanceof CredentialRefused) deps.log.warn("render credential refused", { integration: integrationId, reason: e.reason });
    throw e;
  }
}

/** An app token in `Authorization`, where a bearer provider reads it unless it names another header. */
function authorizationAppToken(headers: Headers): string | undefined {
  const token = headers
    .get("Authorization")
    ?.trim()
    .match(/^bearer\s+(\S+)$/i)?.[1];
  return token && APP_TOKEN.test(token) ? token : undefined;
}

async function verifiedCredential(deps: IdentityDeps, integrationId: string, headers: Headers, useCache: boolean): Promise<VerifiedRender> {
  const now = deps.clock.now();
  const cached = useCache ? targets.get(integrationId, now) : undefined;
  if (cached) {
    // An app token's lookup is left to the guard; a refusal is never answered from the cache.
    let tokenHash: string | undefined;
    const verified = await checkedCredential(deps, cached, headers, async (raw) => void (tokenHash = await appTokenHash(raw))).catch(() => undefined);
    if (verified) return { ...verified, guard: { integrationId: cached.integrationId, tenantId: cached.tenantId, versions: cached.versions, tokenHash } };
    targets.delete(integrationId);
  }
  const lookups = deps.database.readWave().lookup();
  // An app token in Authorization is checked in the target's request, on the guess that the provider reads it there, which the target then confirms.
  const guessed = isUuid(integrationId) ? authorizationAppToken(headers) : undefined;
  const guessedCheck = guessed ? appTokenHash(guessed).then((hash) => verifyAppToken(lookups, integrationId, hash)) : undefined;
  guessedCheck?.catch(() => {});
  const target = await loadTarget(lookups, integrationId);
  const verified = await checkedCredential(deps, target, headers, async (raw) =>
    raw === guessed && guessedCheck ? guessedCheck : verifyAppToken(lookups, integrationId, await appTokenHash(raw)),
  );
  // A spec the tenant no longer sees answers 404 before any guard could be read: such a target is not kept.
  if (verified.target.specVisible) targets.set(integrationId, verified.target, now);
  return verified;
}

/** `target`'s credential checked, `appToken` checking a bearer provider's. */
async function checkedCredential(
  deps: IdentityDeps,
  target: RenderTarget | undefined,
  headers: Headers,
  appToken: (raw: string) => Promise<void>,
): Promise<VerifiedRender> {
  // An unknown integration, or one whose spec version no longer declares its
  // provider, is refused as a wrong credential is (refusal.ts).
  const provider = target?.provider;
  if (!target || !provider) throw refused(target ? "the spec version in use declares no such provider" : "unknown integration");
  const credential = presentedCredential(headers, provider.auth);
  const keys = { env: deps.env, rateLimits: deps.rateLimits, integrationId: target.integrationId, now: deps.clock.now() };
  let claims: Claims | undefined;
  switch (provider.auth.type) {
    case "bearer":
      await appToken(credential);
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
  const key = userKey(target, userExternalId);
  const now = deps.clock.now();
  const cached = verified.guard ? users.get(key, now) : undefined;
  let user: CachedUser & { notifications?: Notification[] };
  let guard = verified.guard;
  if (cached) {
    user = cached;
    const mapping = { provider: target.providerName, companyExternalId: target.companyExternalId, externalId: userExternalId };
    guard = { ...guard!, user: { key, ...mapping, userId: cached.userId, accessVersion: cached.principal.accessVersion } };
  } else {
    // Nothing is provisioned for a target not proved current.
    if (guard) await confirmIdentity(deps.database.readWave().lookup(), guard);
    guard = undefined;
    const reads = deps.database.readWave().tenant(target.tenantId);
    const resolved = resolveAppUser(tenantDb(deps.database, target.tenantId), target, target.provider, personOf(identity, userExternalId), reads);
    let principal = await appUserPrincipal(
      reads,
      target,
      resolved.then((found) => found.userId),
    );
    const { userId, notifications, wrote } = await resolved;
    // A user created (or a mapping bound) moved the access version the principal was read at: read it again after, so the entry holds.
    if (wrote) principal = await appUserPrincipal(reads, target, Promise.resolve(userId));
    user = { userId, notifications, principal };
    users.set(key, { userId, principal }, now);
  }
  return {
    tenantId: target.tenantId,
    integrationId: target.integrationId,
    activationId: target.activationId,
    specId: target.specId,
    specVersion: target.specVersion,
    provider: target.providerName,
    externalCompanyId: target.externalCompanyId,
    companyExternalId,
    userId: user.userId,
    identity,
    principal: user.principal,
    notifications: user.notifications,
    guard,
  };
}

/**
 * The whole of it for one request: credential, then identity, with a cached
 * identity's guard read at once (a render reads it in its first wave instead).
 */
export async function resolveRenderIdentity(deps: IdentityDeps, integrationId: string, request: RenderRequest): Promise<RenderIdentity> {
  try {
    const identity = await identifyRenderUser(deps, await verifyRenderCredential(deps, integrationId, request.headers), request);
    if (identity.guard) await confirmIdentity(deps.database.readWave().lookup(), identity.guard);
    return { ...identity, guard: undefined };
  } catch (e) {
    if (!(e instanceof StaleIdentity)) throw e;
    return identifyRenderUser(deps, await verifyRenderCredential(deps, integrationId, request.headers, false), request);
  }
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
