// /entity/query (docs/query.md)
import { route } from "../../gateway/route";
import { TYPE_NAME } from "../entity-types/schemas";
import { distinctValues } from "./distinct";
import { objectWithRaw } from "../../lib/raw-json";
import { queryPage } from "./service";
import { warningsField } from "./warnings";
import { filterSchema, queryBody, warningsSchema, queryAnswer } from "./schemas";

export const queryRoutes = [
  route({
    operation: "queryEntities",
    method: "post",
    path: "/entity/query",
    tag: "query",
    summary: "Filter, sort and page the entities of one type, with includes and counts",
    permission: ["entity", "read"],
    overHttp: true,
    body: queryBody,
    responses: {
      200: { description: "A page of entities", schema: queryAnswer },
      404: { description: "Unknown type_name" },
      422: { description: "Invalid filter, sort, cursor or paging" },
    },
    handler: async (c, { body }) => {
      const { json, paging } = await queryPage(c.var.ctx.tenant, c.env.MASTER_KEY, body);
      return c.body(objectWithRaw("data", json, paging), 200, { "Content-Type": "application/json" });
    },
  }),
  route({
    operation: "queryDistinct",
    method: "post",
    path: "/entity/query/distinct",
    tag: "query",
    summary: "The distinct values of one indexed attribute",
    permission: ["entity", "read"],
    overHttp: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["type_name", "attribute_name"],
      properties: {
        type_name: TYPE_NAME,
        attribute_name: { type: "string", minLength: 1, maxLength: 500, description: "The indexed attribute, its path segments joined by dots" },
        filter: filterSchema,
        limit: { type: "integer", minimum: 1, maximum: 1000 },
      },
    },
    responses: {
      200: {
        description: "Distinct values, ascending",
        schema: {
          type: "object",
          required: ["data"],
          properties: {
            data: { type: "array", items: { description: "A value as the attribute's indexed type gives it: text, number, boolean or timestamp text" } },
            warnings: warningsSchema,
          },
        },
      },
      404: { description: "Unknown type_name" },
      422: { description: "attribute_name is not an indexed attribute" },
    },
    handler: async (c, { body }) => {
      const { values, warnings } = await distinctValues(c.var.ctx.tenant, body);
      return c.json({ data: values, ...warningsField(warnings) });
    },
  }),
];
