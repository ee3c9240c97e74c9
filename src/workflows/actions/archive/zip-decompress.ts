// `zipDecompress`: each file of a zip temp file as its own temp file.
import { decompress, decompressProperties, type DecompressConfig } from "./decompress";
import { withTempFiles } from "../temp-output";
import type { ActionModule } from "../types";

export const zipDecompress: ActionModule<DecompressConfig> = {
  name: "zipDecompress",
  configSchema: { type: "object", required: ["tempFileId"], properties: decompressProperties, additionalProperties: false },
  execute: (config, _invocation, ctx) => withTempFiles(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, "zip") })),
};
