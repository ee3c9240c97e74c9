// Request and response schemas of /definition/specs: the routes validate with
// them and document them, and service input types are derived from them.
import { freeFormObject, uuidSchema } from "../../lib/schemas";
import { DESCRIPTION, WORKFLOW_NAME } from "../schemas";

/** A spec's name: unique per owner tenant. */
export const SPEC_NAME = WORKFLOW_NAME;

// The handlers check the document themselves (every problem at once, as
// issues); the OpenAPI description shows the spec document's JSON Schema.
export const specBody = {
  type: "object",
  additionalProperties: false,
  required: ["name", "spec_document"],
  properties: { name: SPEC_NAME, description: DESCRIPTION, spec_document: freeFormObject },
} as const;

export const validateSpecBody = {
  type: "object",
  additionalProperties: false,
  required: ["spec_document"],
  properties: { spec_document: freeFormObject },
} as const;

export const specItem = {
  type: "object",
  required: ["id", "name", "description", "version", "spec_document", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    name: { type: "string" },
    description: { type: ["string", "null"] },
    version: { type: "integer", minimum: 1 },
    spec_document: { ...freeFormObject, description: "The document as written, key order kept" },
    source_type: { const: "shared", description: "Present on a spec another tenant shares with this one (read-only here)" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

export const versionItem = {
  type: "object",
  required: ["version", "created_at"],
  properties: { version: { type: "integer", minimum: 1 }, created_at: { type: "string" } },
} as const;

export const versionDocument = {
  type: "object",
  required: ["version", "spec_document", "created_at"],
  properties: { version: { type: "integer", minimum: 1 }, spec_document: freeFormObject, created_at: { type: "string" } },
} as const;

export const issueItem = {
  type: "object",
  required: ["path", "code", "message"],
  properties: { path: { type: "string" }, code: { type: "string" }, message: { type: "string" } },
} as const;

export const specValidation = {
  type: "object",
  required: ["valid", "issues"],
  properties: {
    valid: { type: "boolean" },
    issues: { type: "array", items: issueItem, description: "Every problem a publish would refuse, as `{ path, code, message }`" },
  },
} as const;

export const bySpecVersion = { id: uuidSchema, version: { type: "string", pattern: "^[1-9][0-9]{0,8}$" } } as const;
