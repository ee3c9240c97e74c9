// `removeRelationships`: links removed (soft-deleted) in one transaction,
// chosen one of two ways: `ids` (up to 100 link ids, as DELETE
// /entity/relationships/{id} for each), or a rule (`ruleName` or `ruleId`)
// and `fromEntityId` with, optionally, `toEntityId`: every live link of the
// rule from that entity, or only the one to `toEntityId`. Each end of a
// removed link needs update, as the route checks. The result is
// `{ deleted, not_found }` as a bulk delete answers: link ids removed, and
// the given `ids` that matched no live link (always empty by ends, where an
// unknown rule or entity is a 404 instead).
import { removeLinks, removeLinksBetween } from "../../../entity/relationships/link-set";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { restBody } from "../../../lib/rest-body";
import { entityDeclarations, removeLinksBody } from "../../../definition/language/actions/entity";

type RemoveInput = { ids: string[] } | { rule_id?: string; rule_name?: string; from_entity_id: string; to_entity_id?: string; ids?: undefined };

export const removeRelationships = action(entityDeclarations.removeRelationships, {
  permissions: ["entity:read", "entity:update"],
  async execute(config, _invocation, ctx) {
    const input = restBody<RemoveInput>(removeLinksBody, config);
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: input.ids ? await removeLinks(services.tenant, input.ids) : await removeLinksBetween(services.tenant, input),
    }));
  },
});
