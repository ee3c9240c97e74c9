// The consuming side of the outbox: the queue consumer claims events by
// deleting their outbox rows and records when (idempotent by event id: a
// redelivered message finds no outbox rows and does nothing), and the cron
// tick re-queues outbox rows older than a grace period, which covers a crash
// between commit and send. The event rows themselves are never updated.
import type { Database } from "../db/client";
import { isUuid } from "../lib/ids";
import { log } from "../lib/logger";
import { publishEvents, type EventPointerMessage } from "./outbox";

/**
 * Claims a message's events in one statement: deletes their outbox rows and
 * records the delivery of each one deleted. A redelivered message finds no
 * outbox rows; of two concurrent claims of an event only the first finds its
 * row. Payloads are not read back: nothing dispatches events yet, and reading
 * a message's thousand payloads cost several times the claim itself.
 */
export async function claimDelivery(database: Database, message: EventPointerMessage): Promise<void> {
  await database.tenantTx(message.tenant_id, ({ query }) =>
    query(
      `WITH claimed AS (
         DELETE FROM event_outbox WHERE event_id = ANY($1::uuid[]) RETURNING event_id, tenant_id
       )
       INSERT INTO event_deliveries (event_id, tenant_id) SELECT event_id, tenant_id FROM claimed`,
      [message.event_ids],
    ),
  );
}

function isPointer(body: unknown): body is EventPointerMessage {
  const b = body as EventPointerMessage;
  return !!b && isUuid(b.tenant_id) && Array.isArray(b.event_ids) && b.event_ids.every(isUuid);
}

export async function consumeEvents(batch: MessageBatch<unknown>, database: Database): Promise<void> {
  for (const message of batch.messages) {
    if (!isPointer(message.body)) {
      // Not ours to retry: a malformed message would fail forever.
      log.error("dropping malformed event message", { id: message.id });
      message.ack();
      continue;
    }
    try {
      await claimDelivery(database, message.body);
      message.ack();
    } catch (e) {
      log.error("event delivery failed; will retry", { id: message.id, error: (e as Error).message });
      message.retry();
    }
  }
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
