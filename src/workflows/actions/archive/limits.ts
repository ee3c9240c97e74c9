// What an archive action accepts: every limit by name, and the one error a
// limit answers with (422 naming the limit and its value).
import { MAX_FILE_BYTES } from "../../../lib/files/object-store";
import { ApiError } from "../../../lib/errors";
import { MAX_ARCHIVE_ENTRIES } from "../../../definition/language/actions/archive";

/** Inflated bytes of one entry: what one temp file may hold. */
export const MAX_ENTRY_BYTES = MAX_FILE_BYTES;
/** Inflated bytes of all entries of one archive (skipped ones included); also the most input zipCompress packs. */
export const MAX_TOTAL_BYTES = 100 * 1024 * 1024;
/** The tar stream after gunzip: the entries plus at most 4 KiB of headers and padding per entry. */
export const MAX_TAR_STREAM_BYTES = MAX_TOTAL_BYTES + MAX_ARCHIVE_ENTRIES * 4096;
/** Characters of an entry path. */
export const MAX_PATH_LENGTH = 1024;

export function overLimit(limit: string, max: number, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", message, { limit, max, ...extra });
}
