// /event/events: the entity event records, read-only, newest last, keyset-paged.
import { route } from "../lib/route";
import { freeFormObject, uuidSchema } from "../lib/schemas";
import { listEvents } from "./service";

const eventItem = {
  type: "object",
  required: ["id", "action", "entity_id", "entity_type", "suppressed", "payload", "created_at", "delivered_at"],
  properties: {
    id: { type: "string" },
    action: { enum: ["created", "updated", "deleted", "merged"] },
    entity_id: { type: "string" },
    entity_type: { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: ["string", "null"] } } },
    suppressed: { type: "boolean" },
    payload: { ...freeFormObject, description: "The entity as the event left it (payload.entity), with what the action adds" },
    created_at: { type: "string" },
    delivered_at: { type: ["string", "null"] },
  },
} as const;

export const eventRoutes = [
  route({
    method: "get",
    path: "/event/events",
    tag: "events",
    summary: "List entity events (oldest first), filtered by entity, type or action; keyset-paged",
    permission: ["event", "read"],
    query: {
      type: "object",
      additionalProperties: false,
      properties: {
        entity_id: uuidSchema,
        entity_type_id: uuidSchema,
        type_name: { type: "string" },
        action: { enum: ["created", "updated", "deleted", "merged"] },
        limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
        cursor: { type: "string", maxLength: 500 },
      },
    },
    responses: {
      200: {
        description: "Events; next_cursor only when a full page came back",
        schema: { type: "object", required: ["data"], properties: { data: { type: "array", items: eventItem }, next_cursor: { type: "string" } } },
      },
    },
    handler: async (c, { query }) => c.json(await listEvents(c.var.ctx.tenant, c.env.MASTER_KEY, query ?? {})),
  }),
];
