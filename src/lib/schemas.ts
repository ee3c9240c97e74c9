// JSON Schema fragments shared by several routes.

export const uuidSchema = {
  type: "string",
  pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
} as const;


export const errorEnvelope = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["status", "code", "message", "details"],
      properties: {
        status: { type: "integer" },
        code: { type: "string" },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
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

export function dataEnvelope(schema: object) {
  return { type: "object", required: ["data"], properties: { data: schema } } as const;
}

export function listEnvelope(item: object) {
  return { type: "object", required: ["data", "pagination"], properties: { data: { type: "array", items: item }, pagination: paginationSchema } } as const;
}
