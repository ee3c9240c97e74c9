// /entity/query-graph (docs/query.md, query-graph)
import { route } from "../../lib/route";
import { paginationSchema, uuidSchema } from "../../lib/schemas";
import { entitySchema } from "../entities/routes";
import { DEFAULT_INCLUDE_LIMIT, MAX_GRAPH_DEPTH, MAX_GRAPH_ENTRIES, NODE_BUDGET, runGraphQuery, type GraphQueryInput } from "./graph";
import { queryBody, warningsSchema } from "./routes";

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

const graphData = {
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
        properties: { rule: { type: "object", required: ["id", "name"], properties: { id: uuidSchema, name: { type: "string" } } }, from_id: uuidSchema, to_id: uuidSchema },
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
          items: { type: "object", required: ["path", "depth"], properties: { path: { type: "array", items: { type: "string" } }, depth: { type: "integer" } } },
        },
        next_cursor: { type: "string", description: "Keyset paging: present only when a full page came back" },
        pagination: { ...paginationSchema, description: "Offset paging (the body had page)" },
        count: { type: "integer" },
        count_strategy: { enum: ["exact", "capped", "estimate"] },
      },
    },
  },
} as const;

const graphAnswer = { type: "object", required: ["data"], properties: { data: graphData, warnings: warningsSchema } } as const;

export const queryGraphRoutes = [
  route({
    method: "post",
    path: "/entity/query-graph",
    tag: "query",
    summary: "A page of entities and the graph their nested includes reach",
    permission: ["entity", "read"],
    body: graphBody,
    responses: {
      200: { description: "Roots, nodes, edges and page_info", schema: graphAnswer },
      404: { description: "Unknown type_name, at the root or in an include entry" },
      422: { description: "Invalid filter, sort, cursor, paging or include tree" },
    },
    // The one cast from a body schema: `include` refers to itself, and json-schema-to-ts infers a
    // recursive $ref as unknown, so the recursive type is written out in graph.ts instead.
    handler: async (c, { body }) => c.json(await runGraphQuery(c.var.ctx.tenant, c.env.MASTER_KEY, body as GraphQueryInput)),
  }),
];
