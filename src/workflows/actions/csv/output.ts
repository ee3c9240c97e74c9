// Writing an action's bytes to a new temp file as they are produced: the
// producer writes into a stream the temp file's upload reads, so nothing is
// held beyond a chunk. A failure on either side stops both, and the cause
// (the producer's refusal, or the upload's 413 past the byte cap) is what
// the caller sees.
import { csvLine } from "../../../entity/csv/columns";
import { ApiError } from "../../../lib/errors";
import { validationFailed } from "../../../lib/validate";
import { saveTempFile, type FileRef } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { CSV_MAX_ROWS, WRITE_CHUNK_CHARS } from "./limits";

export type Write = (chunk: Uint8Array) => Promise<void>;

/** Streams what `produce` writes into a new temp file; resolves when both are done. */
export async function streamToTempFile(
  services: ConfinedServices,
  file: { name: string; contentType: string },
  produce: (write: Write) => Promise<void>,
): Promise<FileRef> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const producing = (async () => {
    try {
      await produce((chunk) => writer.write(chunk));
      await writer.close();
    } catch (e) {
      await writer.abort(e).catch(() => {});
      throw e;
    }
  })();
  // A failed upload must release a producer waiting on a full stream.
  const saving = saveTempFile(services, { ...file, body: readable }).catch(async (e) => {
    await writer.abort(e).catch(() => {});
    throw e;
  });
  const [produced, saved] = await Promise.allSettled([producing, saving]);
  if (produced.status === "rejected" && (produced.reason instanceof ApiError || saved.status === "fulfilled")) throw produced.reason;
  if (saved.status === "rejected") throw saved.reason;
  return saved.value;
}

/** Adds lines of cells to a CSV being written, in chunks; `rows` counts the lines after the header. */
export interface CsvWriter {
  line(cells: readonly unknown[]): Promise<void>;
  readonly rows: number;
}

/**
 * Writes a CSV temp file from `produce`'s lines (the first is the header),
 * with the line writer the REST export uses. More than CSV_MAX_ROWS rows is
 * a 422 naming `field`.
 */
export async function writeCsv(
  services: ConfinedServices,
  name: string,
  field: string,
  produce: (out: CsvWriter) => Promise<void>,
): Promise<FileRef & { rows: number }> {
  const encoder = new TextEncoder();
  let lines = 0;
  const ref = await streamToTempFile(services, { name, contentType: "text/csv" }, async (write) => {
    let pending = "";
    const out: CsvWriter = {
      async line(cells) {
        if (lines > CSV_MAX_ROWS)
          throw validationFailed([`${field}: the output would hold more than ${CSV_MAX_ROWS} rows`], `A CSV may hold at most ${CSV_MAX_ROWS} rows`);
        pending += csvLine(cells);
        lines++;
        if (pending.length >= WRITE_CHUNK_CHARS) {
          const chunk = encoder.encode(pending);
          pending = "";
          await write(chunk);
        }
      },
      get rows() {
        return Math.max(0, lines - 1);
      },
    };
    await produce(out);
    if (pending) await write(encoder.encode(pending));
  });
  return { ...ref, rows: Math.max(0, lines - 1) };
}
