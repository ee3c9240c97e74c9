// Entity events (docs/api.md, Events). Written with their outbox rows in the entity
// change's own transaction; after commit the ids go to the events Queue as
// pointer messages, so a message stays small whatever the payloads weigh.
// Beside the client: every area records in its own transaction, and the
// request context (gateway/) publishes after commit.
import type { Sql } from "./client";
import { isoTimestampSql } from "../lib/timestamps";
import { log, type Logger } from "../lib/logger";

export type EventAction = "created" | "updated" | "deleted" | "merged";

export interface NewEvent {
  entityId: string;
  entityTypeId: string;
  action: EventAction;
  suppressed: boolean;
  payload: Record<string, unknown>;
}

export interface EventPointerMessage {
  tenant_id: string;
  event_ids: string[];
}

/** Ids per queue message; 1000 UUIDs keep a message near 40 KB, under the 128 KB cap. */
export const IDS_PER_MESSAGE = 1000;
/** Messages per sendBatch call, well inside its 256 KB total. */
const MESSAGES_PER_BATCH = 5;

/** One statement for any number of events and their outbox rows; returns the ids to queue. */
export async function recordEvents(sql: Sql, tenantId: string, events: NewEvent[]): Promise<string[]> {
  if (!events.length) return [];
  const { rows } = await sql.query<{ event_id: string }>(
    `WITH ev AS (
       INSERT INTO events (tenant_id, entity_id, entity_type_id, action, suppressed, payload)
       SELECT $1, * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::boolean[], $6::jsonb[])
       RETURNING id, suppressed, created_at
     )
     INSERT INTO event_outbox (event_id, tenant_id, created_at) SELECT id, $1, created_at FROM ev WHERE NOT suppressed
     RETURNING event_id`,
    [
      tenantId,
      events.map((e) => e.entityId),
      events.map((e) => e.entityTypeId),
      events.map((e) => e.action),
      events.map((e) => e.suppressed),
      events.map((e) => JSON.stringify(e.payload)),
    ],
  );
  return rows.map((r) => r.event_id);
}

/**
 * The events of entity rows a statement writes, in the same statement: two
 * CTEs to follow the CTE that wrote `rows`, `ev` (one event per row,
 * answering `id`, `suppressed` and `created_at`) and `pending` (their outbox
 * rows unless suppressed; it answers nothing, and runs whether or not it is
 * read, as every data-modifying CTE does). The ids to queue are read from
 * `ev` (`eventIdsSql`). `rows` has the columns of an EntityRow
 * (entity/entities/rows.ts); each payload is `{ entity }` as entitySnapshot
 * builds it, its timestamps in the API's form, plus the object `extra` (SQL
 * over `w`, the written row) when given. The payload is one to_jsonb over a
 * nested row, which measured half the cost of nested jsonb_build_object
 * calls on the bulk upsert. `tenant`, `action` and `suppressed` are SQL
 * (parameters, or literals this code writes). Used by every write that
 * records its events in the statement that writes: a create, a patch, a
 * delete, an upsert's batches.
 */
export function writtenEventsSql(opts: { rows: string; tenant: string; action: string; suppressed: string; extra?: string }): string {
  return `ev AS (
       INSERT INTO events (tenant_id, entity_id, entity_type_id, action, suppressed, payload)
       SELECT ${opts.tenant}, w.id, w.type_id, ${opts.action}, ${opts.suppressed}, to_jsonb(payload)${opts.extra ? ` || ${opts.extra}` : ""}
         FROM ${opts.rows} w
       CROSS JOIN LATERAL (SELECT entity FROM (SELECT w.id, w.name, jsonb_build_object('id', w.type_id, 'name', w.type_name) AS type,
                                                     w.attributes, w.identifier_key, ${isoTimestampSql("w.created_at")} AS created_at,
                                                     ${isoTimestampSql("w.updated_at")} AS updated_at) entity) payload
       RETURNING id, suppressed, created_at
     ), pending AS (
       INSERT INTO event_outbox (event_id, tenant_id, created_at) SELECT id, ${opts.tenant}, created_at FROM ev WHERE NOT suppressed
     )`;
}

/** The ids of the events writtenEventsSql queues, as one JSON array (null for none). */
export const eventIdsSql = "(SELECT json_agg(id) FROM ev WHERE NOT suppressed)";

/**
 * Queues event ids after commit. A failure is logged, not raised: the rows are
 * committed and the cron tick re-queues whatever stays undelivered.
 */
export async function publishEvents(queue: Queue, tenantId: string, eventIds: string[], logger: Logger = log): Promise<void> {
  if (!eventIds.length) return;
  const messages: { body: EventPointerMessage }[] = [];
  for (let i = 0; i < eventIds.length; i += IDS_PER_MESSAGE) {
    messages.push({ body: { tenant_id: tenantId, event_ids: eventIds.slice(i, i + IDS_PER_MESSAGE) } });
  }
  try {
    for (let i = 0; i < messages.length; i += MESSAGES_PER_BATCH) await queue.sendBatch(messages.slice(i, i + MESSAGES_PER_BATCH));
  } catch (e) {
    logger.error("event publish failed; cron will retry", { tenant: tenantId, count: eventIds.length, error: (e as Error).message });
  }
}

/** Entity snapshot carried in an event payload: the entity as the API answers it, less `deleted_at`. */
export function entitySnapshot(e: {
  id: string;
  name: string;
  typeId: string;
  typeName: string;
  attributes: unknown;
  identifierKey: string;
  createdAt: string;
  updatedAt: string;
}) {
  return {
    id: e.id,
    name: e.name,
    type: { id: e.typeId, name: e.typeName },
    attributes: e.attributes,
    identifier_key: e.identifierKey,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}
