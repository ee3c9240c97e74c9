// What splitPdf and chunkPdf share: page ranges of one PDF, each written as
// its own temp file, all or nothing.
import { overLimit } from "../archive/limits";
import { allOrNothing } from "../temp-output";
import type { FileRef } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { loadPdf, savePages } from "./document";
import { MAX_PDF_PARTS } from "../../../definition/language/actions/pdf";

export interface PageRange {
  first: number;
  last: number;
}

export type PdfPart = FileRef & { first_page: number; last_page: number };

/** Loads the PDF, asks `rangesOf` for the ranges of its page count, and writes each range. */
export async function writeParts(
  services: ConfinedServices,
  tempFileId: string,
  rangesOf: (pages: number) => PageRange[],
): Promise<{ files: PdfPart[]; pages: number }> {
  const source = await loadPdf(services, tempFileId);
  const ranges = rangesOf(source.pages);
  if (ranges.length > MAX_PDF_PARTS)
    throw overLimit("MAX_PDF_PARTS", MAX_PDF_PARTS, `The PDF would be cut into ${ranges.length} files, more than ${MAX_PDF_PARTS}`, { parts: ranges.length });
  return allOrNothing(services, async (made) => {
    const files: PdfPart[] = [];
    for (const { first, last } of ranges) files.push({ ...made(await savePages(services, source, first, last)), first_page: first, last_page: last });
    return { files, pages: source.pages };
  });
}
