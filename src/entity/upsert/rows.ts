// Upsert input rows: every row validated up front, before anything is
// written; one bad row aborts the request, and the answer lists the problems
// of every row (twenty lines, the rest counted).
import { exactlyOneOf, forbidden, freeFormObject, uuidSchema } from "../../lib/schemas";
import { check, LineCollector, validationFailed } from "../../lib/validate";
import type { EntityType } from "../entity-types/store";
import { oversizedKey, tryIdentifierKey } from "../entities/identifier-key";
import { oversizedAttributes } from "../entities/index-limits";
import type { RowSource } from "./body-scan";

export const MAX_ROWS = 100_000;

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
    // Any object, as freeFormObject says, without its `additionalProperties: true`: the
    // validator would visit every attribute for it (a JSON pointer built per attribute
    // per row) to accept it anyway. The type's own schema checks the attributes next.
    attributes: { type: "object" },
    relationships: { type: "array", items: inlineRelationshipSchema, maxItems: 1000 },
  },
} as const;

/** Whether a `<path>: <reason>` line is about `path` or a path below it. */
function names(line: string, path: string): boolean {
  return line.startsWith(path) && /^[:.[]/.test(line.slice(path.length));
}

/**
 * One row's problems: its shape, then its attributes (the type's schema, the
 * index size limit) and its key, all in one pass so a row's every problem is
 * reported at once. A key attribute the schema already reported is not
 * reported again.
 */
function rowProblems(type: EntityType, row: UpsertRow, at: string): { lines: string[]; key?: string } {
  const shape = check(rowSchema, row, at);
  if (shape.length) return { lines: shape };
  const attrs = `${at}.attributes`;
  const lines = [...check(type.schema, row.attributes, attrs), ...oversizedAttributes(type.config.indexed_attributes, row.attributes, attrs)];
  const computed = tryIdentifierKey(type.config.identifier_key, row.attributes);
  if ("missing" in computed) {
    const unreported = computed.missing.map((p) => `${attrs}.${p}`).filter((p) => !lines.some((l) => names(l, p)));
    return { lines: [...lines, ...unreported.map((p) => `${p}: is required to compute the identifier key`)] };
  }
  const oversized = lines.length ? undefined : oversizedKey(type.config.identifier_key, row.attributes, computed.key, attrs);
  return oversized ? { lines: [oversized] } : { lines, key: computed.key };
}

/**
 * Checks rows one at a time as they are read, keeping what the writes need
 * (keys, ids, inline relationships) and, of the problems, the first twenty
 * lines and a count.
 */
export class RowChecker {
  readonly prepared: PreparedRows = { count: 0, keys: [], ids: [], relationships: new Map() };
  private readonly problems = new LineCollector();
  private badRows = 0;
  /** Rows refused before they could be checked; they hold no position. */
  private refused = 0;

  constructor(private readonly type: EntityType) {}

  /**
   * Checks the next row, labelled `at`. `found` are problems its reader
   * already found; `omitted` are paths within the row (`attributes.price`)
   * left out because their input was unreadable, on which the checks say
   * nothing more (a reported cell is not also "required").
   */
  add(row: unknown, at: string, found: string[] = [], omitted: string[] = []): void {
    const index = this.prepared.count++;
    const checked = rowProblems(this.type, row as UpsertRow, at);
    const lines = [...found, ...checked.lines.filter((l) => !omitted.some((p) => names(l, `${at}.${p}`)))];
    if (lines.length || checked.key === undefined) {
      this.badRows++;
      this.problems.add(lines);
      return;
    }
    const { id, relationships } = row as UpsertRow;
    this.prepared.keys[index] = checked.key;
    this.prepared.ids[index] = id;
    if (relationships?.length) this.prepared.relationships.set(index, relationships);
  }

  /** A row refused before it could be checked (a CSV record that does not parse). */
  refuse(lines: string[]): void {
    this.refused++;
    this.badRows++;
    this.problems.add(lines);
  }

  /** The prepared rows, or 422 VALIDATION_FAILED listing the problems of every row. */
  done(): PreparedRows {
    if (this.badRows)
      throw validationFailed(this.problems.lines(), `${this.badRows} of ${this.prepared.count + this.refused} rows failed validation; nothing was written`);
    return this.prepared;
  }
}

/** Checks every row, parsing one at a time. Throws 422 listing the problems of every row. */
export function prepareRows(type: EntityType, source: RowSource): PreparedRows {
  if (source.count > MAX_ROWS) throw validationFailed([`data: at most ${MAX_ROWS} rows per request, got ${source.count}`]);
  const checker = new RowChecker(type);
  for (let i = 0; i < source.count; i++) checker.add(source.parse(i), source.label?.(i) ?? `data[${i}]`);
  return checker.done();
}

/**
 * Last wins per id (rows with `id`) or per key (rows without). Returns the
 * surviving positions of each kind in request order, and for every request
 * position the position of the row that stands for it.
 */
export function dedupe(rows: PreparedRows): { byId: number[]; byKey: number[]; standsFor: Int32Array } {
  // Ids and keys in maps of their own, so no identity string is built per row.
  const lastById = new Map<string, number>();
  const lastByKey = new Map<string, number>();
  for (let i = 0; i < rows.count; i++) {
    const id = rows.ids[i];
    if (id) lastById.set(id, i);
    else lastByKey.set(rows.keys[i], i);
  }
  const standsFor = new Int32Array(rows.count);
  const byId: number[] = [];
  const byKey: number[] = [];
  for (let i = 0; i < rows.count; i++) {
    const id = rows.ids[i];
    const winner = id ? lastById.get(id)! : lastByKey.get(rows.keys[i])!;
    standsFor[i] = winner;
    if (winner === i) (id ? byId : byKey).push(i);
  }
  return { byId, byKey, standsFor };
}

/** A batch's rows, their text taken again from the body for writing. */
export function loadBatch(rows: PreparedRows, indices: number[], source: Pick<RowSource, "text">): PreparedRow[] {
  return indices.map((i) => ({ index: i, id: rows.ids[i], text: source.text(i), key: rows.keys[i] }));
}
