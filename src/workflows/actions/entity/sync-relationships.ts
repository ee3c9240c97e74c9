// `syncRelationships`: makes one entity's live links under a rule exactly a
// given set, in one transaction: links to `targetIds` that are missing are
// added, links to other entities removed, the rest left as they are. `side`
// says which end of the rule the entity is on (`from` when absent). The
// rule's caps are checked after the removals and before the additions: over
// a cap it is 409 CARDINALITY_VIOLATION and nothing changes. The result is
// `{ added, removed, unchanged }`: the links added (as a link create answers
// them), the links removed (the same, with `deleted_at`) and how many stayed.
import { exactlyOneOf, uuidSchema } from "../../../lib/schemas";
import { MAX_SYNC_TARGETS, syncLinks, type SyncLinksInput } from "../../../entity/relationships/link-set";
import { RULE_NAME } from "../../../entity/relationships/schemas";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { camelSchema, restBody } from "../../../lib/rest-body";

const body = {
  type: "object",
  additionalProperties: false,
  required: ["entity_id", "target_ids"],
  properties: {
    rule_id: uuidSchema,
    rule_name: RULE_NAME,
    entity_id: uuidSchema,
    side: { enum: ["from", "to"] },
    target_ids: { type: "array", items: uuidSchema, maxItems: MAX_SYNC_TARGETS },
  },
  ...exactlyOneOf("rule_id", "rule_name"),
} as const;

export const syncRelationships = action({
  name: "syncRelationships",
  permissions: ["entity:read", "entity:update"],
  configSchema: camelSchema(body),
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => ({ kind: "success", result: await syncLinks(services.tenant, restBody<SyncLinksInput>(body, config)) }));
  },
});
