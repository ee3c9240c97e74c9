// The set-based writes of an upsert: one statement per batch of up to 1000
// rows writes the entities, their events and the events' outbox rows
// together (docs/api.md, `POST /entity/entities/upsert`).
import type { Sql } from "../../db/client";
import { eventIdsSql, writtenEventsSql } from "../../db/outbox";
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

/**
 * The events of the rows `w` wrote and their outbox rows unless suppressed
 * (db/outbox.ts writtenEventsSql), each `updated` one with `previous: { name,
 * attributes, identifier_key }` as a PUT's event has it. `previous` is read
 * by id from `entities` in the same statement, which sees the rows as they
 * were before it (a data-modifying CTE's writes are not visible to the rest
 * of its statement); `updated` is the SQL condition of a row that was
 * updated, not inserted, and an inserted row does not look (as a lateral
 * join the lookup was probed for every row, inserts included).
 */
function eventsOf(action: string, updated: string): string {
  const previous = `CASE WHEN ${updated}
       THEN coalesce((SELECT jsonb_build_object('previous', jsonb_build_object('name', was.name, 'attributes', was.attributes, 'identifier_key', was.identifier_key))
                        FROM entities was WHERE was.id = w.id), '{}'::jsonb)
       ELSE '{}'::jsonb END`;
  return writtenEventsSql({ rows: "w", tenant: "$1", action, suppressed: "$5", extra: previous });
}

/** The ids of the events to queue (none when suppressed). */
const EVENT_IDS = `${eventIdsSql} AS event_ids`;

/**
 * What a batch statement answers: one row, its arrays as JSON. A row per
 * input row plus a uuid[] of event ids cost the Worker about 40 ms a batch
 * to parse (the driver reads arrays character by character); JSON.parse
 * takes well under one.
 */
export interface BatchRow {
  ids: string[];
  created: number;
  updated: number;
  kept: number;
  event_ids: string[] | null;
}

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
 * The statement that writes rows matched by key: insert, or on a live key
 * collision apply on_conflict. Rows that collide but change nothing are left
 * alone (no write, no event). With `version`, the rows are written only while
 * the type is still that version (its xmin) and active, as `type_current`
 * answers, and `raise` has no conflict clause: a taken key fails the whole
 * statement on entities_live_key, so nothing of it is written.
 */
export function byKeyStatement(
  tenantId: string,
  type: EntityType,
  rows: PreparedRow[],
  onConflict: OnConflict,
  suppress: boolean,
  version?: string,
): { text: string; values: unknown[] } {
  const current = "EXISTS (SELECT 1 FROM entity_types WHERE id = $2 AND xmin::text = $6::text AND status = 'active')";
  const conflict =
    version !== undefined && onConflict === "raise"
      ? ""
      : `ON CONFLICT (tenant_id, type_id, identifier_key) WHERE deleted_at IS NULL ${conflictClause(onConflict)}`;
  return {
    text: `WITH input AS (${INPUT}), w AS (
       INSERT INTO entities AS e (tenant_id, type_id, name, attributes, identifier_key)
       SELECT $1, $2, name, attributes, identifier_key FROM input${version !== undefined ? ` WHERE ${current}` : ""} ORDER BY identifier_key
       ${conflict}
       RETURNING e.id, e.name, e.type_id, $3::text AS type_name, e.attributes, e.identifier_key, e.created_at, e.updated_at, (xmax = 0) AS inserted
     ), ${eventsOf("CASE WHEN w.inserted THEN 'created' ELSE 'updated' END", "NOT w.inserted")}
     SELECT json_agg(
              -- A kept row's id by its key, looked up for those rows only: as a
              -- join it was probed for every row, or planned as a scan of the type.
              coalesce(w.id, (SELECT cur.id FROM entities cur WHERE cur.type_id = $2 AND cur.identifier_key = i.identifier_key AND cur.deleted_at IS NULL))
              ORDER BY i.ord) AS ids,
            count(*) FILTER (WHERE w.inserted)::int AS created,
            count(*) FILTER (WHERE NOT w.inserted)::int AS updated,
            count(*) FILTER (WHERE w.id IS NULL)::int AS kept,
            ${EVENT_IDS}${version !== undefined ? `, ${current} AS type_current` : ""}
       FROM input i LEFT JOIN w ON w.identifier_key = i.identifier_key`,
    values: [tenantId, type.id, type.name, batchJson(rows), suppress, ...(version !== undefined ? [version] : [])],
  };
}

/** Rows matched by key, in the transaction `sql` (byKeyStatement without a version). */
export async function writeByKey(
  sql: Sql,
  tenantId: string,
  type: EntityType,
  rows: PreparedRow[],
  onConflict: OnConflict,
  suppress: boolean,
): Promise<BatchResult> {
  const { text, values } = byKeyStatement(tenantId, type, rows, onConflict, suppress);
  const {
    rows: [out],
  } = await sql.query<BatchRow & Record<string, unknown>>(text, values);
  return summarize(out, onConflict);
}

/** Rows matched by id: always a full replace with the key recomputed (collisions were merged before). */
export async function writeById(sql: Sql, tenantId: string, type: EntityType, rows: PreparedRow[], suppress: boolean): Promise<BatchResult> {
  const {
    rows: [out],
  } = await sql.query<BatchRow & Record<string, unknown>>(
    `WITH input AS (${INPUT}), w AS (
       UPDATE entities e SET name = i.name, attributes = i.attributes, identifier_key = i.identifier_key, updated_at = now()
         FROM input i
        WHERE e.id = i.id AND e.type_id = $2 AND e.deleted_at IS NULL
          AND (e.name IS DISTINCT FROM i.name OR e.attributes IS DISTINCT FROM i.attributes OR e.identifier_key IS DISTINCT FROM i.identifier_key)
       RETURNING e.id, e.name, e.type_id, $3::text AS type_name, e.attributes, e.identifier_key, e.created_at, e.updated_at
     ), ${eventsOf("'updated'", "true")}
     SELECT json_agg(i.id ORDER BY i.ord) AS ids, 0 AS created, count(w.id)::int AS updated,
            count(*) FILTER (WHERE w.id IS NULL)::int AS kept, ${EVENT_IDS}
       FROM input i LEFT JOIN w ON w.id = i.id`,
    [tenantId, type.id, type.name, batchJson(rows), suppress],
  );
  return summarize(out, "replace");
}

/** A batch statement's answer as counts; the rows it kept are `ignored` under on_conflict ignore, else `unchanged`. */
export function summarize(out: BatchRow, onConflict: OnConflict): BatchResult {
  const kept = onConflict === "ignore" ? "ignored" : "unchanged";
  return { ids: out.ids, created: out.created, updated: out.updated, unchanged: 0, ignored: 0, [kept]: out.kept, eventIds: out.event_ids ?? [] };
}
