// What a PDF merge holds at once, past the limits its declaration states
// (definition/language/actions/pdf.ts): a PDF is read whole.
import { MAX_FILE_BYTES } from "../../../lib/files/object-store";

/** Bytes of all PDFs one merge reads: the merged file holds about as much, and it must fit a temp file. */
export const MAX_MERGE_BYTES = MAX_FILE_BYTES;
