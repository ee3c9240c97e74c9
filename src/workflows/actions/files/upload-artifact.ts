// `uploadArtifact`: a new confirmed version of an entity's artifact, from a
// temp file (promoting it to a durable artifact) or from bytes in the config.
// The bytes take the artifact service's upload path (open a version, receive,
// confirm), so the checks, locking and checksum are those of a REST upload.
// Opening a version is `entity:update` over REST; reading a temp file is
// `entity:read`.
import { forbidden, uuidSchema } from "../../../lib/schemas";
import { storeArtifactVersion } from "../../../entity/artifacts/service";
import type { Upload } from "../../../lib/files/object-store";
import { contentTypeSchema, fileNameSchema } from "../../../lib/files/schemas";
import { openTempFile, tempFileIdSchema } from "../file-ref";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { inlineBytes, inlineBytesProperties } from "./scope-bytes";

export const uploadArtifact = action({
  name: "uploadArtifact",
  permissions: ["entity:read", "entity:update"],
  configSchema: {
    type: "object",
    required: ["entityId", "artifactType"],
    properties: {
      entityId: uuidSchema,
      artifactType: { type: "string", minLength: 1, maxLength: 100 },
      /** The temp file to promote; `name` and `contentType` default to its own. */
      tempFileId: tempFileIdSchema,
      ...inlineBytesProperties,
      name: fileNameSchema,
      contentType: contentTypeSchema,
    },
    additionalProperties: false,
    // Exactly one source; bytes in the config come with their name and type.
    anyOf: [{ required: ["tempFileId"] }, { required: ["text"] }, { required: ["base64"] }],
    dependentSchemas: { tempFileId: { properties: { text: forbidden, base64: forbidden } }, text: { properties: { base64: forbidden } } },
    if: { anyOf: [{ required: ["text"] }, { required: ["base64"] }] },
    then: { required: ["name", "contentType"] },
  },
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
