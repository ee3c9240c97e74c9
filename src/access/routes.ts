// /access/*: API tokens, users, roles, policies, grants and assignments, the caller itself.
import { route, type RouteSpec } from "../lib/route";
import { dataEnvelope, exactlyOneOf, listEnvelope, paginationQuery, uuidSchema } from "../lib/schemas";
import { pageOf } from "../lib/pagination";
import { listTokens, mintToken, revokeToken } from "./api-tokens";
import { createRole, deleteRole, getRole, listRoles, updateRole } from "./roles";
import { createUser, deleteUser, getUser, listUsers, setUserRoles, updateUser } from "./users";
import { createPolicy, deletePolicy, getPolicy, grantFields, grantInput, grantNarrowing, listPolicies, updatePolicy } from "./policies";
import { createGrant, deleteGrant, listGrants } from "./grants";
import { assignPolicy, listAssignments, unassignPolicy } from "./assignments";
import { permissionStrings } from "../gateway/principal";

const PERMISSION = "^(\\*|[a-z][a-z_]*):(\\*|[a-z][a-z_]*)$";

const mintTokenBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    expires_at: { type: "string", format: "date-time" },
    role_names: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true, maxItems: 50 },
    user_id: { ...uuidSchema, description: "Mint for this user of the tenant instead of the caller's" },
  },
} as const;

