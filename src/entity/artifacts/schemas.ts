// Request and response schemas of entity/artifacts: the routes validate with them and
// document them, and service input types are derived from them.
import { uuidSchema } from "../../lib/schemas";
import { artifactVersionSchema } from "../../lib/files/schemas";
import { MAX_FILE_BYTES } from "../../lib/files/object-store";
import { contentTypeSchema, fileNameSchema } from "../../lib/files/schemas";

/** Link lifetimes in seconds: the default and the most a caller may ask for. */
export const UPLOAD_TTL = { default: 1800, max: 7200 } as const;
export const DOWNLOAD_TTL = { default: 900, max: 7200 } as const;

export const ttlSchema = (ttl: { default: number; max: number }) =>
  ({ type: "integer", minimum: 1, maximum: ttl.max, default: ttl.default, description: "Seconds the link is valid" }) as const;

export const versionFields = {
  content_type: { type: "string" },
  version: { type: "integer", description: "1, 2, … per artifact; a pending version holds the next number" },
  status: { enum: ["pending", "confirmed"] },
  size: { type: ["integer", "null"], description: "Bytes; null until uploaded" },
  checksum: { type: ["string", "null"], description: "Lowercase hex SHA-256 of the bytes; null until uploaded" },
  created_at: { type: "string" },
  confirmed_at: { type: ["string", "null"] },
} as const;

export const versionRequired = ["content_type", "version", "status", "size", "checksum", "created_at", "confirmed_at"] as const;

export const artifactSchema = {
  type: "object",
  required: ["id", "entity_id", "artifact_type", "filename", ...versionRequired],
  properties: {
    id: uuidSchema,
    entity_id: uuidSchema,
    artifact_type: { type: "string" },
    filename: { type: "string" },
    ...versionFields,
    versions: {
      type: "array",
      description: "Every version, newest first (include_versions=true)",
      items: { type: "object", required: versionRequired, properties: versionFields },
    },
  },
} as const;

export const downloadUrlInput = {
  type: "object",
  additionalProperties: false,
  properties: { ttl: ttlSchema(DOWNLOAD_TTL), version: artifactVersionSchema },
} as const;

export const confirmBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    checksum: { type: "string", pattern: "^(sha256:)?[0-9a-f]{64}$", description: "Lowercase hex SHA-256 of the bytes, optionally prefixed sha256:" },
  },
} as const;

export const uploadUrlBody = {
  type: "object",
  additionalProperties: false,
  required: ["artifact_type", "filename", "content_type"],
  properties: {
    artifact_type: { type: "string", minLength: 1, maxLength: 100 },
    filename: fileNameSchema,
    content_type: contentTypeSchema,
    size: { type: "integer", minimum: 0, description: `Bytes that will be PUT (at most ${MAX_FILE_BYTES}); checked against the upload when sent` },
    ttl: ttlSchema(UPLOAD_TTL),
  },
} as const;
