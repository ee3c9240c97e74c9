// Request and response schemas of entity/entity-types: the routes validate with them and
// document them, and service input types are derived from them.
import { configSchema, indexedAttributeSchema } from "./config";
import { exactlyOneOf, forbidden, freeFormObject } from "../../lib/schemas";

export const TYPE_NAME = { type: "string", minLength: 1, maxLength: 100, pattern: "^[A-Za-z][A-Za-z0-9_]*$" } as const;

/** The config as stored and answered: every field there, defaults filled in. */
export const storedConfig = {
  ...configSchema,
  required: ["identifier_key", "indexed_attributes", "sort_by_updated_at", "name_search"],
  properties: {
    ...configSchema.properties,
    indexed_attributes: {
      ...configSchema.properties.indexed_attributes,
      items: { ...indexedAttributeSchema, required: ["path", "type", "filterable", "sortable", "searchable"] },
    },
  },
} as const;

export const entityTypeItem = {
  type: "object",
  required: ["id", "name", "status", "schema", "schema_name", "config", "created_at", "updated_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: ["draft", "active"] },
    schema: {
      type: ["object", "boolean"],
      additionalProperties: true,
      description: "The JSON Schema entities are validated against (a registered one may be a boolean)",
    },
    schema_name: { type: ["string", "null"] },
    config: storedConfig,
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

export const patchConfigSchema = { ...configSchema, required: [] } as const;

export const createTypeBody = {
  type: "object",
  additionalProperties: false,
  required: ["name", "config"],
  properties: {
    name: TYPE_NAME,
    schema: freeFormObject,
    schema_name: { type: "string", minLength: 1 },
    status: { enum: ["draft", "active"] },
    config: configSchema,
  },
  ...exactlyOneOf("schema", "schema_name"),
} as const;

export const patchTypeBody = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { schema: freeFormObject, schema_name: { type: "string", minLength: 1 }, config: patchConfigSchema },
  // A patch may leave the schema as it is, but names at most one of its forms.
  dependentSchemas: { schema: { properties: { schema_name: forbidden } } },
} as const;
