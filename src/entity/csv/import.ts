// POST /entity/entities/import (SPEC.md 4.1): the CSV body is parsed as it
// streams in, each record converted by the type's schema into an upsert row
// kept as JSON text, then the rows go through exactly the upsert path
// (validation up front, the row cap, batches of 1000, events).
import { Buffer } from "node:buffer";
import { parse, CsvError } from "csv-parse/stream";
import { ApiError } from "../../lib/errors";
import { capLines, validate, validationFailed } from "../../lib/validate";
import { guardJson, isCleanText, jsonProblems, NOT_TEXT, TOO_SMALL, underflows, type Problem } from "../../lib/input-guard";
import { forbidden, uuidSchema } from "../../lib/schemas";
import type { TenantDb } from "../../db/client";
import { requireActiveType } from "../entity-types/store";
import type { EntityDeps } from "../entities/service";
import type { RowSource } from "../upsert/body-scan";
import { MAX_ROWS } from "../upsert/rows";
import { upsertEntities, type UpsertResult } from "../upsert/service";
import { cellValue, columnOf, schemaAt, setAtPath, type Column } from "./columns";

export const importConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    entity_type_id: uuidSchema,
    entity_type_name: { type: "string", minLength: 1 },
    type_name: { type: "string", minLength: 1, description: "Alias of entity_type_name" },
    on_conflict: { enum: ["raise", "ignore", "merge", "replace"] },
    delimiter: { type: "string", minLength: 1, maxLength: 1 },
    column_mapping: {
      type: "object",
      additionalProperties: { type: "string", minLength: 1, maxLength: 1000 },
      description: 'CSV column → "name", "id" or an attribute path ("price", "dims.w" or "attributes.dims.w")',
    },
    suppress_events: { type: "boolean" },
  },
  oneOf: [
    { required: ["entity_type_id"], properties: { entity_type_name: forbidden, type_name: forbidden } },
    { anyOf: [{ required: ["entity_type_name"] }, { required: ["type_name"] }], properties: { entity_type_id: forbidden } },
  ],
} as const;

export interface ImportConfig {
  entity_type_id?: string;
  entity_type_name?: string;
  type_name?: string;
  on_conflict?: "raise" | "ignore" | "merge" | "replace";
  delimiter?: string;
  column_mapping?: Record<string, string>;
  suppress_events?: boolean;
}

/** `X-Import-Config`: URL-encoded JSON. */
export function readImportConfig(header: string | undefined): ImportConfig {
  if (!header) throw validationFailed(["X-Import-Config: is required (URL-encoded JSON naming entity_type_id or entity_type_name)"]);
  let text: string;
  let parsed: unknown;
  try {
    text = decodeURIComponent(header);
    parsed = JSON.parse(text);
  } catch {
    throw validationFailed(["X-Import-Config: must be URL-encoded JSON"]);
  }
  guardJson(parsed, { base: "X-Import-Config", source: text, message: "X-Import-Config failed validation" });
  // Lines name the header, as the guard's do: the config is not the body.
  return validate<ImportConfig>(importConfigSchema, parsed, "X-Import-Config failed validation", "X-Import-Config");
}

interface Cell {
  text: string;
  quoted: boolean;
}

interface MappedColumn {
  index: number;
  header: string;
  column: Column;
}

const MAX_ERRORS = 20;

/**
 * What the input guard refuses in a converted attribute cell: a numeral that
 * read as 0 though it is not, or inside JSON text what a JSON body is refused
 * for. A cell's JSON counts its levels as if its row were sent to upsert
 * (body, data, row, attributes, then the column's path).
 */
function cellProblems(text: string, value: unknown, path: string[]): Problem[] {
  if (typeof value === "number") return underflows(text) ? [{ path: "(root)", reason: TOO_SMALL }] : [];
  if (typeof value === "object" && value !== null) return jsonProblems(value, { source: text, depth: 3 + path.length });
  return [];
}

/** Maps the header row: explicit mapping when given, else every column by its own name. */
function mapHeader(header: string[], mapping: Record<string, string> | undefined): MappedColumn[] {
  const missing = mapping ? Object.keys(mapping).filter((k) => !header.includes(k)) : [];
  if (missing.length) throw validationFailed(missing.map((m) => `column_mapping.${m}: no such column in the header`));
  const mapped = header.flatMap((h, index) => {
    const target = mapping ? mapping[h] : h;
    if (target === undefined) return [];
    const column = columnOf(target);
    // identifier_key and the timestamps are computed by the service, never imported.
    if ("field" in column && column.field !== "id" && column.field !== "name") return [];
    return [{ index, header: h, column }];
  });
  if (!mapped.some((m) => "field" in m.column && m.column.field === "name")) throw validationFailed(["header: a column must map to name"]);
  return mapped;
}

