// Request and response schemas of entity/relationships: the routes validate with them and
// document them, and service input types are derived from them.
import { exactlyOneOf, uuidSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/schemas";

export const RULE_NAME = { type: "string", minLength: 1, maxLength: 200 } as const;

// Stored as Postgres integer: a larger cap would fail the insert, and no tenant links two billion entities to one.
export const CAP = { type: ["integer", "null"], minimum: 1, maximum: 2_147_483_647 } as const;

export const typeRef = { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: "string" } } } as const;

export const ruleItem = {
  type: "object",
  required: ["id", "name", "from_entity_type", "to_entity_type", "max_from_cardinality", "max_to_cardinality", "created_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    from_entity_type: typeRef,
    to_entity_type: typeRef,
    max_from_cardinality: { type: ["integer", "null"], description: "How many live links one `to` entity may have" },
    max_to_cardinality: { type: ["integer", "null"], description: "How many live links one `from` entity may have" },
    created_at: { type: "string" },
  },
} as const;

export const linkItem = {
  type: "object",
  required: ["id", "rule", "from_entity_id", "to_entity_id", "created_at"],
  properties: { id: { type: "string" }, rule: typeRef, from_entity_id: { type: "string" }, to_entity_id: { type: "string" }, created_at: { type: "string" } },
} as const;

/** POST /entity/relationships; the upsertRelationship action takes the same body. */
export const linkBody = {
  type: "object",
  additionalProperties: false,
  required: ["from_entity_id", "to_entity_id"],
  properties: {
    rule_id: uuidSchema,
    rule_name: RULE_NAME,
    from_entity_id: uuidSchema,
    to_entity_id: uuidSchema,
    on_cardinality_violation: { enum: ["raise", "replace", "ignore"] },
  },
  ...exactlyOneOf("rule_id", "rule_name"),
} as const;

export const createRuleBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: RULE_NAME,
    from_entity_type_name: TYPE_NAME,
    from_entity_type_id: uuidSchema,
    to_entity_type_name: TYPE_NAME,
    to_entity_type_id: uuidSchema,
    max_from_cardinality: CAP,
    max_to_cardinality: CAP,
  },
  allOf: [exactlyOneOf("from_entity_type_name", "from_entity_type_id"), exactlyOneOf("to_entity_type_name", "to_entity_type_id")],
} as const;
