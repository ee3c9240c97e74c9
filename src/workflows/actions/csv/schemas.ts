// Config fragments the CSV actions share.
import type { JsonSchema } from "../../../lib/validate";

/** A one-character field delimiter of the input (output is always RFC 4180, comma-separated). */
export const delimiterSchema: JsonSchema = { type: "string", minLength: 1, maxLength: 1, not: { enum: ['"', "\r", "\n"] } };

/** Output header names, in order. */
export const columnsSchema: JsonSchema = {
  type: "array",
  minItems: 1,
  maxItems: 500,
  uniqueItems: true,
  items: { type: "string", maxLength: 1000 },
};
