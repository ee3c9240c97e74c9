// /apps/*: activation and config scopes, integrations, principals (docs/api.md, Apps).
import type { Context } from "hono";
import type { HonoEnv } from "../gateway/env";
import { tenantDb } from "../db/client";
import { route } from "../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery, uuidSchema } from "../lib/schemas";
import { pageOf } from "../lib/pagination";
import { getAppConfig, putAppConfig } from "./activation";
import { createIntegration, getIntegration, listIntegrations, updateIntegration } from "./integrations";
import { getPrincipal, putPrincipal } from "./principals";
import { mintAppToken } from "./tokens/store";
import type { AppDeps } from "./spec";
import type { ConfigObject } from "./config/merge";
import {
  activationItem,
  configBody,
  integrationChange,
  integrationCreate,
  integrationItem,
  integrationParams,
  principalBody,
  principalItem,
  principalParams,
  principalQuery,
  specParams,
} from "./schemas";

/**
 * A shared spec's schema names and bound jobs resolve in its owner's tenant:
 * a handle confined to that tenant by row-level security, as the caller's is.
 */
function deps(c: Context<HonoEnv>): AppDeps {
  const ctx = c.var.ctx;
  return {
    tenant: ctx.tenant,
    caller: ctx.principal,
    ownerTenant: (tenantId) => (tenantId === ctx.tenant.tenantId ? ctx.tenant : tenantDb(ctx.database, tenantId)),
  };
}

const tokenItem = {
  type: "object",
  required: ["id", "integration_id", "created_at"],
  properties: { id: uuidSchema, integration_id: uuidSchema, created_at: { type: "string", format: "date-time" } },
} as const;

const minted = {
  ...dataEnvelope(tokenItem),
  required: ["data", "raw_token"],
  properties: {
    ...dataEnvelope(tokenItem).properties,
    raw_token: {
      type: "string",
      pattern: "^svc_at_[0-9a-f]{64}$",
      description: "The token itself, shown only in this answer",
      examples: [`svc_at_${"0123456789abcdef".repeat(4)}`],
    },
  },
} as const;

const scopeRefusal = {
  description:
    "The config fails its scope's schema, overrides an x-immutable value, or names an unknown version, job or policy (details.scope names the config scope)",
};

