// The shapes of app uploads: the slots a `createTempFileUploadUrl` step asks
// for, what it yields per slot, and the default bodies the upload route
// answers a provider's widget with.
import { uuidSchema } from "../../lib/schemas";

/** Slots one step may ask for at once. */
export const MAX_SLOTS = 50;

export const slotsSchema = {
  type: "array",
  maxItems: MAX_SLOTS,
  items: {
    type: "object",
    required: ["name"],
    properties: {
      name: { type: "string", minLength: 1, maxLength: 200 },
      maxFileSize: { type: "integer", minimum: 1 },
      accept: { type: "array", maxItems: 100, items: { type: "string", minLength: 1, maxLength: 255 } },
    },
    additionalProperties: false,
  },
} as const;

export const mintedSlotSchema = {
  type: "object",
  required: ["uploadUrl", "uploadId", "expiresAt"],
  properties: {
    uploadUrl: { type: "string", description: "Absolute; POST the file here as multipart/form-data with one `file` part, no credentials" },
    uploadId: { ...uuidSchema, description: "The temp file's id once a file is uploaded" },
    expiresAt: { type: "string", format: "date-time" },
  },
} as const;

/** The answer without a provider `props` override. */
export const defaultUploadBody = {
  type: "object",
  required: ["uploadId"],
  properties: { uploadId: uuidSchema },
} as const;

/** The failure answer without a provider `errorProps` override (never the error envelope). */
export const defaultUploadErrorBody = {
  type: "object",
  required: ["errorMessage"],
  properties: { errorMessage: { type: "string" } },
} as const;
