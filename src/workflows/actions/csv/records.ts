// Reading a CSV temp file record by record (csv-parse's web stream, as the
// REST import reads its body): the header first, then the rows, never the
// whole file in memory. A record that does not parse, a row whose cell count
// differs from the header's, or more rows than the limit ends the reading
// with a 422 naming the config field the file came from.
import { Buffer } from "node:buffer";
import { CsvError, parse } from "csv-parse/stream";
import { validationFailed } from "../../../lib/validate";
import { openTempFile } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { CSV_MAX_ROWS } from "./limits";

export interface CsvRow {
  /**
   * The cells; an unquoted empty cell is undefined ("no value", as the REST
   * import reads it), a quoted `""` the empty string, so writing the cells
   * back with the export's line writer keeps the difference.
   */
  cells: (string | undefined)[];
  /** The line the record starts on (1 is the header's). */
  line: number;
}

export interface CsvSource {
  name: string;
  header: string[];
  /** The rows after the header, each read as it is asked for. */
  rows: AsyncGenerator<CsvRow>;
  /** Stops reading (the rest of the file is never fetched). */
  close(): Promise<void>;
}

type Parsed = { record: (string | undefined)[]; info: { lines: number } };

/**
 * Opens temp file `id` as CSV. `field` is the config path that named it
 * (`config.tempFileId`), prefixed to every problem line. An unknown or
 * expired id, or one of another tenant, is 404 NOT_FOUND.
 */
export async function openCsv(services: ConfinedServices, id: string, field: string, delimiter = ","): Promise<CsvSource> {
  const { ref, body } = await openTempFile(services, id);
  const parser = parse({
    delimiter,
    bom: true,
    info: true,
    skip_empty_lines: true,
    cast: (value: string, context: { quoting: boolean }) => (value === "" && !context.quoting ? undefined : value) as string,
  });
  // csv-parse reads Node Buffers; the file arrives as Uint8Array chunks.
  const buffers = new TransformStream<Uint8Array, Buffer>({
    transform: (chunk, out) => out.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
  });
  const records = body.pipeThrough(buffers).pipeThrough(parser as unknown as TransformStream<Buffer, Parsed>);
  const iterator = (records as unknown as AsyncIterable<Parsed>)[Symbol.asyncIterator]();
  let linesRead = 0;
  const next = async (): Promise<CsvRow | undefined> => {
    try {
      const r = await iterator.next();
      if (r.done) return undefined;
      const line = linesRead + 1;
      linesRead = r.value.info.lines;
      return { cells: r.value.record, line };
    } catch (e) {
      if (e instanceof CsvError) throw validationFailed([`${field}: ${e.message}`], "The CSV does not parse");
      throw e;
    }
  };
  const close = async () => void (await iterator.return?.().catch(() => undefined));
  const first = await next();
  if (!first) throw validationFailed([`${field}: the CSV has no header row`], "The CSV has no header row");
  const header = first.cells.map((name) => name ?? "");
  const twice = header.filter((h, i) => header.indexOf(h) !== i);
  if (twice.length) {
    await close();
    throw validationFailed(
      [...new Set(twice)].map((h) => `${field}: column ${JSON.stringify(h)} appears twice in the header`),
      "The CSV header names a column twice",
    );
  }
  async function* rows(): AsyncGenerator<CsvRow> {
    let count = 0;
    try {
      for (let row = await next(); row; row = await next()) {
        if (++count > CSV_MAX_ROWS)
          throw validationFailed([`${field}: more than ${CSV_MAX_ROWS} rows (line ${row.line})`], `A CSV may hold at most ${CSV_MAX_ROWS} rows`);
        yield row;
      }
    } finally {
      await close();
    }
  }
  return { name: ref.name, header, rows: rows(), close };
}
