// The set-based writes of an upsert: one statement per batch of up to 1000
// rows writes the entities and their events together (SPEC.md 4.1.7).
import type { Sql } from "../../db/client";
import type { EntityType } from "../entity-types/store";
import type { PreparedRow } from "./rows";

export type OnConflict = "raise" | "ignore" | "merge" | "replace";

export interface BatchResult {
  /** Entity id per row, in the batch's order. */
  ids: string[];
  created: number;
  updated: number;
  unchanged: number;
  ignored: number;
  eventIds: string[];
}

const ENTITY_PAYLOAD = `jsonb_build_object('entity', jsonb_build_object(
  'id', w.id, 'name', w.name, 'type', jsonb_build_object('id', $2::uuid, 'name', $3::text),
  'attributes', w.attributes, 'identifier_key', w.identifier_key))`;

/**
 * The batch as one JSON document, each row's text embedded as sent: no
 * re-serialising of attributes in the Worker, and one parameter instead of
 * per-column arrays the driver would have to escape.
 */
function batchJson(rows: PreparedRow[]): string {
  return `[${rows.map((r) => `{"ord":${r.index},"key":${JSON.stringify(r.key)},"row":${r.text}}`).join(",")}]`;
}

const INPUT = `SELECT i.ord, i.row->>'name' AS name, i.row->'attributes' AS attributes, i.key AS identifier_key, (i.row->>'id')::uuid AS id
   FROM jsonb_to_recordset($4::jsonb) AS i(ord int, key text, row jsonb)`;

function conflictClause(onConflict: OnConflict): string {
  if (onConflict === "ignore" || onConflict === "raise") return "DO NOTHING";
  const next = onConflict === "merge" ? "e.attributes || EXCLUDED.attributes" : "EXCLUDED.attributes";
  return `DO UPDATE SET name = EXCLUDED.name, attributes = ${next}, updated_at = now()
          WHERE e.name IS DISTINCT FROM EXCLUDED.name OR e.attributes IS DISTINCT FROM ${next}`;
}

/**
 * Rows matched by key: insert, or on a live key collision apply on_conflict.
 * Rows that collide but change nothing are left alone (no write, no event).
 */
export async function writeByKey(sql: Sql, tenantId: string, type: EntityType, rows: PreparedRow[], onConflict: OnConflict, suppress: boolean): Promise<BatchResult> {
  const { rows: out } = await sql.query<{ ord: number; id: string; outcome: "created" | "updated" | "kept"; event_ids: string[] | null }>(
    `WITH input AS (${INPUT}), w AS (
       INSERT INTO entities AS e (tenant_id, type_id, name, attributes, identifier_key)
       SELECT $1, $2, name, attributes, identifier_key FROM input ORDER BY identifier_key
       ON CONFLICT (tenant_id, type_id, identifier_key) WHERE deleted_at IS NULL ${conflictClause(onConflict)}
       RETURNING e.id, e.name, e.attributes, e.identifier_key, (xmax = 0) AS inserted
     ), ev AS (
       INSERT INTO events (tenant_id, entity_id, entity_type_id, action, suppressed, payload)
       SELECT $1, w.id, $2, CASE WHEN w.inserted THEN 'created' ELSE 'updated' END, $5, ${ENTITY_PAYLOAD} FROM w
       RETURNING id
     )
     SELECT i.ord, coalesce(w.id, cur.id) AS id,
            CASE WHEN w.id IS NULL THEN 'kept' WHEN w.inserted THEN 'created' ELSE 'updated' END AS outcome,
            CASE WHEN i.ord = (SELECT min(ord) FROM input) AND NOT $5 THEN (SELECT array_agg(id) FROM ev) END AS event_ids
       FROM input i
       LEFT JOIN w ON w.identifier_key = i.identifier_key
       LEFT JOIN entities cur ON w.id IS NULL AND cur.type_id = $2 AND cur.identifier_key = i.identifier_key AND cur.deleted_at IS NULL
      ORDER BY i.ord`,
    [tenantId, type.id, type.name, batchJson(rows), suppress],
  );
  return summarize(out, onConflict === "ignore" ? "ignored" : "unchanged");
}

/** Rows matched by id: always a full replace with the key recomputed (collisions were merged before). */
export async function writeById(sql: Sql, tenantId: string, type: EntityType, rows: PreparedRow[], suppress: boolean): Promise<BatchResult> {
  const { rows: out } = await sql.query<{ ord: number; id: string; outcome: "created" | "updated" | "kept"; event_ids: string[] | null }>(
    `WITH input AS (${INPUT}), w AS (
       UPDATE entities e SET name = i.name, attributes = i.attributes, identifier_key = i.identifier_key, updated_at = now()
         FROM input i
        WHERE e.id = i.id AND e.type_id = $2 AND e.deleted_at IS NULL
          AND (e.name IS DISTINCT FROM i.name OR e.attributes IS DISTINCT FROM i.attributes OR e.identifier_key IS DISTINCT FROM i.identifier_key)
       RETURNING e.id, e.name, e.attributes, e.identifier_key
     ), ev AS (
       INSERT INTO events (tenant_id, entity_id, entity_type_id, action, suppressed, payload)
       SELECT $1, w.id, $2, 'updated', $5, ${ENTITY_PAYLOAD} FROM w
       RETURNING id
     )
     SELECT i.ord, i.id, CASE WHEN w.id IS NULL THEN 'kept' ELSE 'updated' END AS outcome,
            CASE WHEN i.ord = (SELECT min(ord) FROM input) AND NOT $5 THEN (SELECT array_agg(id) FROM ev) END AS event_ids
       FROM input i LEFT JOIN w ON w.id = i.id
      ORDER BY i.ord`,
    [tenantId, type.id, type.name, batchJson(rows), suppress],
  );
  return summarize(out, "unchanged");
}

function summarize(out: { id: string; outcome: "created" | "updated" | "kept"; event_ids: string[] | null }[], kept: "ignored" | "unchanged"): BatchResult {
  const result: BatchResult = { ids: [], created: 0, updated: 0, unchanged: 0, ignored: 0, eventIds: [] };
  for (const r of out) {
    result.ids.push(r.id);
    if (r.outcome === "kept") result[kept]++;
    else result[r.outcome]++;
    if (r.event_ids) result.eventIds = r.event_ids;
  }
  return result;
}
