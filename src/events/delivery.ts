// The consuming side of the outbox: the queue consumer marks events delivered
// (idempotent by event id: a redelivered message finds them delivered and does
// nothing), and the cron tick re-queues events still undelivered after a grace
// period, which covers a crash between commit and send.
import type { Database } from "../db/client";
import { isUuid } from "../lib/ids";
import { publishEvents, type EventPointerMessage } from "./outbox";

export interface DeliveredEvent {
  id: string;
  entity_id: string;
  entity_type_id: string;
  action: string;
  payload: Record<string, unknown>;
  created_at: string;
}

/** A message's events not delivered before; marks them delivered in the same statement. */
export async function claimDelivery(database: Database, message: EventPointerMessage): Promise<DeliveredEvent[]> {
  return database.tenantTx(message.tenant_id, async ({ query }) => {
    const { rows } = await query<DeliveredEvent & Record<string, unknown>>(
      `UPDATE events SET delivered_at = now()
        WHERE id = ANY($1::uuid[]) AND delivered_at IS NULL AND NOT suppressed
        RETURNING id, entity_id, entity_type_id, action, payload, created_at`,
      [message.event_ids],
    );
    return rows;
  });
}

function isPointer(body: unknown): body is EventPointerMessage {
  const b = body as EventPointerMessage;
  return !!b && isUuid(b.tenant_id) && Array.isArray(b.event_ids) && b.event_ids.every(isUuid);
}

export async function consumeEvents(batch: MessageBatch<unknown>, database: Database): Promise<void> {
  for (const message of batch.messages) {
    if (!isPointer(message.body)) {
      // Not ours to retry: a malformed message would fail forever.
      console.error(JSON.stringify({ level: "error", msg: "dropping malformed event message", id: message.id }));
      message.ack();
      continue;
    }
    try {
      await claimDelivery(database, message.body);
      message.ack();
    } catch (e) {
      console.error(JSON.stringify({ level: "error", msg: "event delivery failed; will retry", id: message.id, error: (e as Error).message }));
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
      `SELECT tenant_id, array_agg(id ORDER BY created_at) AS ids FROM (
         SELECT tenant_id, id, created_at FROM events
          WHERE delivered_at IS NULL AND NOT suppressed AND created_at < $1::timestamptz - make_interval(secs => $2)
          ORDER BY created_at LIMIT $3) pending
        GROUP BY tenant_id`,
      [now.toISOString(), REDELIVERY_GRACE_SECONDS, RESEND_LIMIT],
    ),
  );
  for (const r of rows) await publishEvents(queue, r.tenant_id, r.ids);
  return rows.reduce((n, r) => n + r.ids.length, 0);
}

