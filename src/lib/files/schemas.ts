// JSON Schema fragments the artifact and temp-file routes share.

/** A file name as recorded and sent back in headers: no control characters. */
export const fileNameSchema = { type: "string", minLength: 1, maxLength: 255, pattern: "^[^\\u0000-\\u001f\\u007f]+$" } as const;

/** `type/subtype` with optional parameters, in the visible ASCII a header value allows. */
export const contentTypeSchema = {
  type: "string",
  maxLength: 255,
  pattern: "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+( *;[\\x20-\\x7e]*)?$",
  examples: ["application/pdf"],
} as const;

/** Versions are Postgres integers; a larger number names no version and would fail the lookup. */
export const artifactVersionSchema = { type: "integer", minimum: 1, maximum: 2_147_483_647, description: "A confirmed version; default the newest" } as const;

export const linkSchema = {
  type: "object",
  required: ["url", "expires_at"],
  properties: { url: { type: "string", description: "Credential-free link" }, expires_at: { type: "string", format: "date-time" } },
} as const;
