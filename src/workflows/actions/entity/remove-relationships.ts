// `removeRelationships`: links removed (soft-deleted) in one transaction,
// chosen one of two ways: `ids` (up to 100 link ids, as DELETE
// /entity/relationships/{id} for each), or a rule (`ruleName` or `ruleId`)
// and `fromEntityId` with, optionally, `toEntityId`: every live link of the
// rule from that entity, or only the one to `toEntityId`. Each end of a
// removed link needs update, as the route checks. The result is
// `{ deleted, not_found }` as a bulk delete answers: link ids removed, and
// the given `ids` that matched no live link (always empty by ends, where an
// unknown rule or entity is a 404 instead).
import { exactlyOneOf, forbidden, uuidSchema } from "../../../lib/schemas";
import { MAX_REMOVE_IDS, removeLinks, removeLinksBetween } from "../../../entity/relationships/link-set";
import { RULE_NAME } from "../../../entity/relationships/schemas";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { camelSchema, restBody } from "../../../lib/rest-body";

const body = {
  type: "object",
  additionalProperties: false,
  properties: {
    ids: { type: "array", items: uuidSchema, minItems: 1, maxItems: MAX_REMOVE_IDS },
    rule_id: uuidSchema,
    rule_name: RULE_NAME,
    from_entity_id: uuidSchema,
    to_entity_id: uuidSchema,
  },
  oneOf: [
    { required: ["ids"], properties: { rule_id: forbidden, rule_name: forbidden, from_entity_id: forbidden, to_entity_id: forbidden } },
    { required: ["from_entity_id"], properties: { ids: forbidden }, ...exactlyOneOf("rule_id", "rule_name") },
  ],
} as const;

type RemoveInput = { ids: string[] } | { rule_id?: string; rule_name?: string; from_entity_id: string; to_entity_id?: string; ids?: undefined };

export const removeRelationships = action({
  name: "removeRelationships",
  permissions: ["entity:read", "entity:update"],
  configSchema: camelSchema(body),
  async execute(config, _invocation, ctx) {
    const input = restBody<RemoveInput>(body, config);
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: input.ids ? await removeLinks(services.tenant, input.ids) : await removeLinksBetween(services.tenant, input),
    }));
  },
});
