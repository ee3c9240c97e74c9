// /entity/query (docs/query.md)
import { route } from "../../lib/route";
import { paginationQuery, paginationSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/routes";
import { entitySchema } from "../entities/routes";
import { distinctValues } from "./distinct";
import { objectWithRaw } from "../../lib/raw-json";
import { MAX_DISTINCT_PATHS, queryPage } from "./service";
import { warningsField } from "./warnings";

const pathSchema = { type: "array", items: { type: "string", minLength: 1, maxLength: 500 }, minItems: 1, maxItems: 12 } as const;
export const sortSchema = {
  type: "array",
  maxItems: 10,
  items: { type: "object", additionalProperties: false, required: ["path"], properties: { path: pathSchema, direction: { enum: ["asc", "desc"] } } },
} as const;
export const filterSchema = { type: "object", additionalProperties: true, description: "A particle { operator, path, value, optional?, threshold? } or a composite { operator: and|or|not, filters }" } as const;

export const queryBody = {
  type: "object",
  additionalProperties: false,
  required: ["type_name"],
  properties: {
    type_name: TYPE_NAME,
    filter: filterSchema,
    sort: sortSchema,
    page: paginationQuery.page,
    limit: paginationQuery.limit,
    cursor: { type: "string", minLength: 1, maxLength: 4096 },
    include: { type: "array", items: TYPE_NAME, maxItems: 20 },
    include_specs: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type_name"],
        properties: { type_name: TYPE_NAME, rule_name: { type: "string", minLength: 1 }, filter: filterSchema, sort: sortSchema, limit: { type: "integer", minimum: 1, maximum: 1000 } },
      },
    },
    max_relationships: { type: "integer", minimum: 1, maximum: 1000 },
    include_count: { type: "boolean" },
    count_strategy: { enum: ["exact", "capped", "estimate"] },
    distinct_on: {
      type: "object",
      additionalProperties: false,
      required: ["paths"],
      properties: { paths: { type: "array", items: pathSchema, minItems: 1, maxItems: MAX_DISTINCT_PATHS }, sort: sortSchema },
    },
  },
} as const;

/** Beside `data` when the request names paths or types nothing answers to; left out when there are none. */
export const warningsSchema = {
  type: "array",
  minItems: 1,
  items: { type: "string" },
  description:
    "`<where>: <what>` lines, one per filter, sort, distinct_on or include path the type's schema does not define, path that names no entity field, or type the caller cannot read (unknown and unreadable types are worded alike). Such a path still matches nothing, sorts as a constant or brings nothing.",
} as const;

const queryAnswer = {
  type: "object",
  required: ["data"],
  properties: {
    data: { type: "array", items: entitySchema },
    next_cursor: { type: "string", description: "Keyset paging: present only when a full page came back" },
    pagination: { ...paginationSchema, description: "Offset paging (the body had page)" },
    count: { type: "integer" },
    count_strategy: { enum: ["exact", "capped", "estimate"] },
    warnings: warningsSchema,
  },
} as const;

export const queryRoutes = [
  route({
    method: "post",
    path: "/entity/query",
    tag: "query",
    summary: "Filter, sort and page the entities of one type, with includes and counts",
    permission: ["entity", "read"],
    body: queryBody,
    responses: { 200: { description: "A page of entities", schema: queryAnswer }, 404: { description: "Unknown type_name" }, 422: { description: "Invalid filter, sort, cursor or paging" } },
    handler: async (c, { body }) => {
      const { json, paging } = await queryPage(c.var.ctx.tenant, c.env.MASTER_KEY, body);
      return c.body(objectWithRaw("data", json, paging), 200, { "Content-Type": "application/json" });
    },
  }),
  route({
    method: "post",
    path: "/entity/query/distinct",
    tag: "query",
    summary: "The distinct values of one indexed attribute",
    permission: ["entity", "read"],
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
          properties: { data: { type: "array", items: { description: "A value as the attribute's indexed type gives it: text, number, boolean or timestamp text" } }, warnings: warningsSchema },
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
