// `removeEntities`: POST /entity/entities/bulk-delete as an action: up to 100
// ids soft-deleted with their links in one transaction, as the route does.
// The result is the route's `data`: `deleted` and `not_found` (unknown,
// another tenant's or already deleted).
import { bulkDeleteEntities } from "../../../entity/entities/service";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { entityDeclarations } from "../../../definition/language/actions/entity";

export const removeEntities = action(entityDeclarations.removeEntities, {
  permissions: ["entity:read", "entity:delete"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      try {
        return { kind: "success", result: await bulkDeleteEntities(services.entity, config.ids) };
      } finally {
        await services.published();
      }
    });
  },
});
