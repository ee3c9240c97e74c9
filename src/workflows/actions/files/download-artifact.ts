// `downloadArtifact`: a confirmed version of an artifact (the newest unless
// `version` says), as a temp file (default) or read into the run's state as
// UTF-8 `text` with its `content_type`, capped by `maxTextBytes`. Reading is
// `entity:read` over REST; making the temp file is `entity:create`, as
// `POST /entity/temp-files` is.
import { readArtifact } from "../../../entity/artifacts/service";
import { saveTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { readCapped, utf8Text } from "./scope-bytes";
import { fileDeclarations, TEXT_BYTES } from "../../../definition/language/actions/files";

export const downloadArtifact = action(fileDeclarations.downloadArtifact, {
  permissions: (config) => (config.as === "text" ? ["entity:read"] : ["entity:read", "entity:create"]),
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
