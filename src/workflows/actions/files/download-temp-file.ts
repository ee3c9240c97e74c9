// `downloadTempFile`: a temp file's bytes read into the run's state, as UTF-8
// `text` or as `base64`, capped by `maxTextBytes` (of the file's bytes);
// `entity:read`, as `GET /entity/temp-files/{id}` is.
import { openTempFile, tempFileIdSchema } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { base64Of, maxTextBytesSchema, readCapped, TEXT_BYTES, utf8Text } from "./scope-bytes";

export const downloadTempFile = action({
  name: "downloadTempFile",
  permissions: ["entity:read"],
  configSchema: {
    type: "object",
    required: ["tempFileId", "as"],
    properties: { tempFileId: tempFileIdSchema, as: { enum: ["text", "base64"] }, maxTextBytes: maxTextBytesSchema },
    additionalProperties: false,
  },
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const { ref, body } = await openTempFile(services, config.tempFileId);
      const bytes = await readCapped(body, ref.size, config.maxTextBytes ?? TEXT_BYTES.default);
      const value = config.as === "text" ? { text: utf8Text(bytes) } : { base64: base64Of(bytes) };
      return { kind: "success", result: { ...value, content_type: ref.content_type, size: ref.size } };
    });
  },
});
