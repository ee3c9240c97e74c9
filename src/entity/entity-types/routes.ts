// /entity/entity-types
import { route } from "../../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { activateType, createType, getType, listTypes, patchType } from "./service";
import { entityTypeItem, createTypeBody, patchTypeBody } from "./schemas";

export const entityTypeRoutes = [
  route({
    operation: "createEntityType",
    method: "post",
    path: "/entity/entity-types",
    tag: "entity-types",
    summary: "Create an entity type (inline schema or registered schema name)",
    permission: ["entity_type", "create"],
    idempotent: true,
    body: createTypeBody,
    responses: { 201: { description: "Created", schema: dataEnvelope(entityTypeItem) }, 409: { description: "Name taken" } },
    handler: async (c, { body }) => c.json({ data: await createType(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listEntityTypes",
    method: "get",
    path: "/entity/entity-types",
    tag: "entity-types",
    summary: "List entity types with their schemas and config",
    permission: ["entity_type", "read"],
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery, name: { type: "string" }, status: { enum: ["draft", "active"] } } },
    responses: { 200: { description: "Entity types", schema: listEnvelope(entityTypeItem) } },
    handler: async (c, { query }) => c.json(await listTypes(c.var.ctx.tenant, { name: query?.name, status: query?.status }, pageOf(query))),
  }),
  route({
    operation: "getEntityType",
    method: "get",
    path: "/entity/entity-types/:id",
    tag: "entity-types",
    summary: "Get an entity type",
    permission: ["entity_type", "read"],
    params: { id: uuidSchema },
    responses: { 200: { description: "Entity type", schema: dataEnvelope(entityTypeItem) }, 404: { description: "Unknown type" } },
    handler: async (c, { params }) => c.json({ data: await getType(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "updateEntityType",
    method: "patch",
    path: "/entity/entity-types/:id",
    tag: "entity-types",
    summary: "Change config (indexed attributes, tri-states) or schema; indexes follow",
    permission: ["entity_type", "update"],
    params: { id: uuidSchema },
    body: patchTypeBody,
    responses: { 200: { description: "Updated", schema: dataEnvelope(entityTypeItem) }, 404: { description: "Unknown type" } },
    handler: async (c, { params, body }) => c.json({ data: await patchType(c.var.ctx.tenant, params.id, body) }),
  }),
  route({
    operation: "activateEntityType",
    method: "post",
    path: "/entity/entity-types/:id/activate",
    tag: "entity-types",
    summary: "Move a draft type to active (idempotent)",
    permission: ["entity_type", "update"],
    params: { id: uuidSchema },
    responses: { 200: { description: "Active", schema: dataEnvelope(entityTypeItem) }, 404: { description: "Unknown type" } },
    handler: async (c, { params }) => c.json({ data: await activateType(c.var.ctx.tenant, params.id) }),
  }),
];
