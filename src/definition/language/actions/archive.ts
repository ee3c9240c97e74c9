// The archive actions: zips made of temp files, zips and tars unpacked into
// temp files.
import { fileNameSchema } from "../../../lib/files/schemas";
import { declareAction } from "./declare";
import { tempFileIdSchema } from "./files";

/** Entries per archive, directories included; also the most files zipCompress packs. */
export const MAX_ARCHIVE_ENTRIES = 1000;

const decompressProperties = {
  tempFileId: tempFileIdSchema,
  /** Path prefixes (whole segments) of the files to extract; all files when absent. */
  include: { type: "array", minItems: 1, maxItems: MAX_ARCHIVE_ENTRIES, items: { type: "string", minLength: 1, maxLength: 1024 } },
} as const;

/** A file to pack: `path` (default: the temp file's name) is its entry's path. */
const fileSchema = {
  type: "object",
  required: ["tempFileId"],
  properties: { tempFileId: tempFileIdSchema, path: { type: "string", minLength: 1, maxLength: 1024 } },
  additionalProperties: false,
} as const;

export const archiveDeclarations = {
  zipCompress: declareAction({
    name: "zipCompress",
    configSchema: {
      type: "object",
      required: ["files"],
      properties: {
        /** The files in archive order. */
        files: { type: "array", minItems: 1, maxItems: MAX_ARCHIVE_ENTRIES, items: fileSchema },
        /** The zip's temp file name; `archive.zip` when absent. */
        name: fileNameSchema,
      },
      additionalProperties: false,
    },
  }),
  /** archiveDecompress's config less `format`. */
  zipDecompress: declareAction({
    name: "zipDecompress",
    configSchema: { type: "object", required: ["tempFileId"], properties: decompressProperties, additionalProperties: false },
  }),
  archiveDecompress: declareAction({
    name: "archiveDecompress",
    configSchema: {
      type: "object",
      required: ["tempFileId"],
      properties: { ...decompressProperties, format: { enum: ["zip", "tar", "tar.gz"] } },
      additionalProperties: false,
    },
  }),
};
