// `zipDecompress`: each file of a zip temp file as its own temp file.
import { decompress } from "./decompress";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { archiveDeclarations } from "../../../definition/language/actions/archive";

export const zipDecompress = action(archiveDeclarations.zipDecompress, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) => withServices(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, "zip") })),
});
