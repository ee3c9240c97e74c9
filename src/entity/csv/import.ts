// POST /entity/entities/import: the CSV body is parsed as it streams in,
// each record converted by the type's schema into an upsert row kept as JSON
// text and checked as upsert checks its rows, in the same pass; then the rows
// are written exactly as upsert writes them (the row cap, batches of 1000,
// events). Every problem of every record is reported in one answer.
import { Buffer } from "node:buffer";
import { parse, CsvError } from "csv-parse/stream";
import { ApiError } from "../../lib/errors";
import { capLines, validate, validationFailed } from "../../lib/validate";
import { guardJson, isCleanText, jsonProblems, NOT_TEXT, TOO_SMALL, underflows, type Problem } from "../../lib/input-guard";
import { forbidden, uuidSchema } from "../../lib/schemas";
import type { EntityType } from "../entity-types/store";
import type { EntityDeps } from "../entities/service";
import { MAX_ROWS, RowChecker } from "../upsert/rows";
import { upsertType, writeRows, type UpsertResult } from "../upsert/service";
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

/** Delimiters CSV files commonly use, for the hint when the configured one splits nothing. */
const DELIMITERS = [",", ";", "\t", "|"];

/** When the header read as one column holding another common delimiter, a line naming that delimiter. */
function delimiterHint(header: string[], delimiter: string): string[] {
  if (header.length !== 1) return [];
  const [likely] = DELIMITERS.filter((d) => d !== delimiter)
    .map((d) => ({ d, n: header[0].split(d).length - 1 }))
    .filter((c) => c.n > 0)
    .sort((a, b) => b.n - a.n);
  if (!likely) return [];
  const shown = JSON.stringify(header[0].length > 60 ? `${header[0].slice(0, 60)}…` : header[0]);
  const d = JSON.stringify(likely.d);
  return [
    `header: read with delimiter ${JSON.stringify(delimiter)} as the one column ${shown}, which seems to use ${d}: set "delimiter": ${d} in X-Import-Config`,
  ];
}

/** Maps the header row: explicit mapping when given, else every column by its own name. */
function mapHeader(header: string[], config: ImportConfig): MappedColumn[] {
  const mapping = config.column_mapping;
  const problems = mapping
    ? Object.keys(mapping)
        .filter((k) => !header.includes(k))
        .map((m) => `column_mapping.${m}: no such column in the header`)
    : [];
  const mapped = header.flatMap((h, index) => {
    const target = mapping ? mapping[h] : h;
    if (target === undefined) return [];
    const column = columnOf(target);
    // identifier_key and the timestamps are computed by the service, never imported.
    if ("field" in column && column.field !== "id" && column.field !== "name") return [];
    return [{ index, header: h, column }];
  });
  if (!problems.length && !mapped.some((m) => "field" in m.column && m.column.field === "name")) problems.push("header: a column must map to name");
  if (problems.length) throw validationFailed([...problems, ...delimiterHint(header, config.delimiter ?? ",")]);
  return mapped;
}

/** The row path a column writes, as validation lines name it. */
function pathOf(column: Column): string {
  return "field" in column ? column.field : `attributes.${column.attribute.join(".")}`;
}

/**
 * Reads every record of the body into upsert rows (as JSON text), checking
 * each as it comes: a record that does not parse, a cell that does not
 * convert and a row upsert would refuse are all collected, and one 422 names
 * them by line and column.
 */
