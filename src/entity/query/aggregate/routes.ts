// POST /entity/query/aggregate (docs/query.md, Aggregates)
import { route } from "../../../gateway/route";
import { aggregateAnswer, aggregateBody } from "./schemas";
import { aggregateGroups } from "./service";

export const aggregateRoutes = [
  route({
    operation: "aggregateEntities",
    method: "post",
    path: "/entity/query/aggregate",
    tag: "query",
    summary: "Counts, sums, averages, minimums and maximums of one type's entities, by group",
    permission: ["entity", "read"],
    overHttp: true,
    body: aggregateBody,
    responses: {
      200: { description: "A page of groups, in the requested order", schema: aggregateAnswer },
      403: { description: "The caller may read no entity of type_name" },
      404: { description: "Unknown type_name" },
      422: { description: "Invalid filter, group path, aggregate, alias, sort or cursor" },
    },
    handler: async (c, { body }) => c.json(await aggregateGroups(c.var.ctx.tenant, c.env.MASTER_KEY, body)),
  }),
];