/** Reads every record of the body into upsert rows (as JSON text), or fails naming lines and columns. */
async function readRows(body: ReadableStream<Uint8Array>, config: ImportConfig, schema: Parameters<typeof schemaAt>[0]) {
  const parser = parse({
    delimiter: config.delimiter ?? ",",
    bom: true,
    info: true,
    skip_empty_lines: true,
    cast: (value: string, context: { quoting: boolean }) => ({ text: value, quoted: context.quoting }) as unknown as string,
  });
  const texts: string[] = [];
  const lines: number[] = [];
  const errors: string[] = [];
  let badRows = 0;
  let columns: MappedColumn[] | undefined;
  let lineAfter = 0;
  // csv-parse reads Node Buffers; the body arrives as Uint8Array chunks.
  const buffers = new TransformStream<Uint8Array, Buffer>({ transform: (chunk, out) => out.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) });
  const records = body.pipeThrough(buffers).pipeThrough(parser as unknown as TransformStream<Buffer, { record: Cell[]; info: { lines: number } }>);
  try {
    for await (const { record, info } of records as unknown as AsyncIterable<{ record: Cell[]; info: { lines: number } }>) {
      const line = lineAfter + 1;
      lineAfter = info.lines;
      if (!columns) {
        const names = record.map((c) => c.text);
        const unclean = names.flatMap((n, i) => (isCleanText(n) ? [] : [`line ${line}, column ${i + 1}: ${NOT_TEXT}`]));
        if (unclean.length) throw validationFailed(capLines(unclean), "The CSV header is malformed; nothing was written");
        columns = mapHeader(names, config.column_mapping);
        continue;
      }
      if (texts.length >= MAX_ROWS) throw validationFailed([`body: at most ${MAX_ROWS} rows per import`], `More than ${MAX_ROWS} rows; nothing was written`);
      const row: { id?: string; name?: string; attributes: Record<string, unknown> } = { attributes: {} };
      let rowErrors = 0;
      const fail = (header: string, reason: string, within = "(root)") => {
        rowErrors++;
        if (errors.length < MAX_ERRORS) errors.push(`line ${line}, column "${header}"${within === "(root)" ? "" : ` at ${within}`}: ${reason}`);
      };
      for (const { index, header, column } of columns) {
        const cell = record[index] ?? { text: "", quoted: false };
        if (!isCleanText(cell.text)) {
          fail(header, NOT_TEXT);
          continue;
        }
        if ("field" in column) {
          if (cell.text !== "" || cell.quoted) row[column.field as "id" | "name"] = cell.text;
          continue;
        }
        const converted = cellValue(cell.text, cell.quoted, schemaAt(schema, column.attribute));
        if ("error" in converted) {
          fail(header, converted.error);
          continue;
        }
        const problems = cellProblems(cell.text, converted.value, column.attribute);
        for (const p of problems) fail(header, p.reason, p.path);
        if (!problems.length && converted.value !== undefined) setAtPath(row.attributes, column.attribute, converted.value);
      }
      if (rowErrors) badRows++;
      texts.push(JSON.stringify(row));
      lines.push(line);
    }
  } catch (e) {
    if (e instanceof CsvError) throw validationFailed([`line ${(e as CsvError & { lines?: number }).lines ?? lineAfter + 1}: ${e.message}`], "The CSV body is malformed; nothing was written");
    throw e;
  }
  if (!columns) throw validationFailed(["body: the CSV has no header row"]);
  if (badRows) throw validationFailed(capLines(errors), `${badRows} of ${texts.length} rows failed conversion; nothing was written`);
  return { texts, lines, columns };
}

/** Upsert's `line N.attributes.x: reason` becomes `line N, column "x": reason` when a column maps there. */
function nameColumns(error: ApiError, columns: MappedColumn[]): ApiError {
  const lines = error.details.validation_errors;
  if (!Array.isArray(lines)) return error;
  const byPath = new Map(columns.map((c) => ["attribute" in c.column ? `attributes.${c.column.attribute.join(".")}` : c.column.field, c.header]));
  const renamed = lines.map((l: string) =>
    l.replace(/^(line \d+)\.((?:attributes\.)?[^:[]+)([^:]*): /, (whole, where: string, path: string, within: string) => {
      const header = byPath.get(path);
      if (header === undefined) return `${where}, ${path}${within}: `;
      return `${where}, column "${header}"${within ? ` at ${within}` : ""}: `;
    }),
  );
  return new ApiError(error.code, error.message, { ...error.details, validation_errors: renamed, errors: renamed });
}

export async function importEntities(deps: EntityDeps, tenant: TenantDb, config: ImportConfig, body: ReadableStream<Uint8Array> | null): Promise<UpsertResult> {
  const ref = config.entity_type_id ? { type_id: config.entity_type_id } : { type_name: config.entity_type_name ?? config.type_name };
  const type = await tenant.tx((sql) => requireActiveType(sql, ref));
  const { texts, lines, columns } = await readRows(body ?? new ReadableStream({ start: (c) => c.close() }), config, type.schema);
  const source: RowSource = {
    count: texts.length,
    text: (i) => texts[i],
    parse: (i) => JSON.parse(texts[i]),
    label: (i) => `line ${lines[i]}`,
  };
  try {
    return await upsertEntities(deps, { type_id: type.id, on_conflict: config.on_conflict, suppress_events: config.suppress_events }, source);
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) throw nameColumns(e, columns);
    throw e;
  }
}
