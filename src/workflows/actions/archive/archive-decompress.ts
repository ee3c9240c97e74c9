// `archiveDecompress`: each file of a zip, tar or tar.gz temp file as its own
// temp file; the format from its magic numbers unless `format` says it.
import { action } from "../action";
import { decompress } from "./decompress";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { archiveDeclarations } from "../../../definition/language/actions/archive";

export const archiveDecompress = action(archiveDeclarations.archiveDecompress, {
  permissions: TEMP_FILES,
  execute: (config, _invocation, ctx) =>
    withServices(ctx, async (services) => ({ kind: "success", result: await decompress(services, config, config.format ?? "detect") })),
});
