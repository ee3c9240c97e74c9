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
