// `uploadTempFile`: a temp file (24 hours) from bytes in the config, as
// `POST /entity/temp-files` makes one (`entity:create`); the result is its FileRef.
import { contentTypeSchema, fileNameSchema } from "../../../lib/files/schemas";
import { forbidden } from "../../../lib/schemas";
import { saveTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { inlineBytes, inlineBytesProperties } from "./scope-bytes";

export const uploadTempFile = action({
  name: "uploadTempFile",
  permissions: ["entity:create"],
  configSchema: {
    type: "object",
    required: ["name", "contentType"],
    properties: { name: fileNameSchema, contentType: contentTypeSchema, ...inlineBytesProperties },
    additionalProperties: false,
    // Exactly one of them.
    anyOf: [{ required: ["text"] }, { required: ["base64"] }],
    dependentSchemas: { text: { properties: { base64: forbidden } } },
  },
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => ({
      kind: "success",
      result: await saveTempFile(services, { name: config.name, contentType: config.contentType, body: inlineBytes(config) }),
    }));
  },
});
