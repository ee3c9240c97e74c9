// Request and response schemas of entity/entities: the routes validate with them and
// document them, and service input types are derived from them.
import { freeFormObject, uuidSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/schemas";

export const named = { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: "string" } } } as const;

export const entitySchema = {
  type: "object",
  required: ["id", "name", "type", "attributes", "identifier_key", "created_at", "updated_at", "deleted_at"],
  properties: {
    id: uuidSchema,
    name: { type: "string" },
    type: named,
    attributes: freeFormObject,
    identifier_key: { type: "string" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
    deleted_at: { type: ["string", "null"] },
    source_type: { type: "string", description: "`shared` on a row visible through another tenant's share" },
    relationships: {
      type: "array",
      description: "Present when includes were asked for",
      items: {
        type: "object",
        required: ["rule", "entity", "direction"],
        properties: {
          rule: named,
          entity: {
            type: "object",
            required: ["id", "name", "type", "attributes"],
            properties: { id: uuidSchema, name: { type: "string" }, type: named, attributes: freeFormObject },
          },
          direction: { enum: ["to", "from"] },
        },
      },
    },
  },
} as const;

export const includeSpecEntry = {
  type: "object",
  additionalProperties: false,
  required: ["type_name"],
  properties: { type_name: TYPE_NAME, rule_name: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 1000 } },
} as const;

export const includeSpecsSchema = { type: "array", items: includeSpecEntry, maxItems: 20 } as const;

export const includeQuery = {
  include: { type: "array", items: TYPE_NAME, maxItems: 20 },
  include_specs: { type: "string", description: "URL-encoded JSON array of { type_name, rule_name?, limit? }" },
  max_relationships: { type: "integer", minimum: 1, maximum: 1000 },
} as const;

export const mergeOptions = {
  merge_on_conflict: { type: "boolean" },
  merge_cardinality: { enum: ["raise", "trim"] },
} as const;

/** POST /entity/entities/bulk-delete; the removeEntities action takes the same body. */
export const bulkDeleteBody = {
  type: "object",
  additionalProperties: false,
  required: ["ids"],
  properties: { ids: { type: "array", items: uuidSchema, minItems: 1, maxItems: 100 } },
} as const;
