// Reading a PDF temp file into pdf-lib (@cantoo/pdf-lib), and writing pages
// of one into a new PDF temp file.
import { EncryptedPDFError, ParseSpeeds, PDFDocument } from "@cantoo/pdf-lib";
import { ApiError } from "../../../lib/errors";
import { overLimit } from "../archive/limits";
import { openTempFile, saveTempFile, type FileRef } from "../file-ref";
import type { ConfinedServices } from "../../../access/confined-services";
import { MAX_PDF_PAGES } from "../../../definition/language/actions/pdf";

export interface LoadedPdf {
  ref: FileRef;
  doc: PDFDocument;
  pages: number;
}

/**
 * The temp file as a PDF of 1..MAX_PDF_PAGES pages. `admit` sees the file's
 * reference before its bytes are read, and may refuse it. Not a PDF,
 * encrypted, no pages or too many: 422 naming the file.
 */
export async function loadPdf(services: ConfinedServices, tempFileId: string, admit?: (ref: FileRef) => void): Promise<LoadedPdf> {
  const { ref, body } = await openTempFile(services, tempFileId);
  try {
    admit?.(ref);
  } catch (e) {
    await body.cancel().catch(() => undefined);
    throw e;
  }
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  let doc: PDFDocument;
  try {
    // Fastest: parse without yielding to the event loop between objects; nothing else runs in this request meanwhile.
    doc = await PDFDocument.load(bytes, { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false });
  } catch (e) {
    if (e instanceof EncryptedPDFError) throw refused(ref, "is encrypted");
    throw refused(ref, `is not a readable PDF: ${e instanceof Error ? e.message : String(e)}`);
  }
  const pages = doc.getPageCount();
  if (pages === 0) throw refused(ref, "has no pages");
  if (pages > MAX_PDF_PAGES)
    throw overLimit("MAX_PDF_PAGES", MAX_PDF_PAGES, `Temp file ${ref.temp_file_id} (${ref.name}) has ${pages} pages, more than ${MAX_PDF_PAGES}`, {
      temp_file_id: ref.temp_file_id,
      pages,
    });
  return { ref, doc, pages };
}

function refused(ref: FileRef, why: string): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", `Temp file ${ref.temp_file_id} (${ref.name}) ${why}`, { temp_file_id: ref.temp_file_id });
}

/** Pages `first`..`last` (1-based, inclusive) of `source` as a new PDF temp file. */
export async function savePages(services: ConfinedServices, source: LoadedPdf, first: number, last: number): Promise<FileRef> {
  const part = await PDFDocument.create({ updateMetadata: false });
  const indices = Array.from({ length: last - first + 1 }, (_, i) => first - 1 + i);
  for (const page of await part.copyPages(source.doc, indices)) part.addPage(page);
  const stem = source.ref.name.replace(/\.pdf$/i, "").slice(0, 200);
  const name = first === last ? `${stem}-p${first}.pdf` : `${stem}-p${first}-${last}.pdf`;
  return saveTempFile(services, { name, contentType: "application/pdf", body: await part.save() });
}
