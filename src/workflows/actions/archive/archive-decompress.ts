// `archiveDecompress`: each file of a zip, tar or tar.gz temp file as its own
// temp file; the format from its magic numbers unless `format` says it.
import type { ActionModule } from "../types";
import { decompress, decompressProperties, type DecompressConfig } from "./decompress";
import type { ArchiveFormat } from "./detect";
import { withTempFiles } from "../temp-output";

interface ArchiveDecompressConfig extends DecompressConfig {
  format?: ArchiveFormat;
}

export const archiveDecompress: ActionModule<ArchiveDecompressConfig> = {
  name: "archiveDecompress",
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: { ...decompressProperties, format: { enum: ["zip", "tar", "tar.gz"] } },
    additionalProperties: false,
  },
  execute: (config, _invocation, ctx) =>
    withTempFiles(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, config.format ?? "detect") })),
};
