// `queryEntity`: POST /entity/query as an action. The config is the query
// body in camelCase; the result is the route's answer: `data` and beside it
// `next_cursor` (keyset, when a full page came back; pass it back as
// `cursor`), `pagination` (with `page`), `count` and `count_strategy` (with
// `includeCount`) and `warnings`. A config with `aggregates` is the body of
// POST /entity/query/aggregate instead (`groupBy`, `aggregates`, `sort` by
// group key or alias), and the result that route's answer: group rows.
import { queryBody } from "../../../entity/query/schemas";
import { runQuery, type QueryInput } from "../../../entity/query/service";
import type { AggregateInput } from "../../../entity/query/aggregate/compile";
import { aggregateBody } from "../../../entity/query/aggregate/schemas";
import { aggregateGroups } from "../../../entity/query/aggregate/service";
import { withServices } from "../../../access/confined-services";
import { action, fieldOf, listed, onTypes } from "../action";
import { restBody } from "../../../lib/rest-body";
import { entityDeclarations } from "../../../definition/language/actions/entity";

/** The types a query brings in beside its own: `include` names them, `includeSpecs` items carry them. */
const includedTypes = (config: Record<string, unknown>) => [...listed(config.include), ...listed(config.includeSpecs).map((spec) => fieldOf(spec, "typeName"))];

export const queryEntity = action(entityDeclarations.queryEntity, {
  permissions: (config) => onTypes("read", [config.typeName, ...includedTypes(config)]),
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const result =
        "aggregates" in config
          ? await aggregateGroups(services.tenant, ctx.env.MASTER_KEY, restBody<AggregateInput>(aggregateBody, config))
          : await runQuery(services.tenant, ctx.env.MASTER_KEY, restBody<QueryInput>(queryBody, config));
      return { kind: "success", result };
    });
  },
});
