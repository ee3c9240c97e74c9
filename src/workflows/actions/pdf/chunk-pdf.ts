// `chunkPdf`: a PDF temp file cut into consecutive files of `pagesPerChunk`
// pages (the last one holds what is left).
import { tempFileIdSchema } from "../file-ref";
import { action } from "../action";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { MAX_PDF_PAGES } from "./limits";
import { writeParts, type PageRange } from "./parts";

export const chunkPdf = action({
  name: "chunkPdf",
  permissions: TEMP_FILES,
  configSchema: {
    type: "object",
    required: ["tempFileId", "pagesPerChunk"],
    properties: { tempFileId: tempFileIdSchema, pagesPerChunk: { type: "integer", minimum: 1, maximum: MAX_PDF_PAGES } },
    additionalProperties: false,
  },
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => ({
      kind: "success",
      result: await writeParts(services, config.tempFileId, (pages) => chunks(pages, config.pagesPerChunk)),
    })),
});

export function chunks(pages: number, size: number): PageRange[] {
  return Array.from({ length: Math.ceil(pages / size) }, (_, i) => ({ first: i * size + 1, last: Math.min(pages, (i + 1) * size) }));
}
