// `upsertRelationship`: POST /entity/relationships as an action: one link
// under a rule (`ruleName` or `ruleId`), the rule's caps applied as
// `onCardinalityViolation` says (`raise`: 409, `replace`: the oldest link
// at the full end goes, `ignore`: 422 naming the violation, nothing written).
// The result is the link as the route answers it. Where the route answers
// 409 LINK_EXISTS, the action answers the live link already there: "upsert"
// makes sure the link exists, so a replayed attempt does not fail.
import { ApiError } from "../../../lib/errors";
import { createLink, getLink, type CreateLinkInput } from "../../../entity/relationships/links";
import { linkBody } from "../../../entity/relationships/schemas";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { restBody } from "../../../lib/rest-body";
import { entityDeclarations } from "../../../definition/language/actions/entity";

export const upsertRelationship = action(entityDeclarations.upsertRelationship, {
  permissions: ["entity:read", "entity:update"],
  async execute(config, _invocation, ctx) {
    const input = restBody<CreateLinkInput>(linkBody, config);
    return withServices(ctx, async (services) => {
      try {
        return { kind: "success", result: await createLink(services.tenant, input) };
      } catch (e) {
        // createLink checked update on both ends before it found the link.
        const existing = e instanceof ApiError && e.details?.code === "LINK_EXISTS" ? (e.details.relationship_id as string) : undefined;
        if (!existing) throw e;
        return { kind: "success", result: await getLink(services.tenant, existing) };
      }
    });
  },
});
