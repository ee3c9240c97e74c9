// `uploadTempFile`: a temp file (24 hours) from bytes in the config, as
// `POST /entity/temp-files` makes one (`entity:create`); the result is its FileRef.
import { saveTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { inlineBytes } from "./scope-bytes";
import { fileDeclarations } from "../../../definition/language/actions/files";

export const uploadTempFile = action(fileDeclarations.uploadTempFile, {
  permissions: ["entity:create"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: await saveTempFile(services, { name: config.name, contentType: config.contentType, body: inlineBytes(config) }),
    }));
  },
});
