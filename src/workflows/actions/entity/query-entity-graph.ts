// `queryEntityGraph`: POST /entity/query-graph as an action. The config is
// the graph query body in camelCase (nested `include` entries too); the
// result is the route's answer: `data` with `roots`, `nodes`, `edges` and
// `page_info`, and `warnings` beside it when there are any.
import { graphBody } from "../../../entity/query/schemas";
import { runGraphQuery, type GraphQueryInput } from "../../../entity/query/graph";
import { withServices } from "../../../access/confined-services";
import { action, fieldOf, listed, onTypes } from "../action";
import { restBody } from "../../../lib/rest-body";
import { entityDeclarations } from "../../../definition/language/actions/entity";

/** The types of an include tree, each branch's and its nested ones'; a branch that is no object (a template) as itself, which reads as not literal. */
const graphTypes = (include: unknown): unknown[] =>
  listed(include).flatMap((branch) =>
    typeof branch === "object" && branch !== null && !Array.isArray(branch)
      ? [fieldOf(branch, "typeName"), ...graphTypes(fieldOf(branch, "include"))]
      : [branch],
  );

export const queryEntityGraph = action(entityDeclarations.queryEntityGraph, {
  permissions: (config) => onTypes("read", [config.typeName, ...graphTypes(config.include)]),
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: await runGraphQuery(services.tenant, ctx.env.MASTER_KEY, restBody<GraphQueryInput>(graphBody, config)),
    }));
  },
});