export const appRoutes = [
  route({
    operation: "getAppConfig",
    method: "get",
    path: "/apps/:specId/config",
    tag: "apps",
    summary: "The tenant's activation of the spec: the app config scope (stored and effective), policy, pinned version, job bindings",
    permission: ["app", "read"],
    params: specParams,
    responses: { 200: { description: "The activation", schema: dataEnvelope(activationItem) }, 404: { description: "Unknown spec, or not activated yet" } },
    handler: async (c, { params }) => c.json({ data: await getAppConfig(deps(c), params.specId) }),
  }),
  route({
    operation: "putAppConfig",
    method: "put",
    path: "/apps/:specId/config",
    tag: "apps",
    summary:
      "Upsert the tenant's activation of a spec (its own or shared to it): merge the app config, pin a version, bind jobs and the policy; reconciles the spec's provisioned policies",
    permission: ["app", "update"],
    params: specParams,
    bodyOptional: true,
    body: configBody,
    responses: {
      200: { description: "The activation as written (also for the first write)", schema: dataEnvelope(activationItem) },
      403: { description: "Missing app:create (first write) or app:update on the activation, or a permission the provisioned policies would give" },
      404: { description: "A spec the tenant neither owns nor has been shared" },
      409: { description: "A concurrent change left the write inapplicable" },
      422: scopeRefusal,
    },
    handler: async (c, { params, body }) => c.json({ data: await putAppConfig(deps(c), params.specId, body) }),
  }),
  route({
    operation: "createAppIntegration",
    method: "post",
    path: "/apps/:specId/integrations",
    tag: "apps",
    summary: "Tie a registered external company (whose provider the spec declares) to the activation",
    permission: ["app", "create"],
    params: specParams,
    body: integrationCreate,
    responses: {
      201: { description: "The integration", schema: dataEnvelope(integrationItem) },
      404: { description: "Unknown spec, or not activated" },
      422: { description: "Unknown external company, a provider the spec lacks, a bad origin, or a config refused by the integration scope" },
    },
    handler: async (c, { params, body }) => c.json({ data: await createIntegration(deps(c), params.specId, body) }, 201),
  }),
  route({
    operation: "listAppIntegrations",
    method: "get",
    path: "/apps/:specId/integrations",
    tag: "apps",
    summary: "The activation's integrations, newest first",
    permission: ["app", "read"],
    params: specParams,
    query: { type: "object", additionalProperties: false, properties: paginationQuery },
    responses: { 200: { description: "Integrations", schema: listEnvelope(integrationItem) }, 404: { description: "Unknown spec, or not activated" } },
    handler: async (c, { params, query }) => c.json(await listIntegrations(deps(c), params.specId, pageOf(query))),
  }),
  route({
    operation: "getAppIntegration",
    method: "get",
    path: "/apps/:specId/integrations/:integrationId",
    tag: "apps",
    summary: "One integration of the activation",
    permission: ["app", "read"],
    params: integrationParams,
    responses: { 200: { description: "The integration", schema: dataEnvelope(integrationItem) }, 404: { description: "Unknown spec or integration" } },
    handler: async (c, { params }) => c.json({ data: await getIntegration(deps(c), params.specId, params.integrationId) }),
  }),
  route({
    operation: "updateAppIntegration",
    method: "put",
    path: "/apps/:specId/integrations/:integrationId",
    tag: "apps",
    summary: "Change an integration: config merged; name, allowed_origins, is_enabled and job_bindings replaced when sent",
    permission: ["app", "update"],
    params: integrationParams,
    body: integrationChange,
    responses: {
      200: { description: "The integration as changed", schema: dataEnvelope(integrationItem) },
      404: { description: "Unknown spec or integration" },
      409: { description: "A concurrent change left the write inapplicable" },
      422: scopeRefusal,
    },
    handler: async (c, { params, body }) => c.json({ data: await updateIntegration(deps(c), params.specId, params.integrationId, body) }),
  }),
  route({
    operation: "getAppPrincipalConfig",
    method: "get",
    path: "/apps/:specId/principals/:type/:principalId",
    tag: "apps",
    summary: "A principal's config of the activation (`self`: the caller's own user, which needs no permission; others need app:read on the activation)",
    params: principalParams,
    query: principalQuery,
    responses: {
      200: { description: "The principal's config", schema: dataEnvelope(principalItem) },
      404: { description: "Unknown spec, not activated, or nothing written for the principal yet" },
      422: { description: "An unknown user or company, or an ambiguous provider" },
    },
    handler: async (c, { params, query }) => c.json({ data: await getPrincipal(deps(c), params.specId, params.type, params.principalId, query?.provider) }),
  }),
  route({
    operation: "putAppPrincipalConfig",
    method: "put",
    path: "/apps/:specId/principals/:type/:principalId",
    tag: "apps",
    summary: "Merge a principal's config (`self`: the caller's own user, which needs no permission; others need app:update on the activation)",
    params: principalParams,
    query: principalQuery,
    body: principalBody,
    responses: {
      200: { description: "The principal's config as written", schema: dataEnvelope(principalItem) },
      403: { description: "Another principal than the caller's own user, without app:update on the activation" },
      404: { description: "Unknown spec, or not activated" },
      409: { description: "A concurrent change left the write inapplicable" },
      422: scopeRefusal,
    },
    handler: async (c, { params, query, body }) =>
      c.json({ data: await putPrincipal(deps(c), params.specId, params.type, params.principalId, query?.provider, body.config as ConfigObject) }),
  }),
  route({
    operation: "mintAppToken",
    method: "put",
    path: "/apps/:specId/integrations/:integrationId/token",
    tag: "apps",
    summary: "Mint the integration's app token (svc_at_<64 hex>, shown once); ?rotate=true replaces a live one, which stops working at once",
    permission: ["app", "update"],
    params: integrationParams,
    query: { type: "object", additionalProperties: false, properties: { rotate: { type: "boolean", default: false } } } as const,
    responses: {
      201: { description: "Minted: the first live token of the integration", schema: minted },
      200: { description: "Rotated: the old token is revoked, this one replaces it", schema: minted },
      404: { description: "No such integration of this spec's activation in the caller's tenant" },
      409: { description: "The integration has a live token and rotate is not true; nothing changed" },
    },
    handler: async (c, { params, query }) => {
      const { token, raw, rotated } = await mintAppToken(deps(c), params.specId, params.integrationId, query?.rotate === true);
      return c.json({ data: token, raw_token: raw }, rotated ? 200 : 201);
    },
  }),
];
