// `archiveDecompress`: each file of a zip, tar or tar.gz temp file as its own
// temp file; the format from its magic numbers unless `format` says it.
import { action } from "../action";
import { decompress, decompressProperties } from "./decompress";
import { withTempFiles } from "../temp-output";

export const archiveDecompress = action({
  name: "archiveDecompress",
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: { ...decompressProperties, format: { enum: ["zip", "tar", "tar.gz"] } },
    additionalProperties: false,
  },
  execute: (config, _invocation, ctx) =>
    withTempFiles(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, config.format ?? "detect") })),
});
