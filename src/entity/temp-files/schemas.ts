// Request and response schemas of entity/temp-files: the routes validate with them and
// document them, and service input types are derived from them.
import { uuidSchema } from "../../lib/schemas";

/** Download link lifetimes in seconds: the default and the most a caller may ask for. */
export const LINK_TTL = { default: 900, max: 7200 } as const;

export const tempFileSchema = {
  type: "object",
  required: ["id", "name", "content_type", "size", "expires_at"],
  properties: { id: uuidSchema, name: { type: "string" }, content_type: { type: "string" }, size: { type: "integer" }, expires_at: { type: "string" } },
} as const;

export const downloadUrlBody = {
  type: "object",
  additionalProperties: false,
  properties: { ttl: { type: "integer", minimum: 1, maximum: LINK_TTL.max, default: LINK_TTL.default } },
} as const;
