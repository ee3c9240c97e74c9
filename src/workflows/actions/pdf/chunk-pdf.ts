// `chunkPdf`: a PDF temp file cut into consecutive files of `pagesPerChunk`
// pages (the last one holds what is left).
import { action } from "../action";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { writeParts, type PageRange } from "./parts";
import { pdfDeclarations } from "../../../definition/language/actions/pdf";

export const chunkPdf = action(pdfDeclarations.chunkPdf, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => ({
      kind: "success",
      result: await writeParts(services, config.tempFileId, (pages) => chunks(pages, config.pagesPerChunk)),
    })),
});

export function chunks(pages: number, size: number): PageRange[] {
  return Array.from({ length: Math.ceil(pages / size) }, (_, i) => ({ first: i * size + 1, last: Math.min(pages, (i + 1) * size) }));
}
