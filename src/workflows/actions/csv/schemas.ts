// Config fragments the CSV actions share.

/** A one-character field delimiter of the input (output is always RFC 4180, comma-separated). */
export const delimiterSchema = { type: "string", minLength: 1, maxLength: 1, not: { enum: ['"', "\r", "\n"] } } as const;

/** Output header names, in order. */
export const columnsSchema = {
  type: "array",
  minItems: 1,
  maxItems: 500,
  uniqueItems: true,
  items: { type: "string", maxLength: 1000 },
} as const;
