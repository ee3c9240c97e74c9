// `archiveDecompress`: each file of a zip, tar or tar.gz temp file as its own
// temp file; the format from its magic numbers unless `format` says it.
import { action } from "../action";
import { decompress, decompressProperties } from "./decompress";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";

export const archiveDecompress = action({
  name: "archiveDecompress",
  permissions: TEMP_FILES,
  configSchema: {
    type: "object",
    required: ["tempFileId"],
    properties: { ...decompressProperties, format: { enum: ["zip", "tar", "tar.gz"] } },
    additionalProperties: false,
  },
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, config.format ?? "detect") })),
});
