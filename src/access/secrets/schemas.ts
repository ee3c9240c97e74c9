// Request and response schemas of access/secrets: the routes validate with them and
// document them, and service input types are derived from them.
import { forbidden, uuidSchema } from "../../lib/schemas";

export const MAX_SECRET_BYTES = 64 * 1024;

export const SCOPES = ["tenant", "user", "company", "team"] as const;

export const principalId = { type: "string", minLength: 1, maxLength: 200 } as const;

export const putBody = {
  type: "object",
  additionalProperties: false,
  required: ["scope", "name", "value"],
  properties: {
    scope: { enum: SCOPES },
    name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$", maxLength: 200 },
    // Characters are at most 4 bytes each; the byte limit itself is checked in the handler.
    value: { type: "string", maxLength: MAX_SECRET_BYTES, description: `At most ${MAX_SECRET_BYTES} bytes of UTF-8; never answered` },
    principal_id: { ...principalId, description: "The user, company or team id; required except for scope tenant, where it is refused" },
  },
  if: { properties: { scope: { const: "tenant" } } },
  then: { properties: { principal_id: forbidden } },
  else: { required: ["principal_id"] },
} as const;

export const secretItem = {
  type: "object",
  required: ["id", "scope", "principal_id", "name", "created_at", "updated_at"],
  properties: {
    id: uuidSchema,
    scope: { enum: SCOPES },
    principal_id: { type: ["string", "null"] },
    name: { type: "string" },
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;
