// `downloadArtifact`: a confirmed version of an artifact (the newest unless
// `version` says), as a temp file (default) or read into the run's state as
// UTF-8 `text` with its `content_type`, capped by `maxTextBytes`. Reading is
// `entity:read` over REST; making the temp file is `entity:create`, as
// `POST /entity/temp-files` is.
import { uuidSchema } from "../../../lib/schemas";
import { artifactVersionSchema } from "../../../lib/files/schemas";
import { readArtifact } from "../../../entity/artifacts/service";
import { saveTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { maxTextBytesSchema, readCapped, TEXT_BYTES, utf8Text } from "./scope-bytes";

export const downloadArtifact = action({
  name: "downloadArtifact",
  permissions: (config) => (config.as === "text" ? ["entity:read"] : ["entity:read", "entity:create"]),
  configSchema: {
    type: "object",
    required: ["entityId", "artifactId"],
    properties: {
      entityId: uuidSchema,
      artifactId: uuidSchema,
      version: artifactVersionSchema,
      as: { enum: ["tempFile", "text"] },
      maxTextBytes: maxTextBytesSchema,
    },
    additionalProperties: false,
    // maxTextBytes only means something when the bytes are read into the state.
    if: { required: ["maxTextBytes"] },
    then: { required: ["as"], properties: { as: { const: "text" } } },
  },
  async execute(config, _invocation, ctx) {
    const asText = config.as === "text";
    // Reading into a temp file makes one: what POST /entity/temp-files needs.
    return withServices(ctx, async (services) => {
      const file = await readArtifact(services, config.entityId, config.artifactId, config.version);
      if (asText) {
        const bytes = await readCapped(file.body, file.size, config.maxTextBytes ?? TEXT_BYTES.default);
        return { kind: "success", result: { text: utf8Text(bytes), content_type: file.contentType } };
      }
      const ref = await saveTempFile(services, { name: file.filename, contentType: file.contentType, body: file.body, length: file.size });
      return { kind: "success", result: ref };
    });
  },
});
