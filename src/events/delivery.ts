// The consuming side of the outbox: the queue consumer claims events by
// deleting their outbox rows, records when, and starts the workflow runs the
// events fire (idempotent by event id: a redelivered message finds no outbox
// rows and does nothing), and the cron tick re-queues outbox rows older than
// a grace period, which covers a crash between commit and send. The event
// rows themselves are never updated.
import type { Database } from "../db/client";
import { isUuid } from "../lib/ids";
import { log } from "../lib/logger";
import { isoTimestampSql } from "../lib/timestamps";
import type { RunRef } from "../workflows/runs/orchestrator";
import { startEventRuns, type CandidateTrigger, type ClaimedEvent } from "../workflows/triggers/events";
import { publishEvents, type EventPointerMessage } from "../db/outbox";

/**
 * Claims a message's events and starts the workflow runs they fire, in one
 * transaction. The first statement deletes the events' outbox rows, records
 * the delivery of each one deleted, and reads, for the claimed events only,
 * their candidate triggers: the enabled event triggers of their entity type
 * and action, found through the triggers' partial index. Only events with a
 * candidate have their payload read back. A redelivered message finds no
 * outbox rows; of two concurrent claims of an event only the first finds its
 * row, and the runs' unique keys hold even if both got through.
 */
export async function claimDelivery(database: Database, message: EventPointerMessage): Promise<string[]> {
  return database.tenantTx(message.tenant_id, async (sql) => {
    const { rows } = await sql.query<{ events: ClaimedEvent[] | null; triggers: CandidateTrigger[] | null }>(
      `WITH claimed AS (
         DELETE FROM event_outbox WHERE event_id = ANY($1::uuid[]) RETURNING event_id, tenant_id
       ), delivered AS (
         INSERT INTO event_deliveries (event_id, tenant_id) SELECT event_id, tenant_id FROM claimed
       ), pairs AS (
         -- Deleted events are never queued, merged ones fire nothing: only these two actions match.
         SELECT ev.id AS event_id, t.id AS trigger_id
           FROM claimed c
           JOIN events ev ON ev.id = c.event_id
           JOIN workflow_triggers t ON t.tenant_id = c.tenant_id AND t.entity_type_id = ev.entity_type_id AND t.event_action = ev.action
                                   AND t.type = 'event' AND t.enabled
           -- Row-level security shows a workflow another tenant shares only while the share lasts: a revoked one fires nothing.
           JOIN workflow_definitions d ON d.id = t.workflow_id
          WHERE ev.action IN ('created', 'updated')
       )
       SELECT (SELECT json_agg(json_build_object('id', ev.id, 'entity_id', ev.entity_id, 'entity_type_id', ev.entity_type_id, 'action', ev.action,
                                                 'payload', ev.payload, 'occurred_at', ${isoTimestampSql("ev.created_at")}, 'trigger_ids', p.ids)
                               ORDER BY ev.created_at, ev.id)
                 FROM (SELECT event_id, json_agg(trigger_id) AS ids FROM pairs GROUP BY event_id) p JOIN events ev ON ev.id = p.event_id) AS events,
              (SELECT json_agg(json_build_object('id', t.id, 'key', t.key, 'workflow_id', t.workflow_id, 'entity_type_id', t.entity_type_id,
                                                 'version', a.version, 'definition', t.definition, 'type_config', et.config))
                 FROM workflow_triggers t
                 JOIN workflow_activations a ON a.workflow_id = t.workflow_id AND a.tenant_id = t.tenant_id
                 LEFT JOIN entity_types et ON et.id = t.entity_type_id AND jsonb_array_length(coalesce(t.definition->'source'->'attributeFilters', '[]')) > 0
                WHERE t.id IN (SELECT trigger_id FROM pairs)) AS triggers`,
      [message.event_ids],
    );
    const events = rows[0].events ?? [];
    if (!events.length) return [];
    return startEventRuns(sql, message.tenant_id, { events, triggers: rows[0].triggers ?? [] });
  });
}

function isPointer(body: unknown): body is EventPointerMessage {
  const b = body as EventPointerMessage;
  return !!b && isUuid(b.tenant_id) && Array.isArray(b.event_ids) && b.event_ids.every(isUuid);
}

/** Delivers a batch; answers the runs it started, for the caller to kick once they are committed. */
export async function consumeEvents(batch: MessageBatch<unknown>, database: Database): Promise<RunRef[]> {
  const started: RunRef[] = [];
  for (const message of batch.messages) {
    if (!isPointer(message.body)) {
      // Not ours to retry: a malformed message would fail forever.
      log.error("dropping malformed event message", { id: message.id });
      message.ack();
      continue;
    }
    try {
      const tenantId = message.body.tenant_id;
      for (const runId of await claimDelivery(database, message.body)) started.push({ tenantId, runId });
      message.ack();
    } catch (e) {
      log.error("event delivery failed; will retry", { id: message.id, error: (e as Error).message });
      message.retry();
    }
  }
  return started;
}

/** How long a committed event may wait for its first send before the cron tick re-queues it. */
export const REDELIVERY_GRACE_SECONDS = 120;
const RESEND_LIMIT = 20_000;

export async function requeueUndelivered(database: Database, queue: Queue, now: Date): Promise<number> {
  const { rows } = await database.system(({ query }) =>
    query<{ tenant_id: string; ids: string[] }>(
      // json_agg, not array_agg: the driver's uuid[] parser is slow enough to matter at 20,000 ids.
      `SELECT tenant_id, json_agg(event_id ORDER BY created_at) AS ids FROM (
         SELECT tenant_id, event_id, created_at FROM event_outbox
          WHERE created_at < $1::timestamptz - make_interval(secs => $2)
          ORDER BY created_at LIMIT $3) pending
        GROUP BY tenant_id`,
      [now.toISOString(), REDELIVERY_GRACE_SECONDS, RESEND_LIMIT],
    ),
  );
  for (const r of rows) await publishEvents(queue, r.tenant_id, r.ids);
  return rows.reduce((n, r) => n + r.ids.length, 0);
}
