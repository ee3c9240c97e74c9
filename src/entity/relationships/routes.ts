// /entity/relationship-rules and /entity/relationships
import { route } from "../../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery, softDeleted, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { TYPE_NAME } from "../entity-types/schemas";
import { createLink, deleteLink, getLink } from "./links";
import { createRule, getRule, listRules } from "./rules";
import { RULE_NAME, ruleItem, linkItem, linkBody, createRuleBody } from "./schemas";

export const relationshipRoutes = [
  route({
    operation: "createRelationshipRule",
    method: "post",
    path: "/entity/relationship-rules",
    tag: "relationships",
    summary: "Create a relationship rule with cardinality caps",
    permission: ["entity_type", "create"],
    idempotent: true,
    body: createRuleBody,
    examples: {
      request: { name: "made_by", from_entity_type_name: "Product", to_entity_type_name: "Maker", max_from_cardinality: 1, max_to_cardinality: null },
    },
    responses: {
      201: { description: "Created", schema: dataEnvelope(ruleItem) },
      404: { description: "An entity type named by name or id is unknown" },
      409: { description: "Name taken" },
    },
    handler: async (c, { body }) => c.json({ data: await createRule(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listRelationshipRules",
    method: "get",
    path: "/entity/relationship-rules",
    tag: "relationships",
    summary: "List rules; with entity_type_name, those where that type is on either side",
    permission: ["entity_type", "read"],
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery, entity_type_name: TYPE_NAME, name: RULE_NAME } },
    responses: { 200: { description: "Rules", schema: listEnvelope(ruleItem) } },
    handler: async (c, { query }) => c.json(await listRules(c.var.ctx.tenant, { entity_type_name: query?.entity_type_name, name: query?.name }, pageOf(query))),
  }),
  route({
    operation: "getRelationshipRule",
    method: "get",
    path: "/entity/relationship-rules/:id",
    tag: "relationships",
    summary: "Get a relationship rule",
    permission: ["entity_type", "read"],
    params: { id: uuidSchema },
    responses: { 200: { description: "Rule", schema: dataEnvelope(ruleItem) }, 404: { description: "Unknown rule" } },
    handler: async (c, { params }) => c.json({ data: await getRule(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "createRelationship",
    method: "post",
    path: "/entity/relationships",
    tag: "relationships",
    summary: "Link two entities under a rule",
    permission: ["entity", "update"],
    idempotent: true,
    body: linkBody,
    responses: {
      201: { description: "Linked", schema: dataEnvelope(linkItem) },
      404: { description: "Unknown rule or entity" },
      409: { description: "Cardinality constraint violated (raise), or already linked" },
      422: { description: "Entity types do not fit the rule, or a violation was ignored" },
    },
    handler: async (c, { body }) => c.json({ data: await createLink(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "getRelationship",
    method: "get",
    path: "/entity/relationships/:id",
    tag: "relationships",
    summary: "Get a live link",
    permission: ["entity", "read"],
    params: { id: uuidSchema },
    responses: { 200: { description: "Link", schema: dataEnvelope(linkItem) }, 404: { description: "Unknown link" } },
    handler: async (c, { params }) => c.json({ data: await getLink(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "deleteRelationship",
    method: "delete",
    path: "/entity/relationships/:id",
    tag: "relationships",
    summary: "Remove a link (soft delete)",
    permission: ["entity", "update"],
    params: { id: uuidSchema },
    responses: {
      200: { description: "Removed", schema: dataEnvelope(softDeleted) },
      404: { description: "Unknown link" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteLink(c.var.ctx.tenant, params.id) }),
  }),
];
