// `uploadArtifact`: a new confirmed version of an entity's artifact, from a
// temp file (promoting it to a durable artifact) or from bytes in the config.
// The bytes take the artifact service's upload path (open a version, receive,
// confirm), so the checks, locking and checksum are those of a REST upload.
// Opening a version is `entity:update` over REST; reading a temp file is
// `entity:read`.
import { storeArtifactVersion } from "../../../entity/artifacts/service";
import type { Upload } from "../../../lib/files/object-store";
import { openTempFile } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { inlineBytes } from "./scope-bytes";
import { fileDeclarations } from "../../../definition/language/actions/files";

export const uploadArtifact = action(fileDeclarations.uploadArtifact, {
  permissions: ["entity:read", "entity:update"],
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      let file: { name: string; contentType: string; upload: Upload };
      if (config.tempFileId !== undefined) {
        const { ref, body } = await openTempFile(services, config.tempFileId);
        file = { name: config.name ?? ref.name, contentType: config.contentType ?? ref.content_type, upload: { body, length: ref.size } };
      } else {
        const bytes = inlineBytes(config);
        file = { name: config.name!, contentType: config.contentType!, upload: { body: new Blob([bytes]).stream(), length: bytes.byteLength } };
      }
      try {
        const artifact = await storeArtifactVersion(
          services,
          config.entityId,
          { artifact_type: config.artifactType, filename: file.name, content_type: file.contentType },
          file.upload,
        );
        return { kind: "success", result: artifact };
      } catch (e) {
        // Refused before its bytes were read (unknown entity, no access): release the temp file's stream.
        await file.upload.body.cancel().catch(() => {});
        throw e;
      }
    });
  },
});
