// The request and answer of POST /entity/query/aggregate (docs/query.md,
// Aggregates), declared once: the route validates with them, the queryEntity
// action takes the request in camelCase, OpenAPI prints them.
import { TYPE_NAME } from "../../entity-types/schemas";
import { filterSchema, sortSchema, warningsSchema } from "../schemas";

export const MAX_GROUP_PATHS = 5;
export const MAX_AGGREGATES = 20;
export const AGGREGATE_FUNCTIONS = ["count", "count_distinct", "sum", "avg", "min", "max"] as const;
export const BUCKETS = ["hour", "day", "week", "month", "year"] as const;

const pathSchema = sortSchema.items.properties.path;
/** A name an answer row carries: an alias, or a group key given with `as`. */
const nameSchema = { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$", maxLength: 63 } as const;

export const aggregateBody = {
  type: "object",
  additionalProperties: false,
  required: ["type_name", "aggregates"],
  properties: {
    type_name: TYPE_NAME,
    filter: filterSchema,
    group_by: {
      type: "array",
      maxItems: MAX_GROUP_PATHS,
      description: "Up to five group paths: a path, or { path, bucket?, as? } (bucket truncates a timestamp, in UTC)",
      items: {
        anyOf: [
          pathSchema,
          {
            type: "object",
            additionalProperties: false,
            required: ["path"],
            properties: { path: pathSchema, bucket: { enum: BUCKETS }, as: nameSchema },
          },
        ],
      },
    },
    aggregates: {
      type: "array",
      minItems: 1,
      maxItems: MAX_AGGREGATES,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["fn", "as"],
        properties: { fn: { enum: AGGREGATE_FUNCTIONS }, path: pathSchema, as: nameSchema },
      },
    },
    sort: {
      type: "array",
      maxItems: MAX_GROUP_PATHS + MAX_AGGREGATES,
      description: "Order of the groups: each entry names a group key (as `group` names it) or an aggregate alias; the group keys not named follow, ascending",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["key"],
        properties: { key: { type: "string", minLength: 1, maxLength: 6100 }, direction: { enum: ["asc", "desc"] } },
      },
    },
    limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
    cursor: { type: "string", minLength: 1, maxLength: 4096 },
  },
} as const;

export const aggregateAnswer = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["group"],
        properties: {
          group: { type: "object", additionalProperties: true, description: "The group's value of each group key (null for rows with no value there)" },
        },
        additionalProperties: {
          description:
            "An aggregate's value under its alias: counts as integers, numeric sums, mins and maxes exact (a JSON number when it prints back exactly, else a string), averages as numbers, timestamps as RFC 3339 text",
        },
      },
    },
    next_cursor: { type: "string", description: "Keyset paging over the groups: present only when a full page came back" },
    warnings: warningsSchema,
  },
} as const;
