// The CSV actions: temp files of CSV read, transformed, merged, imported as
// entities and exported from them.
import { importConfigSchema } from "../../../entity/csv/import";
import { exportBody } from "../../../entity/csv/schemas";
import { fileNameSchema } from "../../../lib/files/schemas";
import { camelSchema } from "../../../lib/rest-body";
import { MAX_EXPRESSION_LENGTH } from "../../../lib/smart-values";
import { declareAction } from "./declare";
import { tempFileIdSchema } from "./files";

/** A one-character field delimiter of the input (output is always RFC 4180, comma-separated). */
const delimiterSchema = { type: "string", minLength: 1, maxLength: 1, not: { enum: ['"', "\r", "\n"] } } as const;

/** Output header names, in order. */
const columnsSchema = {
  type: "array",
  minItems: 1,
  maxItems: 500,
  uniqueItems: true,
  items: { type: "string", maxLength: 1000 },
} as const;

/** Files one merge takes. */
export const MAX_MERGE_FILES = 50;

const importOptions = camelSchema(importConfigSchema);
const exportOptions = camelSchema(exportBody);

export const csvDeclarations = {
  csvFromZipStream: declareAction({
    name: "csvFromZipStream",
    configSchema: {
      type: "object",
      required: ["tempFileId"],
      properties: {
        tempFileId: tempFileIdSchema,
        /** The entry's path in the zip; without it, the first entry whose name ends in `.csv`. */
        entry: { type: "string", minLength: 1, maxLength: 1000 },
        /** The new temp file's name; the entry's file name by default. */
        name: fileNameSchema,
      },
      additionalProperties: false,
    },
  }),
  transformCsvStream: declareAction({
    name: "transformCsvStream",
    configSchema: {
      type: "object",
      required: ["tempFileId", "mapping"],
      properties: {
        tempFileId: tempFileIdSchema,
        mapping: { type: "string", minLength: 1, maxLength: MAX_EXPRESSION_LENGTH },
        /** The output header; without it, the first mapped row's keys. */
        columns: columnsSchema,
        delimiter: delimiterSchema,
        name: fileNameSchema,
      },
      additionalProperties: false,
    },
  }),
  mergeCsvStreams: declareAction({
    name: "mergeCsvStreams",
    configSchema: {
      type: "object",
      required: ["tempFileIds"],
      properties: {
        tempFileIds: { type: "array", minItems: 2, maxItems: MAX_MERGE_FILES, items: tempFileIdSchema },
        columns: { enum: ["union", "first"] },
        delimiter: delimiterSchema,
        name: fileNameSchema,
      },
      additionalProperties: false,
    },
  }),
  importEntitiesFromCsv: declareAction({
    name: "importEntitiesFromCsv",
    configSchema: { ...importOptions, required: ["tempFileId"], properties: { tempFileId: tempFileIdSchema, ...importOptions.properties } },
  }),
  exportEntitiesToCsv: declareAction({
    name: "exportEntitiesToCsv",
    configSchema: {
      ...exportOptions,
      properties: {
        ...exportOptions.properties,
        /** The temp file's name; `<type name>.csv` by default, as the REST download is named. */
        name: fileNameSchema,
      },
    },
  }),
};
