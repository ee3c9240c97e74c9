// /access/*: API tokens, roles, the caller's permissions.
import { route, type RouteSpec } from "../lib/route";
import { dataEnvelope, listEnvelope, paginationQuery, uuidSchema } from "../lib/schemas";
import { pageOf } from "../lib/pagination";
import { listTokens, mintToken, revokeToken } from "./api-tokens";
import { createRole, listRoles } from "./roles";

const PERMISSION = "^(\\*|[a-z][a-z_]*):(\\*|[a-z][a-z_]*)$";

const mintTokenBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    expires_at: { type: "string", format: "date-time" },
    role_names: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true, maxItems: 50 },
  },
} as const;

const mintedToken = {
  type: "object",
  required: ["id", "name", "client_id", "client_secret", "expires_at", "created_at", "role_names"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    client_id: { type: "string" },
    client_secret: { type: "string", description: "Shown once; only its hash is stored" },
    expires_at: { type: ["string", "null"] },
    created_at: { type: "string" },
    role_names: { type: "array", items: { type: "string" } },
  },
} as const;

/**
 * Minting a token, declared once: it is offered at two paths (this one and
 * POST /auth/tokens/api), each documented, with one schema and one handler.
 */
export function mintTokenRoute(path: string, tag: string, summary: string): RouteSpec {
  return route({
    method: "post",
    path,
    tag,
    summary,
    permission: ["access", "create"],
    // Not idempotent: a replay would need the raw secret stored (SPEC.md 2.1 keeps only its hash) and would show it twice.
    body: mintTokenBody,
    responses: { 201: { description: "Minted; client_secret is shown only here", schema: dataEnvelope(mintedToken) } },
    handler: async (c, { body }) => c.json({ data: await mintToken(c.var.ctx.tenant, c.var.ctx.principal, body) }, 201),
  });
}

const tokenItem = {
  type: "object",
  required: ["id", "name", "client_id", "expires_at", "revoked_at", "created_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    client_id: { type: "string" },
    expires_at: { type: ["string", "null"] },
    revoked_at: { type: ["string", "null"] },
    created_at: { type: "string" },
  },
} as const;

const roleItem = {
  type: "object",
  required: ["id", "name", "permissions", "created_at"],
  properties: { id: { type: "string" }, name: { type: "string" }, permissions: { type: "array", items: { type: "string" } }, created_at: { type: "string" } },
} as const;

const listQuery = { type: "object", additionalProperties: false, properties: paginationQuery } as const;

export const accessRoutes = [
  mintTokenRoute("/access/api-tokens", "access", "Mint a personal access token"),
  route({
    method: "get",
    path: "/access/api-tokens",
    tag: "access",
    summary: "List API tokens (never their secrets)",
    permission: ["access", "read"],
    query: listQuery,
    responses: { 200: { description: "Tokens", schema: listEnvelope(tokenItem) } },
    handler: async (c, { query }) => c.json(await listTokens(c.var.ctx.tenant, pageOf(query))),
  }),
  route({
    method: "delete",
    path: "/access/api-tokens/:id",
    tag: "access",
    summary: "Revoke an API token; it is refused at once",
    permission: ["access", "delete"],
    params: { id: uuidSchema },
    responses: {
      200: {
        description: "Revoked (revoking again keeps the first revoked_at)",
        schema: dataEnvelope({ type: "object", required: ["id", "revoked", "revoked_at"], properties: { id: uuidSchema, revoked: { const: true }, revoked_at: { type: "string" } } }),
      },
      404: { description: "No such token" },
    },
    handler: async (c, { params }) => c.json({ data: await revokeToken(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "post",
    path: "/access/roles",
    tag: "access",
    summary: "Create a role",
    permission: ["access", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["name", "permissions"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        permissions: { type: "array", items: { type: "string", pattern: PERMISSION }, maxItems: 200 },
      },
    },
    responses: { 201: { description: "Created", schema: dataEnvelope(roleItem) }, 409: { description: "Name taken" } },
    handler: async (c, { body }) => c.json({ data: await createRole(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    method: "get",
    path: "/access/roles",
    tag: "access",
    summary: "List roles",
    permission: ["access", "read"],
    query: listQuery,
    responses: { 200: { description: "Roles", schema: listEnvelope(roleItem) } },
    handler: async (c, { query }) => c.json(await listRoles(c.var.ctx.tenant, pageOf(query))),
  }),
  route({
    method: "get",
    path: "/access/me/permissions",
    tag: "access",
    summary: "The permissions the calling token holds",
    responses: { 200: { description: "Permissions", schema: dataEnvelope({ type: "object", required: ["permissions"], properties: { permissions: { type: "array", items: { type: "string" } } } }) } },
    handler: (c) => c.json({ data: { permissions: c.var.ctx.principal.permissions } }),
  }),
];
