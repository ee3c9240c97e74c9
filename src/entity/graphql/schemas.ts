// Request and response schemas of entity/graphql: the routes validate with them and
// document them, and service input types are derived from them.
import { freeFormObject } from "../../lib/schemas";

export const formattedError = {
  type: "object",
  required: ["message", "extensions"],
  properties: {
    message: { type: "string" },
    locations: {
      type: "array",
      items: { type: "object", required: ["line", "column"], properties: { line: { type: "integer" }, column: { type: "integer" } } },
    },
    path: { type: "array", items: { type: ["string", "integer"] } },
    extensions: {
      type: "object",
      required: ["code"],
      properties: { code: { type: "string" }, status: { type: "integer" }, details: freeFormObject },
      additionalProperties: true,
    },
  },
} as const;
