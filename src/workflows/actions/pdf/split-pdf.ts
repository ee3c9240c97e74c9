// `splitPdf`: page ranges of a PDF temp file ("1-3", "4"), each its own PDF
// temp file; every page its own file when no ranges are given.
import { ApiError } from "../../../lib/errors";
import { action } from "../action";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { writeParts, type PageRange } from "./parts";
import { pdfDeclarations } from "../../../definition/language/actions/pdf";

export const splitPdf = action(pdfDeclarations.splitPdf, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => {
      const result = await writeParts(services, config.tempFileId, (pages) =>
        config.ranges ? config.ranges.map((r, i) => parseRange(r, i, pages)) : everyPage(pages),
      );
      return { kind: "success", result };
    }),
});

const everyPage = (pages: number): PageRange[] => Array.from({ length: pages }, (_, i) => ({ first: i + 1, last: i + 1 }));

/** "N" or "N-M" (the schema checked the shape): in order and within the document, else 422 naming `config.ranges[i]`. */
export function parseRange(text: string, index: number, pages: number): PageRange {
  const [first, last = first] = text.split("-").map(Number);
  const problem = first > last ? "ends before it starts" : last > pages ? `passes the last page, ${pages}` : undefined;
  if (problem)
    throw new ApiError("UNPROCESSABLE_ENTITY", `config.ranges[${index}]: range ${text} ${problem}`, { field: `config.ranges[${index}]`, range: text, pages });
  return { first, last };
}
