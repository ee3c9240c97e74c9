// GET /event/events: a keyset page of the tenant's events, its cursor bound
// to the filter it continues.
import type { TenantDb } from "../db/client";
import { decodeCursor } from "../lib/cursor";
import { keysetPaging } from "../lib/pagination";
import { selectEvents, type EventFilter, type EventRow } from "./store";

export interface ListEventsInput extends EventFilter {
  limit?: number;
  cursor?: string;
}

function presentEvent(r: EventRow) {
  return {
    id: r.id,
    action: r.action,
    entity_id: r.entity_id,
    entity_type: { id: r.entity_type_id, name: r.type_name },
    suppressed: r.suppressed,
    payload: r.payload,
    created_at: r.created_at,
    delivered_at: r.delivered_at,
  };
}

export async function listEvents(tenant: TenantDb, cursorSecret: string, input: ListEventsInput) {
  const limit = input.limit ?? 100;
  const scope = `events:${JSON.stringify([input.entity_id, input.entity_type_id, input.type_name, input.action])}`;
  const after = input.cursor ? await decodeCursor(cursorSecret, scope, input.cursor) : null;
  const rows = await tenant.tx((sql) => selectEvents(sql, input, after, limit));
  const last = rows[rows.length - 1];
  return { data: rows.map(presentEvent), ...(await keysetPaging(cursorSecret, scope, rows.length, limit, last ? [last.created_at, last.id] : null)) };
}
