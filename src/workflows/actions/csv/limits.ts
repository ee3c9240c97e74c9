// The limits of the CSV actions: the REST import's row cap (and the
// temp-file byte cap every file has), so whatever one action writes another
// (or the import) can read.
import { MAX_ROWS } from "../../../entity/upsert/rows";

/** Rows (after the header) a CSV an action reads or writes may hold: as many as one import takes. */
export const CSV_MAX_ROWS = MAX_ROWS;
/** Text gathered before it is handed to the temp file's stream: few writes, little held. */
export const WRITE_CHUNK_CHARS = 64 * 1024;
