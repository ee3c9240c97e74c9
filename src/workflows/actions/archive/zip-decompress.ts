// `zipDecompress`: each file of a zip temp file as its own temp file.
import { decompress, decompressConfigSchema } from "./decompress";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";

export const zipDecompress = action({
  name: "zipDecompress",
  permissions: TEMP_FILES,
  configSchema: decompressConfigSchema,
  execute: (config, _invocation, ctx) => withServices(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, "zip") })),
});