async function readRows(body: ReadableStream<Uint8Array>, config: ImportConfig, type: EntityType) {
  // A record that does not parse is skipped and reported; parsing goes on with the next one.
  const skipped: { line: number; message: string }[] = [];
  const parser = parse({
    delimiter: config.delimiter ?? ",",
    bom: true,
    info: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => void (err && skipped.push({ line: Number(err.lines), message: err.message })),
    cast: (value: string, context: { quoting: boolean }) => ({ text: value, quoted: context.quoting }) as unknown as string,
  });
  const checker = new RowChecker(type);
  const texts: string[] = [];
  const lines: number[] = [];
  let columns: MappedColumn[] | undefined;
  let lineAfter = 0;
  const headerBroken = (problem: { line: number; message: string }) =>
    validationFailed([`line ${problem.line}: ${problem.message}`], "The CSV header is malformed; nothing was written");
  // Records skipped before `line`, as rows refused in their place (the parser reports a skip before it emits the next record).
  const refuseSkipped = (line: number) => {
    while (skipped.length && skipped[0].line < line) {
      const s = skipped.shift()!;
      if (!columns) throw headerBroken(s);
      checker.refuse([`line ${s.line}: ${s.message}`]);
      lineAfter = Math.max(lineAfter, s.line);
    }
  };
  // csv-parse reads Node Buffers; the body arrives as Uint8Array chunks.
  const buffers = new TransformStream<Uint8Array, Buffer>({
    transform: (chunk, out) => out.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
  });
  const records = body.pipeThrough(buffers).pipeThrough(parser as unknown as TransformStream<Buffer, { record: Cell[]; info: { lines: number } }>);
  try {
    for await (const { record, info } of records as unknown as AsyncIterable<{ record: Cell[]; info: { lines: number } }>) {
      refuseSkipped(info.lines);
      const line = lineAfter + 1;
      lineAfter = info.lines;
      if (!columns) {
        const names = record.map((c) => c.text);
        const unclean = names.flatMap((n, i) => (isCleanText(n) ? [] : [`line ${line}, column ${i + 1}: ${NOT_TEXT}`]));
        if (unclean.length) throw validationFailed(capLines(unclean), "The CSV header is malformed; nothing was written");
        columns = mapHeader(names, config);
        continue;
      }
      if (texts.length >= MAX_ROWS) throw validationFailed([`body: at most ${MAX_ROWS} rows per import`], `More than ${MAX_ROWS} rows; nothing was written`);
      const row: { id?: string; name?: string; attributes: Record<string, unknown> } = { attributes: {} };
      // Cells that did not convert: reported here, left out of the row, and not reported again by the row's checks.
      const found: string[] = [];
      const omitted: string[] = [];
      const fail = (column: MappedColumn, reason: string, within = "(root)") => {
        found.push(`line ${line}, column "${column.header}"${within === "(root)" ? "" : ` at ${within}`}: ${reason}`);
        if (omitted[omitted.length - 1] !== pathOf(column.column)) omitted.push(pathOf(column.column));
      };
      for (const mapped of columns) {
        const { index, column } = mapped;
        const cell = record[index] ?? { text: "", quoted: false };
        if (!isCleanText(cell.text)) {
          fail(mapped, NOT_TEXT);
          continue;
        }
        if ("field" in column) {
          if (cell.text !== "" || cell.quoted) row[column.field as "id" | "name"] = cell.text;
          continue;
        }
        const converted = cellValue(cell.text, cell.quoted, schemaAt(type.schema, column.attribute));
        if ("error" in converted) {
          fail(mapped, converted.error);
          continue;
        }
        const problems = cellProblems(cell.text, converted.value, column.attribute);
        for (const p of problems) fail(mapped, p.reason, p.path);
        if (!problems.length && converted.value !== undefined) setAtPath(row.attributes, column.attribute, converted.value);
      }
      checker.add(row, `line ${line}`, found, omitted);
      texts.push(JSON.stringify(row));
      lines.push(line);
    }
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    // What the parser cannot skip ends the reading; it is reported with everything found before it.
    skipped.push({ line: Number((e as CsvError & { lines?: number }).lines ?? lineAfter + 1), message: e.message });
  }
  if (!columns && skipped.length) throw headerBroken(skipped[0]);
  if (!columns) throw validationFailed(["body: the CSV has no header row"]);
  refuseSkipped(Infinity);
  try {
    return { prepared: checker.done(), texts, lines, columns };
  } catch (e) {
    throw e instanceof ApiError ? nameColumns(e, columns) : e;
  }
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

export async function importEntities(deps: EntityDeps, config: ImportConfig, body: ReadableStream<Uint8Array> | null): Promise<UpsertResult> {
  // The type and the caller's right to write it are checked before the body is read.
  const type = await upsertType(deps, config.entity_type_id ? { type_id: config.entity_type_id } : { type_name: config.entity_type_name ?? config.type_name });
  const { prepared, texts, lines, columns } = await readRows(body ?? new ReadableStream({ start: (c) => c.close() }), config, type);
  const source = { count: texts.length, text: (i: number) => texts[i], label: (i: number) => `line ${lines[i]}` };
  try {
    return await writeRows(deps, { on_conflict: config.on_conflict, suppress_events: config.suppress_events }, type, prepared, source);
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) throw nameColumns(e, columns);
    throw e;
  }
}