const mintedToken = {
  type: "object",
  required: ["id", "name", "client_id", "client_secret", "expires_at", "created_at", "user_id", "role_names"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    client_id: { type: "string" },
    client_secret: { type: "string", description: "Shown once; only its hash is stored" },
    expires_at: { type: ["string", "null"] },
    created_at: { type: "string" },
    user_id: { type: "string" },
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
    // Not idempotent: a replay would need the raw secret stored (only its hash is kept) and would show it twice.
    body: mintTokenBody,
    responses: { 201: { description: "Minted; client_secret is shown only here", schema: dataEnvelope(mintedToken) } },
    handler: async (c, { body }) => c.json({ data: await mintToken(c.var.ctx.tenant, c.var.ctx.principal, body, c.var.ctx.clock.now()) }, 201),
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
  required: ["id", "name", "permissions", "created_at", "updated_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    permissions: { type: "array", items: { type: "string" } },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

const roleName = { type: "string", minLength: 1, maxLength: 200 } as const;
const permissionList = { type: "array", items: { type: "string", pattern: PERMISSION }, maxItems: 200 } as const;
const roleNames = { type: "array", items: roleName, uniqueItems: true, maxItems: 50 } as const;

const userItem = {
  type: "object",
  required: ["id", "email", "name", "is_active", "role_names", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    email: { type: ["string", "null"] },
    name: { type: ["string", "null"] },
    is_active: { type: "boolean" },
    role_names: { type: "array", items: { type: "string" } },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

const userName = { type: ["string", "null"], minLength: 1, maxLength: 200 } as const;

const grantItem = {
  type: "object",
  required: ["id", "policy_id", "resource", "actions", "resource_name", "resource_id"],
  properties: {
    id: uuidSchema,
    policy_id: uuidSchema,
    resource: { type: "string" },
    actions: { type: "array", items: { type: "string" } },
    resource_name: { type: ["string", "null"] },
    resource_id: { type: ["string", "null"] },
  },
} as const;

const policyItem = {
  type: "object",
  required: ["id", "name", "description", "grants", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    name: { type: "string" },
    description: { type: ["string", "null"] },
    grants: { type: "array", items: grantItem },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

const policyFields = {
  name: { type: "string", minLength: 1, maxLength: 200 },
  description: { type: ["string", "null"], maxLength: 2000 },
  grants: { type: "array", items: grantInput, maxItems: 200 },
} as const;

const assignmentItem = {
  type: "object",
  required: ["id", "policy_id", "role_name", "user_id", "created_at"],
  properties: { id: uuidSchema, policy_id: uuidSchema, role_name: { type: ["string", "null"] }, user_id: { type: ["string", "null"] }, created_at: { type: "string" } },
} as const;

const assigneeFields = { role_name: roleName, user_id: uuidSchema } as const;

/** What a hard delete answers. */
const deleted = { type: "object", required: ["id", "deleted"], properties: { id: uuidSchema, deleted: { const: true } } } as const;

const listQuery = { type: "object", additionalProperties: false, properties: paginationQuery } as const;
const byId = { id: uuidSchema } as const;

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
      properties: { name: roleName, permissions: permissionList },
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
    path: "/access/roles/:id",
    tag: "access",
    summary: "Get a role",
    permission: ["access", "read"],
    params: byId,
    responses: { 200: { description: "Role", schema: dataEnvelope(roleItem) }, 404: { description: "No such role" } },
    handler: async (c, { params }) => c.json({ data: await getRole(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "put",
    path: "/access/roles/:id",
    tag: "access",
    summary: "Rename a role or replace its permissions; added permissions must be the caller's own",
    permission: ["access", "update"],
    params: byId,
    body: { type: "object", additionalProperties: false, minProperties: 1, properties: { name: roleName, permissions: permissionList } },
    responses: {
      200: { description: "Updated", schema: dataEnvelope(roleItem) },
      403: { description: "An added permission is not the caller's" },
      404: { description: "No such role" },
      409: { description: "Name taken" },
    },
    handler: async (c, { params, body }) => c.json({ data: await updateRole(c.var.ctx.tenant, c.var.ctx.principal, params.id, body) }),
  }),
  route({
    method: "delete",
    path: "/access/roles/:id",
    tag: "access",
    summary: "Delete a role with its bindings and policy assignments",
    permission: ["access", "delete"],
    params: byId,
    responses: { 200: { description: "Deleted", schema: dataEnvelope(deleted) }, 404: { description: "No such role" } },
    handler: async (c, { params }) => c.json({ data: await deleteRole(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "post",
    path: "/access/users",
    tag: "access",
    summary: "Create a user, optionally with roles",
    permission: ["access", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["email"],
      properties: { email: { type: "string", format: "email", maxLength: 254 }, name: userName, role_names: roleNames },
    },
    responses: {
      201: { description: "Created", schema: dataEnvelope(userItem) },
      403: { description: "A role carries a permission the caller does not hold" },
      409: { description: "Email taken in this tenant (case-insensitive)" },
      422: { description: "Unknown role names" },
    },
    handler: async (c, { body }) => c.json({ data: await createUser(c.var.ctx.tenant, c.var.ctx.principal, body) }, 201),
  }),
  route({
    method: "get",
    path: "/access/users",
    tag: "access",
    summary: "List users",
    permission: ["access", "read"],
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery, email: { type: "string", minLength: 1, maxLength: 254, description: "Exact match, case-insensitive" } } },
    responses: { 200: { description: "Users", schema: listEnvelope(userItem) } },
    handler: async (c, { query }) => c.json(await listUsers(c.var.ctx.tenant, pageOf(query), query.email)),
  }),
  route({
    method: "get",
    path: "/access/users/:id",
    tag: "access",
    summary: "Get a user",
    permission: ["access", "read"],
    params: byId,
    responses: { 200: { description: "User", schema: dataEnvelope(userItem) }, 404: { description: "No such user" } },
    handler: async (c, { params }) => c.json({ data: await getUser(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "put",
    path: "/access/users/:id",
    tag: "access",
    summary: "Rename, deactivate or reactivate a user; a deactivated user's tokens are refused",
    permission: ["access", "update"],
    params: byId,
    body: { type: "object", additionalProperties: false, minProperties: 1, properties: { name: userName, is_active: { type: "boolean" } } },
    responses: {
      200: { description: "Updated", schema: dataEnvelope(userItem) },
      404: { description: "No such user" },
      409: { description: "The caller's own user cannot be deactivated" },
    },
    handler: async (c, { params, body }) => c.json({ data: await updateUser(c.var.ctx.tenant, c.var.ctx.principal, params.id, body) }),
  }),
  route({
    method: "put",
    path: "/access/users/:id/roles",
    tag: "access",
    summary: "Replace a user's roles",
    permission: ["access", "update"],
    params: byId,
    body: { type: "object", additionalProperties: false, required: ["role_names"], properties: { role_names: roleNames } },
    responses: {
      200: { description: "The user with its new roles", schema: dataEnvelope(userItem) },
      403: { description: "A role the user gains carries a permission the caller does not hold" },
      404: { description: "No such user" },
      422: { description: "Unknown role names" },
    },
    handler: async (c, { params, body }) => c.json({ data: await setUserRoles(c.var.ctx.tenant, c.var.ctx.principal, params.id, body.role_names) }),
  }),
  route({
    method: "delete",
    path: "/access/users/:id",
    tag: "access",
    summary: "Delete a user with its role bindings and its API tokens",
    permission: ["access", "delete"],
    params: byId,
    responses: {
      200: { description: "Deleted", schema: dataEnvelope(deleted) },
      404: { description: "No such user" },
      409: { description: "The caller's own user cannot be deleted" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteUser(c.var.ctx.tenant, c.var.ctx.principal, params.id) }),
  }),
  route({
    method: "post",
    path: "/access/policies",
    tag: "access",
    summary: "Create a policy with its grants",
    permission: ["access", "create"],
    idempotent: true,
    body: { type: "object", additionalProperties: false, required: ["name"], properties: policyFields },
    responses: { 201: { description: "Created", schema: dataEnvelope(policyItem) }, 409: { description: "Name taken" } },
    handler: async (c, { body }) => c.json({ data: await createPolicy(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    method: "get",
    path: "/access/policies",
    tag: "access",
    summary: "List policies, each with its grants",
    permission: ["access", "read"],
    query: listQuery,
    responses: { 200: { description: "Policies", schema: listEnvelope(policyItem) } },
    handler: async (c, { query }) => c.json(await listPolicies(c.var.ctx.tenant, pageOf(query))),
  }),
  route({
    method: "get",
    path: "/access/policies/:id",
    tag: "access",
    summary: "Get a policy with its grants",
    permission: ["access", "read"],
    params: byId,
    responses: { 200: { description: "Policy", schema: dataEnvelope(policyItem) }, 404: { description: "No such policy" } },
    handler: async (c, { params }) => c.json({ data: await getPolicy(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "put",
    path: "/access/policies/:id",
    tag: "access",
    summary: "Change a policy; grants, when given, replace the whole set",
    permission: ["access", "update"],
    params: byId,
    body: { type: "object", additionalProperties: false, minProperties: 1, properties: policyFields },
    responses: {
      200: { description: "Updated", schema: dataEnvelope(policyItem) },
      403: { description: "The policy is assigned and a grant is not the caller's" },
      404: { description: "No such policy" },
      409: { description: "Name taken" },
    },
    handler: async (c, { params, body }) => c.json({ data: await updatePolicy(c.var.ctx.tenant, c.var.ctx.principal, params.id, body) }),
  }),
  route({
    method: "delete",
    path: "/access/policies/:id",
    tag: "access",
    summary: "Delete a policy with its grants and assignments",
    permission: ["access", "delete"],
    params: byId,
    responses: { 200: { description: "Deleted", schema: dataEnvelope(deleted) }, 404: { description: "No such policy" } },
    handler: async (c, { params }) => c.json({ data: await deletePolicy(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "post",
    path: "/access/policies/:id/assignments",
    tag: "access",
    summary: "Assign a policy to a role or a user",
    permission: ["access", "create"],
    idempotent: true,
    params: byId,
    body: { type: "object", additionalProperties: false, properties: assigneeFields, ...exactlyOneOf("role_name", "user_id") },
    responses: {
      201: { description: "Assigned", schema: dataEnvelope(assignmentItem) },
      403: { description: "A grant of the policy is not the caller's" },
      404: { description: "No such policy" },
      409: { description: "Already assigned" },
      422: { description: "Unknown role or user" },
    },
    handler: async (c, { params, body }) => c.json({ data: await assignPolicy(c.var.ctx.tenant, c.var.ctx.principal, params.id, body) }, 201),
  }),
  route({
    method: "get",
    path: "/access/policies/:id/assignments",
    tag: "access",
    summary: "List a policy's assignments",
    permission: ["access", "read"],
    params: byId,
    query: listQuery,
    responses: { 200: { description: "Assignments", schema: listEnvelope(assignmentItem) }, 404: { description: "No such policy" } },
    handler: async (c, { params, query }) => c.json(await listAssignments(c.var.ctx.tenant, params.id, pageOf(query))),
  }),
  route({
    method: "delete",
    path: "/access/policies/:id/assignments",
    tag: "access",
    summary: "Remove a policy's assignment to a role or a user",
    permission: ["access", "delete"],
    params: byId,
    query: { type: "object", additionalProperties: false, properties: assigneeFields, ...exactlyOneOf("role_name", "user_id") },
    responses: { 200: { description: "Removed", schema: dataEnvelope(deleted) }, 404: { description: "No such policy or assignment" } },
    handler: async (c, { params, query }) => c.json({ data: await unassignPolicy(c.var.ctx.tenant, params.id, query) }),
  }),
  route({
    method: "post",
    path: "/access/grants",
    tag: "access",
    summary: "Add a grant to a policy",
    permission: ["access", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["policy_id", "resource", "actions"],
      properties: { policy_id: uuidSchema, ...grantFields },
      dependentSchemas: grantNarrowing,
    },
    responses: {
      201: { description: "Added", schema: dataEnvelope(grantItem) },
      403: { description: "The policy is assigned and the grant is not the caller's" },
      422: { description: "Unknown policy" },
    },
    handler: async (c, { body }) => c.json({ data: await createGrant(c.var.ctx.tenant, c.var.ctx.principal, body) }, 201),
  }),
  route({
    method: "get",
    path: "/access/grants",
    tag: "access",
    summary: "List grants, optionally of one policy",
    permission: ["access", "read"],
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery, policy_id: uuidSchema } },
    responses: { 200: { description: "Grants", schema: listEnvelope(grantItem) } },
    handler: async (c, { query }) => c.json(await listGrants(c.var.ctx.tenant, pageOf(query), query.policy_id)),
  }),
  route({
    method: "delete",
    path: "/access/grants/:id",
    tag: "access",
    summary: "Remove a grant from its policy",
    permission: ["access", "delete"],
    params: byId,
    responses: { 200: { description: "Removed", schema: dataEnvelope(deleted) }, 404: { description: "No such grant" } },
    handler: async (c, { params }) => c.json({ data: await deleteGrant(c.var.ctx.tenant, params.id) }),
  }),
  route({
    method: "get",
    path: "/access/me",
    tag: "access",
    summary: "Who is calling: the user, tenant and token",
    responses: {
      200: {
        description: "The caller",
        schema: dataEnvelope({ type: "object", required: ["user_id", "tenant_id", "token_id"], properties: { user_id: uuidSchema, tenant_id: uuidSchema, token_id: uuidSchema } }),
      },
    },
    handler: (c) => {
      const { userId, tenantId, tokenId } = c.var.ctx.principal;
      return c.json({ data: { user_id: userId, tenant_id: tenantId, token_id: tokenId } });
    },
  }),
  route({
    method: "get",
    path: "/access/me/permissions",
    tag: "access",
    summary: "The permissions the calling token holds",
    responses: { 200: { description: "Permissions", schema: dataEnvelope({ type: "object", required: ["permissions"], properties: { permissions: { type: "array", items: { type: "string" } } } }) } },
    handler: (c) => c.json({ data: { permissions: permissionStrings(c.var.ctx.principal) } }),
  }),
];
