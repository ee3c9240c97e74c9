// What a PDF action accepts. A PDF is read whole (its cross-reference table
// sits at its end), so the limits bound what is held at once.
import { MAX_FILE_BYTES } from "../../../lib/files/object-store";

/** Pages of one PDF read, and of a merged one. */
export const MAX_PDF_PAGES = 2000;
/** Files one split or chunk makes. */
export const MAX_PDF_PARTS = 1000;
/** PDFs one merge reads. */
export const MAX_MERGE_FILES = 50;
/** Bytes of all PDFs one merge reads: the merged file holds about as much, and it must fit a temp file. */
export const MAX_MERGE_BYTES = MAX_FILE_BYTES;
