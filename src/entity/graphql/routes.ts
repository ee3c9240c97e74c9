// /entity/graphql (docs/api.md, GraphQL): the tenant's
// entities through GraphQL, answered by the REST query engine (resolvers.ts).
import { route } from "../../gateway/route";
import { tenantSchema } from "./catalog";
import { executeGraphql } from "./execute";
import { formattedError } from "./schemas";

export const graphqlRoutes = [
  route({
    operation: "getGraphqlSchema",
    method: "get",
    path: "/entity/graphql/schema",
    tag: "graphql",
    summary: "The tenant's GraphQL schema, in SDL",
    permission: ["entity", "read"],
    responses: { 200: { description: "The schema as GraphQL SDL", contentType: "text/plain", schema: { type: "string" } } },
    handler: async (c) => c.text((await tenantSchema(c.var.ctx.tenant)).sdl()),
  }),
  route({
    operation: "graphql",
    method: "post",
    path: "/entity/graphql",
    tag: "graphql",
    summary: "Run a GraphQL query over the tenant's entities",
    permission: ["entity", "read"],
    body: {
      type: "object",
      additionalProperties: false,
      required: ["query"],
      properties: {
        query: { type: "string", minLength: 1 },
        variables: { type: ["object", "null"], additionalProperties: true },
        operationName: { type: ["string", "null"] },
        extensions: { type: ["object", "null"], additionalProperties: true, description: "Accepted for GraphQL-over-HTTP clients; unused" },
      },
    },
    responses: {
      200: {
        description: "The GraphQL response; GraphQL errors (syntax, validation, limits, a failed field) are in errors with extensions.code",
        schema: {
          type: "object",
          description: "data when the operation ran, errors when anything failed: at least one of the two",
          required: [],
          properties: { data: { type: ["object", "null"], additionalProperties: true }, errors: { type: "array", items: formattedError } },
        },
      },
    },
    handler: async (c, { body }) => c.json(await executeGraphql({ tenant: c.var.ctx.tenant, cursorSecret: c.var.ctx.secret, log: c.var.ctx.log }, body)),
  }),
];
