// What an archive reader yields, whatever the format: entries in archive
// order, each body read to its end (or the archive failed) before the next.
import { ApiError } from "../../../lib/errors";
import type { ArchiveFormat } from "./detect";

export interface ArchiveEntry {
  /** The path as the archive wrote it, unchecked. */
  name: string;
  /** `link`: a symbolic or hard link; `other`: a device, a fifo. */
  kind: "file" | "directory" | "link" | "other";
  body: ReadableStream<Uint8Array>;
}

/** Bytes that are not a readable archive of the format: a 422 with the reader's reason. */
export function unreadable(format: ArchiveFormat, cause: unknown): ApiError {
  if (cause instanceof ApiError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ApiError("UNPROCESSABLE_ENTITY", `The file is not a readable ${format} archive: ${reason}`, { format, reason });
}

/** `source` with any read failure that is not already a refusal turned into `unreadable`. */
export function guarded(format: ArchiveFormat, source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          throw unreadable(format, e);
        }
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
