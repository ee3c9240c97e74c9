// /access/external-companies and /access/external-users: identities as an
// external identity provider names them (docs/api.md, Access). Deactivation is
// stored and answered; the app sessions it will end do not exist yet.
import type { Context } from "hono";
import type { FromSchema } from "json-schema-to-ts";
import type { HonoEnv } from "../../gateway/env";
import { readJson } from "../../lib/body";
import { route } from "../../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { validate, validationFailed } from "../../lib/validate";
import { createCompany, getCompany, listCompanies, updateCompany } from "./companies";
import { createExternalUser, getExternalUser, listExternalUsers, updateExternalUser } from "./users";
import {
  provider,
  externalId,
  companyItem,
  externalUserItem,
  companyChange,
  externalUserChange,
  COMPANY_IDENTITY,
  EXTERNAL_USER_IDENTITY,
  byId,
  companyBody,
  externalUserBody,
} from "./schemas";

/**
 * A change body, read by the handler so that naming the identity fields says
 * why they are refused (a mapping's identity is what it is looked up by).
 */
async function changeBody<T>(c: Context<HonoEnv>, schema: object, identity: readonly string[]): Promise<T> {
  const raw = await readJson(c);
  const named = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? identity.filter((k) => k in raw) : [];
  if (named.length)
    throw validationFailed(
      named.map((k) => `${k}: cannot be changed`),
      `${named.join(" and ")} cannot be changed`,
    );
  return validate<T>(schema, raw);
}

export const externalRoutes = [
  route({
    operation: "createExternalCompany",
    method: "post",
    path: "/access/external-companies",
    tag: "access",
    summary: "Register an external company",
    permission: ["access", "create"],
    idempotent: true,
    body: companyBody,
    responses: {
      201: { description: "Created", schema: dataEnvelope(companyItem) },
      409: { description: "This provider's external_id is already registered" },
    },
    handler: async (c, { body }) => c.json({ data: await createCompany(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listExternalCompanies",
    method: "get",
    path: "/access/external-companies",
    tag: "access",
    summary: "List external companies",
    permission: ["access", "read"],
    query: { type: "object", additionalProperties: false, properties: { provider, external_id: externalId, ...paginationQuery } },
    responses: { 200: { description: "External companies, newest first", schema: listEnvelope(companyItem) } },
    handler: async (c, { query }) => c.json(await listCompanies(c.var.ctx.tenant, query, pageOf(query))),
  }),
  route({
    operation: "getExternalCompany",
    method: "get",
    path: "/access/external-companies/:id",
    tag: "access",
    summary: "Get an external company",
    permission: ["access", "read"],
    params: byId,
    responses: { 200: { description: "The company", schema: dataEnvelope(companyItem) }, 404: { description: "No such company" } },
    handler: async (c, { params }) => c.json({ data: await getCompany(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "replaceExternalCompany",
    method: "put",
    path: "/access/external-companies/:id",
    tag: "access",
    summary: "Change an external company's name, metadata or is_active (provider and external_id cannot change)",
    permission: ["access", "update"],
    params: byId,
    documentedBody: companyChange,
    responses: { 200: { description: "The company as changed", schema: dataEnvelope(companyItem) }, 404: { description: "No such company" } },
    handler: async (c, { params }) => {
      const change = await changeBody<FromSchema<typeof companyChange>>(c, companyChange, COMPANY_IDENTITY);
      return c.json({ data: await updateCompany(c.var.ctx.tenant, params.id, change) });
    },
  }),
  route({
    operation: "createExternalUser",
    method: "post",
    path: "/access/external-users",
    tag: "access",
    summary: "Map an external user to a tenant user (creating it, or linking one by email)",
    permission: ["access", "create"],
    body: externalUserBody,
    responses: {
      201: { description: "Created (and the tenant user, unless one was linked)", schema: dataEnvelope(externalUserItem) },
      200: {
        description: "This provider's external_id is already mapped, for this company (or unbound, without one), and active: the existing mapping",
        schema: dataEnvelope(externalUserItem),
      },
      409: { description: "EMAIL_LINK_REFUSED or EXTERNAL_USER_INACTIVE" },
      422: { description: "Invalid body, or no company company_external_id of this provider is registered in this tenant" },
    },
    handler: async (c, { body }) => {
      const { row, created } = await createExternalUser(c.var.ctx.tenant, body);
      return c.json({ data: row }, created ? 201 : 200);
    },
  }),
  route({
    operation: "listExternalUsers",
    method: "get",
    path: "/access/external-users",
    tag: "access",
    summary: "List external users",
    permission: ["access", "read"],
    query: {
      type: "object",
      additionalProperties: false,
      properties: {
        provider,
        external_id: externalId,
        company_external_id: externalId,
        email: { type: "string", minLength: 1, maxLength: 320 },
        ...paginationQuery,
      },
    },
    responses: { 200: { description: "External users, newest first", schema: listEnvelope(externalUserItem) } },
    handler: async (c, { query }) => c.json(await listExternalUsers(c.var.ctx.tenant, query, pageOf(query))),
  }),
  route({
    operation: "getExternalUser",
    method: "get",
    path: "/access/external-users/:id",
    tag: "access",
    summary: "Get an external user",
    permission: ["access", "read"],
    params: byId,
    responses: { 200: { description: "The external user", schema: dataEnvelope(externalUserItem) }, 404: { description: "No such external user" } },
    handler: async (c, { params }) => c.json({ data: await getExternalUser(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "replaceExternalUser",
    method: "put",
    path: "/access/external-users/:id",
    tag: "access",
    summary: "Change an external user's email or is_active (provider, external_id and company_external_id cannot change)",
    permission: ["access", "update"],
    params: byId,
    documentedBody: externalUserChange,
    responses: {
      200: { description: "The external user as changed", schema: dataEnvelope(externalUserItem) },
      404: { description: "No such external user" },
      409: { description: "EMAIL_LINK_REFUSED: another tenant user holds the email" },
    },
    handler: async (c, { params }) => {
      const change = await changeBody<FromSchema<typeof externalUserChange>>(c, externalUserChange, EXTERNAL_USER_IDENTITY);
      return c.json({ data: await updateExternalUser(c.var.ctx.tenant, params.id, change) });
    },
  }),
];
