// `syncRelationships`: makes one entity's live links under a rule exactly a
// given set, in one transaction: links to `targetIds` that are missing are
// added, links to other entities removed, the rest left as they are. `side`
// says which end of the rule the entity is on (`from` when absent). The
// rule's caps are checked after the removals and before the additions: over
// a cap it is 409 CARDINALITY_VIOLATION and nothing changes. The result is
// `{ added, removed, unchanged }`: the links added (as a link create answers
// them), the links removed (the same, with `deleted_at`) and how many stayed.
import { syncLinks, type SyncLinksInput } from "../../../entity/relationships/link-set";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { restBody } from "../../../lib/rest-body";
import { entityDeclarations, syncLinksBody } from "../../../definition/language/actions/entity";

export const syncRelationships = action(entityDeclarations.syncRelationships, {
  permissions: ["entity:read", "entity:update"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: await syncLinks(services.tenant, restBody<SyncLinksInput>(syncLinksBody, config)),
    }));
  },
});
