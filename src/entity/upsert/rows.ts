// Upsert input rows (SPEC.md 4.1.3-7): every row validated up front, in
// chunks of 2000, before anything is written; one bad row aborts the request.
import { exactlyOneOf, forbidden, freeFormObject, uuidSchema } from "../../lib/schemas";
import { capLines, check, validationFailed } from "../../lib/validate";
import type { EntityType } from "../entity-types/store";
import { oversizedKey, tryIdentifierKey } from "../entities/identifier-key";
import { oversizedAttributes } from "../entities/index-limits";
import type { RowSource } from "./body-scan";

export const MAX_ROWS = 100_000;
export const VALIDATION_CHUNK = 2000;

export interface InlineRelationship {
  rule_name?: string;
  rule_id?: string;
  target_entity_id?: string;
  target_identifier?: Record<string, unknown>;
  target_type_name?: string;
  direction?: "to" | "from";
}

export interface UpsertRow {
  id?: string;
  name: string;
  attributes: Record<string, unknown>;
  relationships?: InlineRelationship[];
}

/**
 * A row ready to write: its validated JSON text as sent (the database reads
 * `name` and `attributes` from it) and its computed key.
 */
export interface PreparedRow {
  index: number;
  id?: string;
  text: string;
  key: string;
}

/**
 * What validation keeps of the rows: their keys, ids and inline
 * relationships, by request position. Names and attributes stay in the body
 * bytes until their batch is written.
 */
export interface PreparedRows {
  count: number;
  keys: string[];
  ids: (string | undefined)[];
  relationships: Map<number, InlineRelationship[]>;
}

export const inlineRelationshipSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    rule_name: { type: "string", minLength: 1 },
    rule_id: uuidSchema,
    target_entity_id: uuidSchema,
    target_identifier: freeFormObject,
    target_type_name: { type: "string", minLength: 1 },
    direction: { enum: ["to", "from"] },
  },
  allOf: [
    exactlyOneOf("rule_name", "rule_id"),
    {
      oneOf: [
        { required: ["target_entity_id"], properties: { target_identifier: forbidden, target_type_name: forbidden } },
        { required: ["target_identifier", "target_type_name"], properties: { target_entity_id: forbidden } },
      ],
    },
  ],
} as const;

export const rowSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "attributes"],
  properties: {
    id: uuidSchema,
    name: { type: "string", minLength: 1, maxLength: 1000 },
    attributes: freeFormObject,
    relationships: { type: "array", items: inlineRelationshipSchema, maxItems: 1000 },
  },
} as const;

/**
 * Checks every row's shape, attributes (against the type's schema and the
 * index size limit) and key, parsing one row at a time. Throws 422 listing the first problems.
 */
export function prepareRows(type: EntityType, source: RowSource): PreparedRows {
  const count = source.count;
  if (count > MAX_ROWS) throw validationFailed([`data: at most ${MAX_ROWS} rows per request, got ${count}`]);
  const errors: string[] = [];
  let badRows = 0;
  const prepared: PreparedRows = { count, keys: new Array(count), ids: new Array(count), relationships: new Map() };
  for (let start = 0; start < count; start += VALIDATION_CHUNK) {
    const end = Math.min(start + VALIDATION_CHUNK, count);
    for (let i = start; i < end; i++) {
      const at = source.label?.(i) ?? `data[${i}]`;
      const row = source.parse(i) as UpsertRow;
      let rowErrors = check(rowSchema, row, at);
      if (!rowErrors.length) {
        rowErrors = check(type.schema, row.attributes, `${at}.attributes`);
        if (!rowErrors.length) rowErrors = oversizedAttributes(type.config.indexed_attributes, row.attributes, `${at}.attributes`);
      }
      if (!rowErrors.length) {
        const computed = tryIdentifierKey(type.config.identifier_key, row.attributes);
        const oversized = "key" in computed ? oversizedKey(type.config.identifier_key, row.attributes, computed.key, `${at}.attributes`) : undefined;
        if ("missing" in computed) rowErrors = computed.missing.map((p) => `${at}.attributes.${p}: is required to compute the identifier key`);
        else if (oversized) rowErrors = [oversized];
        else prepared.keys[i] = computed.key;
      }
      if (rowErrors.length) {
        badRows++;
        if (errors.length < 40) errors.push(...rowErrors);
        continue;
      }
      prepared.ids[i] = row.id;
      if (row.relationships?.length) prepared.relationships.set(i, row.relationships);
    }
  }
  if (badRows) throw validationFailed(capLines(errors), `${badRows} of ${count} rows failed validation; nothing was written`);
  return prepared;
}

/**
 * Last wins per id (rows with `id`) or per key (rows without). Returns the
 * surviving positions of each kind in request order, and for every request
 * position the position of the row that stands for it.
 */
export function dedupe(rows: PreparedRows): { byId: number[]; byKey: number[]; standsFor: Int32Array } {
  const identity = (i: number) => (rows.ids[i] ? `id:${rows.ids[i]}` : `key:${rows.keys[i]}`);
  const last = new Map<string, number>();
  for (let i = 0; i < rows.count; i++) last.set(identity(i), i);
  const standsFor = new Int32Array(rows.count);
  const byId: number[] = [];
  const byKey: number[] = [];
  for (let i = 0; i < rows.count; i++) {
    const winner = last.get(identity(i))!;
    standsFor[i] = winner;
    if (winner === i) (rows.ids[i] ? byId : byKey).push(i);
  }
  return { byId, byKey, standsFor };
}

/** A batch's rows, their text taken again from the body for writing. */
export function loadBatch(rows: PreparedRows, indices: number[], source: RowSource): PreparedRow[] {
  return indices.map((i) => ({ index: i, id: rows.ids[i], text: source.text(i), key: rows.keys[i] }));
}
