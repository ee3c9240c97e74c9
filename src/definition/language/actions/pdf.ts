// The PDF actions: split, chunk and merge. A PDF is read whole (its
// cross-reference table sits at its end), so the limits bound what is held
// at once.
import { fileNameSchema } from "../../../lib/files/schemas";
import { declareAction } from "./declare";
import { tempFileIdSchema } from "./files";

/** Pages of one PDF read, and of a merged one. */
export const MAX_PDF_PAGES = 2000;
/** Files one split or chunk makes. */
export const MAX_PDF_PARTS = 1000;
/** PDFs one merge reads. */
export const MAX_MERGE_FILES = 50;

export const pdfDeclarations = {
  splitPdf: declareAction({
    name: "splitPdf",
    configSchema: {
      type: "object",
      required: ["tempFileId"],
      properties: {
        tempFileId: tempFileIdSchema,
        ranges: { type: "array", minItems: 1, maxItems: MAX_PDF_PARTS, items: { type: "string", pattern: "^[1-9][0-9]{0,5}(-[1-9][0-9]{0,5})?$" } },
      },
      additionalProperties: false,
    },
  }),
  chunkPdf: declareAction({
    name: "chunkPdf",
    configSchema: {
      type: "object",
      required: ["tempFileId", "pagesPerChunk"],
      properties: { tempFileId: tempFileIdSchema, pagesPerChunk: { type: "integer", minimum: 1, maximum: MAX_PDF_PAGES } },
      additionalProperties: false,
    },
  }),
  mergePdf: declareAction({
    name: "mergePdf",
    configSchema: {
      type: "object",
      required: ["tempFileIds"],
      properties: {
        tempFileIds: { type: "array", minItems: 2, maxItems: MAX_MERGE_FILES, items: tempFileIdSchema },
        /** The merged file's name; `merged.pdf` when absent. */
        name: fileNameSchema,
      },
      additionalProperties: false,
    },
  }),
};
