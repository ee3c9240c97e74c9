// /entity/entities (docs/api.md, Entities), except upsert, import and export.
import { route } from "../../gateway/route";
import { dataEnvelope, exactlyOneOf, freeFormObject, listEnvelope, paginationQuery, softDeleted, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { validate, validationFailed } from "../../lib/validate";
import { guardJson } from "../../lib/input-guard";
import { TYPE_NAME } from "../entity-types/schemas";
import { bulkDeleteEntities, createEntity, deleteEntity, getEntity, listEntities, patchEntity, replaceEntity, type IncludeQuery } from "./service";
import { entitySchema, includeSpecsSchema, includeQuery, mergeOptions, bulkDeleteBody } from "./schemas";

/** include_specs travels in a query string as JSON; parse and check it like any body. */
function parseIncludeSpecs(raw: string | undefined): IncludeQuery["include_specs"] {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationFailed(["include_specs: must be a JSON array"], "include_specs must be a JSON array");
  }
  guardJson(parsed, { base: "include_specs", source: raw, message: "Query parameters failed validation" });
  return validate(includeSpecsSchema, parsed, "Query parameters failed validation");
}

const attributesSchema = freeFormObject;

export const entityRoutes = [
  route({
    operation: "listEntities",
    method: "get",
    path: "/entity/entities",
    tag: "entities",
    summary: "List entities of one type",
    permission: ["entity", "read"],
    query: { type: "object", additionalProperties: false, required: ["type_name"], properties: { type_name: TYPE_NAME, ...paginationQuery, ...includeQuery } },
    responses: {
      200: { description: "Entities", schema: listEnvelope(entitySchema) },
      404: { description: "Unknown type_name (or an include names an unknown type or rule)" },
    },
    handler: async (c, { query }) =>
      c.json(await listEntities(c.var.ctx.tenant, { ...query, include_specs: parseIncludeSpecs(query.include_specs) }, pageOf(query))),
  }),
  route({
    operation: "createEntity",
    method: "post",
    path: "/entity/entities",
    tag: "entities",
    summary: "Create an entity; emits created",
    permission: ["entity", "create"],
    overHttp: true,
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["name", "attributes"],
      properties: { type_name: TYPE_NAME, type_id: uuidSchema, name: { type: "string", minLength: 1, maxLength: 1000 }, attributes: attributesSchema },
      ...exactlyOneOf("type_name", "type_id"),
    },
    responses: {
      201: { description: "Created", schema: dataEnvelope(entitySchema) },
      404: { description: "Unknown type_name" },
      409: { description: "identifier_key taken by a live entity" },
    },
    handler: async (c, { body }) => c.json({ data: await createEntity(c.var.ctx, body) }, 201),
  }),
  route({
    operation: "getEntity",
    method: "get",
    path: "/entity/entities/:id",
    tag: "entities",
    summary: "Get an entity, optionally with relationships",
    permission: ["entity", "read"],
    params: { id: uuidSchema },
    query: {
      type: "object",
      additionalProperties: false,
      properties: { ...includeQuery, include_rule_ids: { type: "array", items: uuidSchema, maxItems: 50 } },
    },
    responses: { 200: { description: "Entity", schema: dataEnvelope(entitySchema) }, 404: { description: "Unknown entity" } },
    handler: async (c, { params, query }) =>
      c.json({ data: await getEntity(c.var.ctx.tenant, params.id, { ...query, include_specs: parseIncludeSpecs(query?.include_specs) }) }),
  }),
  route({
    operation: "replaceEntity",
    method: "put",
    path: "/entity/entities/:id",
    tag: "entities",
    summary: "Replace attributes; recompute the key and merge on collision",
    overHttp: true,
    permission: ["entity", "update"],
    params: { id: uuidSchema },
    body: {
      type: "object",
      additionalProperties: false,
      required: ["attributes"],
      properties: { name: { type: "string", minLength: 1, maxLength: 1000 }, attributes: attributesSchema, ...mergeOptions },
    },
    responses: {
      200: { description: "Updated", schema: dataEnvelope(entitySchema) },
      404: { description: "Unknown entity" },
      409: { description: "Key collision with merge_on_conflict false" },
    },
    handler: async (c, { params, body }) => c.json({ data: await replaceEntity(c.var.ctx, params.id, body) }),
  }),
  route({
    operation: "patchEntityAttributes",
    method: "patch",
    path: "/entity/entities/:id/attributes",
    tag: "entities",
    summary: "Merge top-level attributes (null removes); compare-and-swap on updated_at",
    overHttp: true,
    permission: ["entity", "update"],
    params: { id: uuidSchema },
    body: {
      type: "object",
      additionalProperties: false,
      required: ["attributes"],
      properties: { attributes: attributesSchema, expected_updated_at: { type: "string", format: "date-time" } },
    },
    responses: {
      200: { description: "Updated", schema: dataEnvelope(entitySchema) },
      404: { description: "Unknown entity" },
      409: { description: "CONCURRENT_MODIFICATION" },
    },
    handler: async (c, { params, body }) => c.json({ data: await patchEntity(c.var.ctx, params.id, body) }),
  }),
  route({
    operation: "deleteEntity",
    method: "delete",
    path: "/entity/entities/:id",
    tag: "entities",
    summary: "Soft-delete an entity and its links",
    overHttp: true,
    permission: ["entity", "delete"],
    params: { id: uuidSchema },
    responses: {
      200: { description: "Deleted", schema: dataEnvelope(softDeleted) },
      404: { description: "Unknown entity" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteEntity(c.var.ctx, params.id) }),
  }),
  route({
    operation: "bulkDeleteEntities",
    method: "post",
    path: "/entity/entities/bulk-delete",
    tag: "entities",
    summary: "Soft-delete up to 100 entities",
    overHttp: true,
    permission: ["entity", "delete"],
    body: bulkDeleteBody,
    responses: {
      200: {
        description: "Which ids were deleted and which were not found (unknown, another tenant's or already deleted)",
        schema: dataEnvelope({
          type: "object",
          required: ["deleted", "not_found"],
          properties: { deleted: { type: "array", items: uuidSchema }, not_found: { type: "array", items: uuidSchema } },
        }),
      },
    },
    handler: async (c, { body }) => c.json({ data: await bulkDeleteEntities(c.var.ctx, body.ids) }),
  }),
];
