// `zipDecompress`: each file of a zip temp file as its own temp file.
import { decompress, decompressConfigSchema } from "./decompress";
import { withTempFiles } from "../temp-output";
import { action } from "../action";

export const zipDecompress = action({
  name: "zipDecompress",
  configSchema: decompressConfigSchema,
  execute: (config, _invocation, ctx) => withTempFiles(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, "zip") })),
});
