// The entity actions: the REST routes of /entity (query, query-graph,
// upsert, bulk delete, relationships) as actions. Each config is the route's
// body in camelCase; the engine's module turns it back (lib/rest-body.ts).
import { bulkDeleteBody } from "../../../entity/entities/schemas";
import { aggregateBody } from "../../../entity/query/aggregate/schemas";
import { graphBody, queryBody } from "../../../entity/query/schemas";
import { MAX_REMOVE_IDS, MAX_SYNC_TARGETS } from "../../../entity/relationships/link-set";
import { linkBody, RULE_NAME } from "../../../entity/relationships/schemas";
import { rowSchema } from "../../../entity/upsert/rows";
import { upsertBody } from "../../../entity/upsert/schemas";
import { camelSchema } from "../../../lib/rest-body";
import { exactlyOneOf, forbidden, uuidSchema } from "../../../lib/schemas";
import { declareAction } from "./declare";

/**
 * The upsert body with its rows described, as the route documents it: here
 * the rows are checked with the config, so a bad row is refused at its path.
 */
export const upsertRowsBody = { ...upsertBody, properties: { ...upsertBody.properties, data: { ...upsertBody.properties.data, items: rowSchema } } };

/** `removeRelationships`: `ids`, or a rule and `from_entity_id` (with, optionally, `to_entity_id`). */
export const removeLinksBody = {
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

/** `syncRelationships`: one entity's links under a rule made exactly `target_ids`. */
export const syncLinksBody = {
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

export const entityDeclarations = {
  queryEntity: declareAction({
    name: "queryEntity",
    configSchema: { if: { type: "object", required: ["aggregates"] }, then: camelSchema(aggregateBody), else: camelSchema(queryBody) },
  }),
  queryEntityGraph: declareAction({ name: "queryEntityGraph", configSchema: camelSchema(graphBody) }),
  upsertEntity: declareAction({ name: "upsertEntity", configSchema: camelSchema(upsertRowsBody) }),
  removeEntities: declareAction({ name: "removeEntities", configSchema: camelSchema(bulkDeleteBody) }),
  upsertRelationship: declareAction({ name: "upsertRelationship", configSchema: camelSchema(linkBody) }),
  removeRelationships: declareAction({ name: "removeRelationships", configSchema: camelSchema(removeLinksBody) }),
  syncRelationships: declareAction({ name: "syncRelationships", configSchema: camelSchema(syncLinksBody) }),
};
