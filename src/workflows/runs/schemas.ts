// Request and response schemas of workflows/runs: the routes validate with them and
// document them, and service input types are derived from them.
import { RUN_STATUSES } from "../../db/schema";
import { paginationQuery, uuidSchema } from "../../lib/schemas";

export const runListQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    workflow_id: uuidSchema,
    status_in: { type: "array", minItems: 1, items: { enum: RUN_STATUSES }, description: "Runs in any of these statuses (comma-separated)" },
    entity_id: { ...uuidSchema, description: "Runs started by an event of this entity" },
    ...paginationQuery,
    cursor: { type: "string", maxLength: 500, description: "The next_cursor of the previous page, with the same filters and limit; not with page" },
  },
} as const;

export const byId = { id: uuidSchema } as const;
