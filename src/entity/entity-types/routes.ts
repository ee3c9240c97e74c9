// /entity/entity-types
import { route } from "../../lib/route";
import { dataEnvelope, exactlyOneOf, forbidden, freeFormObject, listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { configSchema, indexedAttributeSchema } from "./config";
import { activateType, createType, getType, listTypes, patchType } from "./service";

export const TYPE_NAME = { type: "string", minLength: 1, maxLength: 100, pattern: "^[A-Za-z][A-Za-z0-9_]*$" } as const;

/** The config as stored and answered: every field there, defaults filled in. */
const storedConfig = {
  ...configSchema,
  required: ["identifier_key", "indexed_attributes", "sort_by_updated_at", "name_search"],
  properties: {
    ...configSchema.properties,
    indexed_attributes: {
      ...configSchema.properties.indexed_attributes,
      items: { ...indexedAttributeSchema, required: ["path", "type", "filterable", "sortable", "searchable"] },
    },
  },
} as const;

const entityTypeItem = {
  type: "object",
  required: ["id", "name", "status", "schema", "schema_name", "config", "created_at", "updated_at"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: ["draft", "active"] },
    schema: { type: ["object", "boolean"], additionalProperties: true, description: "The JSON Schema entities are validated against (a registered one may be a boolean)" },
    schema_name: { type: ["string", "null"] },
    config: storedConfig,
    created_at: { type: "string" },
    updated_at: { type: "string" },
  },
} as const;

const patchConfigSchema = { ...configSchema, required: [] } as const;

export const entityTypeRoutes = [
  route({
    method: "post",
    path: "/entity/entity-types",
    tag: "entity-types",
    summary: "Create an entity type (inline schema or registered schema name)",
    permission: ["entity_type", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["name", "config"],
      properties: {
        name: TYPE_NAME,
        schema: freeFormObject,
        schema_name: { type: "string", minLength: 1 },
        status: { enum: ["draft", "active"] },
        config: configSchema,
      },
      ...exactlyOneOf("schema", "schema_name"),
    },
    responses: { 201: { description: "Created", schema: dataEnvelope(entityTypeItem) }, 409: { description: "Name taken" } },
    handler: async (c, { body }) => c.json({ data: await createType(c.var.ctx.tenant, body) }, 201),
  }),
  route({
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
    method: "patch",
    path: "/entity/entity-types/:id",
    tag: "entity-types",
    summary: "Change config (indexed attributes, tri-states) or schema; indexes follow",
    permission: ["entity_type", "update"],
    params: { id: uuidSchema },
    body: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      properties: { schema: freeFormObject, schema_name: { type: "string", minLength: 1 }, config: patchConfigSchema },
      // A patch may leave the schema as it is, but names at most one of its forms.
      dependentSchemas: { schema: { properties: { schema_name: forbidden } } },
    },
    responses: { 200: { description: "Updated", schema: dataEnvelope(entityTypeItem) }, 404: { description: "Unknown type" } },
    handler: async (c, { params, body }) => c.json({ data: await patchType(c.var.ctx.tenant, params.id, body) }),
  }),
  route({
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
