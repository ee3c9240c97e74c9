// Reading the event records: one page of a tenant's events with their type
// name and delivery time, oldest first.
import type { Sql } from "../db/client";
import type { EventAction } from "../db/outbox";

export interface EventFilter {
  entity_id?: string;
  entity_type_id?: string;
  type_name?: string;
  action?: EventAction;
}

export interface EventRow {
  id: string;
  action: EventAction;
  entity_id: string;
  entity_type_id: string;
  type_name: string | null;
  suppressed: boolean;
  payload: Record<string, unknown>;
  created_at: string;
  delivered_at: string | null;
}

/** Up to `limit` events matching `filter` after the (created_at, id) position `after`, in that order. */
export async function selectEvents(sql: Sql, filter: EventFilter, after: unknown[] | null, limit: number): Promise<EventRow[]> {
  const { rows } = await sql.query<EventRow & Record<string, unknown>>(
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
    [filter.entity_id ?? null, filter.entity_type_id ?? null, filter.type_name ?? null, filter.action ?? null, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return rows;
}
