// Upsert input rows (SPEC.md 4.1.3-7): every row validated up front, in
// chunks of 2000, before anything is written; one bad row aborts the request.
import { uuidSchema } from "../../lib/schemas";
import { capLines, check, validationFailed } from "../../lib/validate";
import type { EntityType } from "../entity-types/store";
import { tryIdentifierKey } from "../entities/identifier-key";

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

/** A validated row with its computed key; `index` is its position in the request. */
export interface PreparedRow {
  index: number;
  id?: string;
  name: string;
  attributes: Record<string, unknown>;
  key: string;
  relationships?: InlineRelationship[];
}

export const inlineRelationshipSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    rule_name: { type: "string", minLength: 1 },
    rule_id: uuidSchema,
    target_entity_id: uuidSchema,
    target_identifier: { type: "object" },
    target_type_name: { type: "string", minLength: 1 },
    direction: { enum: ["to", "from"] },
  },
} as const;

export const rowSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "attributes"],
  properties: {
    id: uuidSchema,
    name: { type: "string", minLength: 1, maxLength: 1000 },
    attributes: { type: "object" },
    relationships: { type: "array", items: inlineRelationshipSchema, maxItems: 1000 },
  },
} as const;

function relationshipShapeErrors(rel: InlineRelationship, at: string): string[] {
  const errors: string[] = [];
  if ((rel.rule_name === undefined) === (rel.rule_id === undefined)) errors.push(`${at}: exactly one of rule_name and rule_id is required`);
  const byId = rel.target_entity_id !== undefined;
  const byKey = rel.target_identifier !== undefined || rel.target_type_name !== undefined;
  if (byId === byKey) errors.push(`${at}: give target_entity_id, or target_identifier with target_type_name`);
  else if (byKey && (rel.target_identifier === undefined || rel.target_type_name === undefined)) errors.push(`${at}: target_identifier and target_type_name go together`);
  return errors;
}

/**
 * Checks every row's shape, attributes (against the type's schema) and key.
 * Throws 422 listing the first problems; returns the prepared rows otherwise.
 */
export function prepareRows(type: EntityType, data: unknown[]): PreparedRow[] {
  if (data.length > MAX_ROWS) throw validationFailed([`data: at most ${MAX_ROWS} rows per request, got ${data.length}`]);
  const errors: string[] = [];
  let badRows = 0;
  const prepared: PreparedRow[] = new Array(data.length);
  for (let start = 0; start < data.length; start += VALIDATION_CHUNK) {
    const end = Math.min(start + VALIDATION_CHUNK, data.length);
    for (let i = start; i < end; i++) {
      const at = `data[${i}]`;
      const row = data[i] as UpsertRow;
      let rowErrors = check(rowSchema, row, at);
      if (!rowErrors.length) {
        rowErrors = check(type.schema, row.attributes, `${at}.attributes`);
        row.relationships?.forEach((rel, j) => rowErrors.push(...relationshipShapeErrors(rel, `${at}.relationships[${j}]`)));
      }
      let key = "";
      if (!rowErrors.length) {
        const computed = tryIdentifierKey(type.config.identifier_key, row.attributes);
        if ("missing" in computed) rowErrors = computed.missing.map((p) => `${at}.attributes.${p}: is required to compute the identifier key`);
        else key = computed.key;
      }
      if (rowErrors.length) {
        badRows++;
        if (errors.length < 40) errors.push(...rowErrors);
        continue;
      }
      prepared[i] = { index: i, id: row.id, name: row.name, attributes: row.attributes, key, relationships: row.relationships };
    }
  }
  if (badRows) throw validationFailed(capLines(errors), `${badRows} of ${data.length} rows failed validation; nothing was written`);
  return prepared;
}

/**
 * Last wins per id (rows with `id`) or per key (rows without). Returns the
 * surviving rows in request order, and for every request position the
 * position of the row that stands for it.
 */
export function dedupe(rows: PreparedRow[]): { unique: PreparedRow[]; standsFor: Int32Array } {
  const last = new Map<string, number>();
  for (const r of rows) last.set(r.id ? `id:${r.id}` : `key:${r.key}`, r.index);
  const standsFor = new Int32Array(rows.length);
  const unique: PreparedRow[] = [];
  for (const r of rows) {
    const winner = last.get(r.id ? `id:${r.id}` : `key:${r.key}`)!;
    standsFor[r.index] = winner;
    if (winner === r.index) unique.push(r);
  }
  return { unique, standsFor };
}
