// Request and response schemas of definition: the routes validate with them and
// document them, and service input types are derived from them.
import { exactlyOneOf, freeFormObject, uuidSchema } from "../lib/schemas";

export const WORKFLOW_NAME = { type: "string", minLength: 1, maxLength: 200, pattern: "^\\S(.*\\S)?$" } as const;

/** Reference steps name jobs by this key. */
export const JOB_NAME = { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9][A-Za-z0-9_.:-]*$" } as const;

export const DESCRIPTION = { type: "string", maxLength: 4000 } as const;

/** The YAML text as written; parsed into `definition_json`. */
export const SOURCE_YAML = { type: "string", minLength: 1 } as const;

export const documentFields = { definition_json: freeFormObject, source_yaml: SOURCE_YAML } as const;

// The handlers validate the documents themselves (every problem at once, by
// the language's own checks); the OpenAPI description shows the language schema.
export const workflowBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: { name: WORKFLOW_NAME, description: DESCRIPTION, ...documentFields },
  ...exactlyOneOf("definition_json", "source_yaml"),
} as const;

export const validateBody = { ...workflowBody, required: [] } as const;

export const workflowItem = {
  type: "object",
  required: ["id", "name", "description", "status", "version", "definition_json", "job_refs", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    name: { type: "string" },
    description: { type: ["string", "null"] },
    status: { enum: ["draft", "active"] },
    version: { type: "integer", minimum: 1 },
    definition_json: freeFormObject,
    source_yaml: { type: "string", description: "The YAML as written, when the definition was saved from YAML" },
    job_refs: {
      type: "object",
      additionalProperties: uuidSchema,
      description: "Reference step id → the job definition id it was bound to at this version's save",
    },
    source_type: { const: "shared", description: "Present on a definition another tenant shares with this one: readable and activatable here, never changed" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

export const jobItem = {
  type: "object",
  required: ["id", "name", "version", "status", "definition_json", "created_at"],
  properties: {
    id: uuidSchema,
    name: { type: "string" },
    version: { type: "integer", minimum: 1 },
    status: { const: "active" },
    definition_json: freeFormObject,
    created_at: { type: "string" },
  },
} as const;

export const validation = {
  type: "object",
  required: ["valid", "errors"],
  properties: {
    valid: { type: "boolean" },
    errors: { type: "array", items: { type: "string" }, description: "One `<path>: <reason>` line per problem, as a save would answer them" },
    code: { const: "SECRET_REF_IN_DEFINITION", description: "Present when the document holds a secret reference" },
  },
} as const;

export const byId = { id: uuidSchema } as const;
