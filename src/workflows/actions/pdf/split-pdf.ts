// `splitPdf`: page ranges of a PDF temp file ("1-3", "4"), each its own PDF
// temp file; every page its own file when no ranges are given.
import { ApiError } from "../../../lib/errors";
import { tempFileIdSchema } from "../file-ref";
import { action } from "../action";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { MAX_PDF_PARTS } from "./limits";
import { writeParts, type PageRange } from "./parts";

export const splitPdf = action({
  name: "splitPdf",
  permissions: TEMP_FILES,
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: {
      tempFileId: tempFileIdSchema,
      ranges: { type: "array", minItems: 1, maxItems: MAX_PDF_PARTS, items: { type: "string", pattern: "^[1-9][0-9]{0,5}(-[1-9][0-9]{0,5})?$" } },
    },
    additionalProperties: false,
  },
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
