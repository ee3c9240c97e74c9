// Request and response schemas of access/external: the routes validate with them and
// document them, and service input types are derived from them.
import { freeFormObject, uuidSchema } from "../../lib/schemas";

export const provider = { type: "string", minLength: 1, maxLength: 200 } as const;

export const externalId = { type: "string", minLength: 1, maxLength: 500 } as const;

export const email = { type: "string", format: "email", maxLength: 320 } as const;

export const nullableName = { type: ["string", "null"], minLength: 1, maxLength: 200 } as const;

export const nullableMetadata = { ...freeFormObject, type: ["object", "null"] } as const;

export const companyItem = {
  type: "object",
  required: ["id", "provider", "external_id", "name", "metadata", "is_active", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    provider: { type: "string" },
    external_id: { type: "string" },
    name: { type: ["string", "null"] },
    metadata: nullableMetadata,
    is_active: { type: "boolean" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

export const externalUserItem = {
  type: "object",
  required: ["id", "provider", "external_id", "company_external_id", "email", "user_id", "is_active", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    provider: { type: "string" },
    external_id: { type: "string" },
    company_external_id: { type: ["string", "null"], description: "The company the person belongs to; null until the first render binds it" },
    email: { type: ["string", "null"] },
    user_id: uuidSchema,
    is_active: { type: "boolean" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

export const companyChange = {
  type: "object",
  additionalProperties: false,
  properties: { name: nullableName, metadata: nullableMetadata, is_active: { type: "boolean" } },
} as const;

export const externalUserChange = {
  type: "object",
  additionalProperties: false,
  properties: { email, is_active: { type: "boolean" } },
} as const;

/** What a company or a mapping is looked up by, so a change body may not name it. */
export const COMPANY_IDENTITY = ["provider", "external_id"] as const;

export const EXTERNAL_USER_IDENTITY = ["provider", "external_id", "company_external_id"] as const;

export const byId = { id: uuidSchema } as const;

export const companyBody = {
  type: "object",
  additionalProperties: false,
  required: ["provider", "external_id"],
  properties: { provider, external_id: externalId, name: nullableName, metadata: nullableMetadata },
} as const;

export const externalUserBody = {
  type: "object",
  additionalProperties: false,
  required: ["provider", "external_id"],
  properties: {
    provider,
    external_id: externalId,
    company_external_id: {
      ...externalId,
      description:
        "The provider's company (registered in /access/external-companies) the person belongs to; without it the first render binds the mapping to its company",
    },
    email,
    first_name: { type: "string", minLength: 1, maxLength: 100 },
    last_name: { type: "string", minLength: 1, maxLength: 100 },
    link_existing_email: { type: "boolean", default: false, description: "Link to the tenant user already holding this email instead of refusing" },
  },
} as const;
