// /event/events: the entity event records, read-only, newest last, keyset-paged.
import { route } from "../gateway/route";
import { uuidSchema } from "../lib/schemas";
import { listEvents } from "./service";
import { eventItem } from "./schemas";

export const eventRoutes = [
  route({
    operation: "listEvents",
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
