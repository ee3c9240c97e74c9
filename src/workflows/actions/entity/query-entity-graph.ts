// `queryEntityGraph`: POST /entity/query-graph as an action. The config is
// the graph query body in camelCase (nested `include` entries too); the
// result is the route's answer: `data` with `roots`, `nodes`, `edges` and
// `page_info`, and `warnings` beside it when there are any.
import { graphBody } from "../../../entity/query/schemas";
import { runGraphQuery, type GraphQueryInput } from "../../../entity/query/graph";
import { withPermissions } from "../../../access/confined-services";
import { action } from "../action";
import { camelSchema, restBody } from "../../../lib/rest-body";

export const queryEntityGraph = action({
  name: "queryEntityGraph",
  configSchema: camelSchema(graphBody),
  async execute(config, _invocation, ctx) {
    return withPermissions(ctx, ["entity:read"], async (services) => ({ kind: "success", result: await runGraphQuery(services.tenant, ctx.env.MASTER_KEY, restBody<GraphQueryInput>(graphBody, config)) }));
  },
});
