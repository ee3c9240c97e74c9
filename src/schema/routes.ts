// /schema/*: registered JSON schemas and validation.
import { route } from "../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery } from "../lib/schemas";
import { pageOf } from "../lib/pagination";
import { getSchema, listSchemas, registerSchema, validateAgainst } from "./registry";
import { JSON_SCHEMA, NAME, schemaItem } from "./schemas";

export const schemaRoutes = [
  route({
    operation: "createSchema",
    method: "post",
    path: "/schema/schemas",
    tag: "schema",
    summary: "Register a JSON schema (a name registered again gets the next version)",
    permission: ["schema", "create"],
    idempotent: true,
    body: { type: "object", additionalProperties: false, required: ["name", "schema"], properties: { name: NAME, schema: JSON_SCHEMA } },
    responses: { 201: { description: "Registered", schema: dataEnvelope(schemaItem) } },
    handler: async (c, { body }) => c.json({ data: await registerSchema(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listSchemas",
    method: "get",
    path: "/schema/schemas",
    tag: "schema",
    summary: "List registered schemas (latest version of each name)",
    permission: ["schema", "read"],
    query: { type: "object", additionalProperties: false, properties: paginationQuery },
    responses: { 200: { description: "Schemas", schema: listEnvelope(schemaItem) } },
    handler: async (c, { query }) => c.json(await listSchemas(c.var.ctx.tenant, pageOf(query))),
  }),
  route({
    operation: "getSchema",
    method: "get",
    path: "/schema/schemas/:idOrName",
    tag: "schema",
    summary: "Get a schema by id, or the latest version by name",
    permission: ["schema", "read"],
    responses: { 200: { description: "Schema", schema: dataEnvelope(schemaItem) }, 404: { description: "Unknown schema" } },
    handler: async (c) => c.json({ data: await getSchema(c.var.ctx.tenant, c.req.param("idOrName") ?? "") }),
  }),
  route({
    operation: "validateAgainstSchema",
    method: "post",
    path: "/schema/validate",
    tag: "schema",
    summary: "Validate data against a registered or inline schema",
    permission: ["schema", "read"],
    body: {
      type: "object",
      additionalProperties: false,
      required: ["data"],
      oneOf: [{ required: ["schema_name"] }, { required: ["schema"] }],
      properties: { schema_name: NAME, schema: JSON_SCHEMA, data: {} },
    },
    examples: {
      request: { schema_name: "order", data: { sku: "A-1", quantity: 2 } },
      response: { data: { valid: false, errors: ["quantity: must be integer, got string"] } },
    },
    responses: {
      200: {
        description: "Validation outcome (an invalid document is a 200 with valid: false)",
        schema: dataEnvelope({
          type: "object",
          required: ["valid", "errors"],
          properties: { valid: { type: "boolean" }, errors: { type: "array", items: { type: "string" } } },
        }),
      },
      404: { description: "Unknown schema_name" },
    },
    handler: async (c, { body }) => c.json({ data: await validateAgainst(c.var.ctx.tenant, body as never) }),
  }),
];
