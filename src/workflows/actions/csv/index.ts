// The csv actions of the catalog, each its own module.
import type { ActionFamily } from "../types";
import { exportEntitiesToCsv } from "./export";
import { csvFromZipStream } from "./from-zip";
import { importEntitiesFromCsv } from "./import";
import { mergeCsvStreams } from "./merge";
import { transformCsvStream } from "./transform";

export const csvActions: ActionFamily = {
  csvFromZipStream,
  transformCsvStream,
  mergeCsvStreams,
  importEntitiesFromCsv,
  exportEntitiesToCsv,
};
