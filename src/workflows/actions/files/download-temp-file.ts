// `downloadTempFile`: a temp file's bytes read into the run's state, as UTF-8
// `text` or as `base64`, capped by `maxTextBytes` (of the file's bytes);
// `entity:read`, as `GET /entity/temp-files/{id}` is.
import { openTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { base64Of, readCapped, utf8Text } from "./scope-bytes";
import { fileDeclarations, TEXT_BYTES } from "../../../definition/language/actions/files";

export const downloadTempFile = action(fileDeclarations.downloadTempFile, {
  permissions: ["entity:read"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const { ref, body } = await openTempFile(services, config.tempFileId);
      const bytes = await readCapped(body, ref.size, config.maxTextBytes ?? TEXT_BYTES.default);
      const value = config.as === "text" ? { text: utf8Text(bytes) } : { base64: base64Of(bytes) };
      return { kind: "success", result: { ...value, content_type: ref.content_type, size: ref.size } };
    });
  },
});
