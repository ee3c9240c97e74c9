// `queryEntity`: POST /entity/query as an action. The config is the query
// body in camelCase; the result is the route's answer: `data` and beside it
// `next_cursor` (keyset, when a full page came back; pass it back as
// `cursor`), `pagination` (with `page`), `count` and `count_strategy` (with
// `includeCount`) and `warnings`.
import { queryBody } from "../../../entity/query/schemas";
import { runQuery, type QueryInput } from "../../../entity/query/service";
import { withPermissions } from "../../../access/confined-services";
import { action } from "../action";
import { camelSchema, restBody } from "../../../lib/rest-body";

export const queryEntity = action({
  name: "queryEntity",
  configSchema: camelSchema(queryBody),
  async execute(config, _invocation, ctx) {
    return withPermissions(ctx, ["entity:read"], async (services) => ({ kind: "success", result: await runQuery(services.tenant, ctx.env.MASTER_KEY, restBody<QueryInput>(queryBody, config)) }));
  },
});
