// Request and response schemas of entity/query: the routes validate with them and
// document them, and service input types are derived from them.
import { paginationQuery, paginationSchema, uuidSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/schemas";
import { entitySchema } from "../entities/schemas";
import { DEFAULT_INCLUDE_LIMIT, MAX_GRAPH_DEPTH, MAX_GRAPH_ENTRIES, NODE_BUDGET } from "./graph";

/** How many paths `distinct_on` may name. */
export const MAX_DISTINCT_PATHS = 5;

export const pathSchema = { type: "array", items: { type: "string", minLength: 1, maxLength: 500 }, minItems: 1, maxItems: 12 } as const;

export const sortSchema = {
  type: "array",
  maxItems: 10,
  items: { type: "object", additionalProperties: false, required: ["path"], properties: { path: pathSchema, direction: { enum: ["asc", "desc"] } } },
} as const;

export const filterSchema = {
  type: "object",
  additionalProperties: true,
  description: "A particle { operator, path, value, optional?, threshold? } or a composite { operator: and|or|not, filters }",
} as const;

export const queryBody = {
  type: "object",
  additionalProperties: false,
  required: ["type_name"],
  properties: {
    type_name: TYPE_NAME,
    filter: filterSchema,
    sort: sortSchema,
    page: paginationQuery.page,
    limit: paginationQuery.limit,
    cursor: { type: "string", minLength: 1, maxLength: 4096 },
    include: { type: "array", items: TYPE_NAME, maxItems: 20 },
    include_specs: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type_name"],
        properties: {
          type_name: TYPE_NAME,
          rule_name: { type: "string", minLength: 1 },
          filter: filterSchema,
          sort: sortSchema,
          limit: { type: "integer", minimum: 1, maximum: 1000 },
        },
      },
    },
    max_relationships: { type: "integer", minimum: 1, maximum: 1000 },
    include_count: { type: "boolean" },
    count_strategy: { enum: ["exact", "capped", "estimate"] },
    distinct_on: {
      type: "object",
      additionalProperties: false,
      required: ["paths"],
      properties: { paths: { type: "array", items: pathSchema, minItems: 1, maxItems: MAX_DISTINCT_PATHS }, sort: sortSchema },
    },
  },
} as const;

/** Beside `data` when the request names paths or types nothing answers to; left out when there are none. */
export const warningsSchema = {
  type: "array",
  minItems: 1,
  items: { type: "string" },
  description:
    "`<where>: <what>` lines, one per filter, sort, distinct_on or include path the type's schema does not define, path that names no entity field, or type the caller cannot read (unknown and unreadable types are worded alike). Such a path still matches nothing, sorts as a constant or brings nothing.",
} as const;

export const queryAnswer = {
  type: "object",
  required: ["data"],
  properties: {
    data: { type: "array", items: entitySchema },
    next_cursor: { type: "string", description: "Keyset paging: present only when a full page came back" },
    pagination: { ...paginationSchema, description: "Offset paging (the body had page)" },
    count: { type: "integer" },
    count_strategy: { enum: ["exact", "capped", "estimate"] },
    warnings: warningsSchema,
  },
} as const;

const q = queryBody.properties;

/**
 * The include tree, unrolled to MAX_GRAPH_DEPTH levels rather than written as
 * a recursive `$ref`, so the OpenAPI document that embeds it stays
 * self-contained. Below the last level `include` is any array: the service
 * answers a non-empty one with the depth limit and its path.
 */
function includeSchema(levels: number): object {
  return {
    type: "array",
    maxItems: 20,
    items: {
      type: "object",
      additionalProperties: false,
      required: ["type_name"],
      properties: {
        type_name: q.type_name,
        rule_name: q.include_specs.items.properties.rule_name,
        filter: q.filter,
        sort: q.sort,
        limit: { type: "integer", minimum: 1, maximum: 1000, default: DEFAULT_INCLUDE_LIMIT, description: "Related entities per parent" },
        include: levels > 1 ? includeSchema(levels - 1) : { type: "array", description: `Includes nest at most ${MAX_GRAPH_DEPTH} levels` },
      },
    },
  };
}

export const graphBody = {
  type: "object",
  additionalProperties: false,
  required: ["type_name"],
  properties: {
    type_name: q.type_name,
    filter: q.filter,
    sort: q.sort,
    page: q.page,
    limit: q.limit,
    cursor: q.cursor,
    include_count: q.include_count,
    count_strategy: q.count_strategy,
    distinct_on: q.distinct_on,
    include: { ...includeSchema(MAX_GRAPH_DEPTH), description: `At most ${MAX_GRAPH_ENTRIES} entries in the whole tree` },
    node_budget: { type: "integer", minimum: 1, maximum: NODE_BUDGET, default: NODE_BUDGET, description: "Most nodes in the answer, roots included" },
  },
} as const;

export const graphData = {
  type: "object",
  required: ["roots", "nodes", "edges", "page_info"],
  properties: {
    roots: { type: "array", items: uuidSchema, description: "The page's entities, in order" },
    nodes: { type: "object", additionalProperties: entitySchema, description: "Every entity of the answer by id, each once" },
    edges: {
      type: "array",
      items: {
        type: "object",
        required: ["rule", "from_id", "to_id"],
        properties: {
          rule: { type: "object", required: ["id", "name"], properties: { id: uuidSchema, name: { type: "string" } } },
          from_id: uuidSchema,
          to_id: uuidSchema,
        },
      },
    },
    page_info: {
      type: "object",
      required: ["truncated", "truncations"],
      properties: {
        truncated: { type: "boolean" },
        truncations: {
          type: "array",
          description: "The include entries the node budget cut",
          items: {
            type: "object",
            required: ["path", "depth"],
            properties: { path: { type: "array", items: { type: "string" } }, depth: { type: "integer" } },
          },
        },
        next_cursor: { type: "string", description: "Keyset paging: present only when a full page came back" },
        pagination: { ...paginationSchema, description: "Offset paging (the body had page)" },
        count: { type: "integer" },
        count_strategy: { enum: ["exact", "capped", "estimate"] },
      },
    },
  },
} as const;

export const graphAnswer = { type: "object", required: ["data"], properties: { data: graphData, warnings: warningsSchema } } as const;
