// Request and response schemas of entity/upsert: the routes validate with them and
// document them, and service input types are derived from them.
import { exactlyOneOf, uuidSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/schemas";
import { MAX_ROWS } from "./rows";

/** Upsert and CSV import take bodies of up to 32 MiB (100,000 rows), more than the default. */
export const UPSERT_BODY_LIMIT = 32 * 1024 * 1024;

// The envelope is checked with `data` emptied; rows are checked one by one
// in prepareRows (with the type's schema and positions in the error lines).
export const upsertBody = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: {
    type_name: TYPE_NAME,
    type_id: uuidSchema,
    data: { type: "array", maxItems: MAX_ROWS, description: `Rows (at most ${MAX_ROWS}); each as rowSchema` },
    on_conflict: { enum: ["raise", "ignore", "merge", "replace"] },
    merge_on_conflict: { type: "boolean" },
    merge_cardinality: { enum: ["raise", "trim"] },
    skip_unresolved_relationships: { type: "boolean" },
    suppress_events: { type: "boolean" },
  },
  ...exactlyOneOf("type_name", "type_id"),
} as const;

export const upsertResult = {
  type: "object",
  required: ["created", "updated", "unchanged", "ignored", "ids", "errors"],
  properties: {
    created: { type: "integer" },
    updated: { type: "integer" },
    unchanged: { type: "integer" },
    ignored: { type: "integer" },
    ids: { type: "array", items: { type: "string" }, description: "Entity id per input row, in input order" },
    errors: {
      type: "array",
      description: "Relationships skipped with skip_unresolved_relationships",
      items: {
        type: "object",
        required: ["index", "code", "message"],
        properties: { index: { type: "integer" }, code: { const: "UNRESOLVED_RELATIONSHIP" }, message: { type: "string" } },
      },
    },
  },
} as const;
