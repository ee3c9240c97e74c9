// Request and response schemas of access: the routes validate with them and
// document them, and service input types are derived from them.
import { paginationQuery, uuidSchema } from "../lib/schemas";
import { grantInput } from "./policies";

const PERMISSION = "^(\\*|[a-z][a-z_]*):(\\*|[a-z][a-z_]*)$";

export const mintTokenBody = {
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

export const mintedToken = {
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

export const tokenItem = {
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

export const roleItem = {
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

export const roleName = { type: "string", minLength: 1, maxLength: 200 } as const;

export const permissionList = { type: "array", items: { type: "string", pattern: PERMISSION, examples: ["entity:read"] }, maxItems: 200 } as const;

export const roleNames = { type: "array", items: roleName, uniqueItems: true, maxItems: 50 } as const;

export const userItem = {
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

export const userName = { type: ["string", "null"], minLength: 1, maxLength: 200 } as const;

export const grantItem = {
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

export const policyItem = {
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

export const policyFields = {
  name: { type: "string", minLength: 1, maxLength: 200 },
  description: { type: ["string", "null"], maxLength: 2000 },
  grants: { type: "array", items: grantInput, maxItems: 200 },
} as const;

export const assignmentItem = {
  type: "object",
  required: ["id", "policy_id", "role_name", "user_id", "created_at"],
  properties: {
    id: uuidSchema,
    policy_id: uuidSchema,
    role_name: { type: ["string", "null"] },
    user_id: { type: ["string", "null"] },
    created_at: { type: "string" },
  },
} as const;

export const assigneeFields = { role_name: roleName, user_id: uuidSchema } as const;

/** What a hard delete answers. */

export const listQuery = { type: "object", additionalProperties: false, properties: paginationQuery } as const;

export const byId = { id: uuidSchema } as const;
