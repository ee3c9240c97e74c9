// `mergePdf`: PDF temp files, in the order given, as one PDF temp file. The
// sources are read one at a time; only the merged document grows.
import { PDFDocument } from "@cantoo/pdf-lib";
import { overLimit } from "../archive/limits";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { saveTempFile } from "../file-ref";
import { action } from "../action";
import { loadPdf } from "./document";
import { MAX_MERGE_BYTES } from "./limits";
import { MAX_PDF_PAGES, pdfDeclarations } from "../../../definition/language/actions/pdf";

export const mergePdf = action(pdfDeclarations.mergePdf, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => {
      const merged = await PDFDocument.create({ updateMetadata: false });
      let bytes = 0;
      const admit = (ref: { size: number }) => {
        if ((bytes += ref.size) > MAX_MERGE_BYTES)
          throw overLimit("MAX_MERGE_BYTES", MAX_MERGE_BYTES, `The PDFs to merge pass ${MAX_MERGE_BYTES} bytes together`);
      };
      for (const id of config.tempFileIds) {
        const source = await loadPdf(services, id, admit);
        if (merged.getPageCount() + source.pages > MAX_PDF_PAGES)
          throw overLimit("MAX_PDF_PAGES", MAX_PDF_PAGES, `The merged PDF would pass ${MAX_PDF_PAGES} pages`);
        for (const page of await merged.copyPages(source.doc, source.doc.getPageIndices())) merged.addPage(page);
      }
      const ref = await saveTempFile(services, { name: config.name ?? "merged.pdf", contentType: "application/pdf", body: await merged.save() });
      return { kind: "success", result: { ...ref, pages: merged.getPageCount() } };
    }),
});
