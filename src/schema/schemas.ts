// Request and response schemas of schema: the routes validate with them and
// document them, and service input types are derived from them.

/** A JSON Schema: an object of any keywords, or true or false. */
export const JSON_SCHEMA = { type: ["object", "boolean"], additionalProperties: true } as const;

export const NAME = { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]*$" } as const;

export const schemaItem = {
  type: "object",
  required: ["id", "name", "version", "schema", "created_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    version: { type: "integer" },
    schema: JSON_SCHEMA,
    created_at: { type: "string" },
    source_type: { const: "shared", description: "Present on a schema version another tenant shares with this one" },
  },
} as const;
