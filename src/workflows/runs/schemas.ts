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

export const retryBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    config: {
      enum: ["original", "current"],
      description:
        "original (the default): the env and job bindings the run started with; current: the activation's as they are now (the definition version stays the run's)",
    },
    from_step: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description:
        "A job id of the run's version: that job and every job depending on it run again, whatever their rerunPolicy; the others keep their records and outputs",
    },
  },
} as const;
