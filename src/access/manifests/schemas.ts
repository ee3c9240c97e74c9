// Request and response schemas of access/manifests: the route validates with
// them and documents them.
import { uuidSchema } from "../../lib/schemas";
import { MANIFEST_RESOURCE_TYPES } from "./store";

export const manifestItem = {
  type: "object",
  required: ["id", "spec_id", "shares"],
  properties: {
    id: { ...uuidSchema, description: "The manifest's id: a spec has one manifest, under the spec's id" },
    spec_id: uuidSchema,
    shares: {
      type: "array",
      description: "The spec's `shares` block as shares; those made through /access/shares never appear",
      items: {
        type: "object",
        required: ["tenant_id", "resource_type", "resource_name", "actions"],
        properties: {
          tenant_id: { type: "string", description: "The target tenant" },
          resource_type: { enum: MANIFEST_RESOURCE_TYPES },
          resource_name: { type: ["string", "null"], description: "Null for `spec` without a name: the spec itself" },
          actions: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
} as const;
