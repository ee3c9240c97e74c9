// The pdf actions of the catalog, each its own module.
import type { ActionFamily } from "../types";
import { chunkPdf } from "./chunk-pdf";
import { mergePdf } from "./merge-pdf";
import { splitPdf } from "./split-pdf";

export const pdfActions: ActionFamily = { splitPdf, mergePdf, chunkPdf };
