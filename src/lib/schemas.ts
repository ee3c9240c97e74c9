// JSON Schema fragments shared by several routes.
import { ERROR_STATUS, type ErrorCode } from "./errors";
import type { JSONSchema } from "json-schema-to-ts";

export const uuidSchema = {
  type: "string",
  pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
} as const;

/**
 * An object of any keys (attributes, a JSON Schema, a filter). Said
 * explicitly: generated clients read a bare `{ type: "object" }` as an object
 * with no keys at all.
 */
export const freeFormObject = { type: "object", additionalProperties: true } as const;

/** Bytes as they are, in a request or response of a non-JSON media type. */
export const binarySchema = { type: "string", format: "binary" } as const;

export const errorEnvelope = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["status", "code", "message", "details"],
      properties: {
        status: { type: "integer" },
        code: { enum: Object.keys(ERROR_STATUS) as ErrorCode[] },
        message: { type: "string" },
        details: {
          type: "object",
          required: ["request_id"],
          properties: {
            request_id: { type: "string" },
            code: { type: "string", description: "Tells apart the reasons that share one status" },
          },
          additionalProperties: true,
        },
      },
    },
  },
} as const;

export const paginationQuery = {
  page: { type: "integer", minimum: 1, maximum: 1_000_000, default: 1 },
  limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
} as const;

export const paginationSchema = {
  type: "object",
  required: ["page", "limit", "total", "total_pages"],
  properties: { page: { type: "integer" }, limit: { type: "integer" }, total: { type: "integer" }, total_pages: { type: "integer" } },
} as const;

/** What a hard delete answers. */
export const deleted = { type: "object", required: ["id", "deleted"], properties: { id: uuidSchema, deleted: { const: true } } } as const;

/** What a soft delete answers. */
export const softDeleted = {
  type: "object",
  required: ["id", "deleted", "deleted_at"],
  properties: { id: uuidSchema, deleted: { const: true }, deleted_at: { type: "string" } },
} as const;

export function dataEnvelope(schema: object) {
  return { type: "object", required: ["data"], properties: { data: schema } } as const;
}

export function listEnvelope(item: object) {
  return { type: "object", required: ["data", "pagination"], properties: { data: { type: "array", items: item }, pagination: paginationSchema } } as const;
}

/** Matches nothing. Not `false`: @cfworker reports a `false` schema's error outside its oneOf branch. */
export const forbidden = { not: {} } as const;

/**
 * "Exactly one of `a` and `b`", spread into an object schema: each branch
 * requires one and forbids the other, so the line names what to add or drop.
 */
export function exactlyOneOf<const A extends string, const B extends string>(a: A, b: B) {
  return {
    oneOf: [
      { required: [a], properties: { [b]: forbidden } as Record<B, typeof forbidden> },
      { required: [b], properties: { [a]: forbidden } as Record<A, typeof forbidden> },
    ],
  } as const;
}

/**
 * A document language's JSON Schema as OpenAPI components: its `$defs`
 * become components named `<prefix><Def>`, with every `#/$defs/...`
 * reference rewritten, since references in the served OpenAPI document
 * resolve against that document's root.
 */
export function schemaComponents(name: string, prefix: string, schema: { $defs?: Record<string, unknown> }) {
  const component = (def: string) => `${prefix}${def[0].toUpperCase()}${def.slice(1)}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\/(\w+)$/, (_, def: string) => `#/components/schemas/${component(def)}`) : rewrite(v),
      ]),
    );
  };
  const { $defs = {}, $schema: _, ...top } = schema as { $defs?: Record<string, unknown>; $schema?: string };
  const components = Object.fromEntries([[name, rewrite(top)], ...Object.entries($defs).map(([def, s]) => [component(def), rewrite(s)])]);
  return { ref: { $ref: `#/components/schemas/${name}` } as const, components: components as Record<string, JSONSchema> };
}
