// /event/events: the entity event records, read-only, newest last, keyset-paged.
import { route } from "../lib/route";
import { uuidSchema } from "../lib/schemas";
import { decodeCursor, encodeCursor } from "../lib/cursor";

const eventItem = {
  type: "object",
  properties: {
    id: { type: "string" },
    action: { enum: ["created", "updated", "deleted", "merged"] },
    entity_id: { type: "string" },
    entity_type: { type: "object", properties: { id: { type: "string" }, name: { type: ["string", "null"] } } },
    suppressed: { type: "boolean" },
    payload: { type: "object" },
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
        schema: { type: "object", properties: { data: { type: "array", items: eventItem }, next_cursor: { type: "string" } } },
      },
    },
    handler: async (c, { query }) => {
      const q = query ?? {};
      const limit = q.limit ?? 100;
      const scope = `events:${JSON.stringify([q.entity_id, q.entity_type_id, q.type_name, q.action])}`;
      const after = q.cursor ? await decodeCursor(c.env.MASTER_KEY, scope, q.cursor) : null;
      const rows = await c.var.tenant.tx(async ({ query: run }) => {
        const { rows } = await run(
          `SELECT ev.id, ev.action, ev.entity_id, ev.entity_type_id, t.name AS type_name, ev.suppressed, ev.payload, ev.created_at, d.delivered_at
             FROM events ev LEFT JOIN entity_types t ON t.id = ev.entity_type_id
             LEFT JOIN event_deliveries d ON d.event_id = ev.id
            WHERE ($1::uuid IS NULL OR ev.entity_id = $1)
              AND ($2::uuid IS NULL OR ev.entity_type_id = $2)
              AND ($3::text IS NULL OR t.name = $3)
              AND ($4::text IS NULL OR ev.action = $4)
              AND ($5::timestamptz IS NULL OR (ev.created_at, ev.id) > ($5::timestamptz, $6::uuid))
            ORDER BY ev.created_at, ev.id
            LIMIT $7`,
          [q.entity_id ?? null, q.entity_type_id ?? null, q.type_name ?? null, q.action ?? null, after?.[0] ?? null, after?.[1] ?? null, limit],
        );
        return rows;
      });
      const data = rows.map((r) => ({
        id: r.id,
        action: r.action,
        entity_id: r.entity_id,
        entity_type: { id: r.entity_type_id, name: r.type_name },
        suppressed: r.suppressed,
        payload: r.payload,
        created_at: r.created_at,
        delivered_at: r.delivered_at,
      }));
      const last = rows[rows.length - 1];
      const next_cursor = rows.length === limit ? await encodeCursor(c.env.MASTER_KEY, scope, [last.created_at, last.id]) : undefined;
      return c.json({ data, ...(next_cursor ? { next_cursor } : {}) });
    },
  }),
];
