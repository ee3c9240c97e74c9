// Request and response schemas of access/shares: the routes validate with them and
// document them, and service input types are derived from them.
import { uuidSchema } from "../../lib/schemas";
import { shares } from "../../db/schema";

export const RESOURCE_TYPE = { enum: shares.resourceType.enumValues } as const;

export const shareProperties = {
  id: uuidSchema,
  resource_type: RESOURCE_TYPE,
  resource_id: uuidSchema,
  target_tenant_id: uuidSchema,
  actions: { type: "array", items: { type: "string" } },
  source: { enum: ["api", "manifest"], description: "`manifest` for shares an app spec's manifest provisions" },
  created_at: { type: "string" },
} as const;

export const shareItem = { type: "object", required: Object.keys(shareProperties), properties: shareProperties } as const;

export const receivedItem = {
  type: "object",
  required: [...Object.keys(shareProperties), "owner_tenant_id"],
  properties: { ...shareProperties, owner_tenant_id: { ...uuidSchema, description: "The tenant that made the share" } },
} as const;

export const createShareBody = {
  type: "object",
  additionalProperties: false,
  required: ["resource_type", "resource_id", "target_tenant_id"],
  properties: {
    resource_type: RESOURCE_TYPE,
    resource_id: uuidSchema,
    target_tenant_id: uuidSchema,
    // Only reads can be shared: shared rows are read-only in the target tenant.
    actions: { type: "array", items: { enum: ["read"] }, minItems: 1, uniqueItems: true, default: ["read"] },
  },
} as const;
