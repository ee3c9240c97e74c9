// /entity/query-graph (docs/query.md, query-graph)
import { route } from "../../gateway/route";
import { runGraphQuery, type GraphQueryInput } from "./graph";
import { graphBody, graphAnswer } from "./schemas";

export const queryGraphRoutes = [
  route({
    operation: "queryGraph",
    method: "post",
    path: "/entity/query-graph",
    tag: "query",
    summary: "A page of entities and the graph their nested includes reach",
    permission: ["entity", "read"],
    overHttp: true,
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
