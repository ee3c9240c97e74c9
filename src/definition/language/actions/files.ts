// The file actions: temp files and entity artifacts, uploaded, downloaded
// and linked.
import { DOWNLOAD_TTL } from "../../../entity/artifacts/schemas";
import { LINK_TTL } from "../../../entity/temp-files/schemas";
import { artifactVersionSchema, contentTypeSchema, fileNameSchema } from "../../../lib/files/schemas";
import { forbidden, paginationQuery, uuidSchema } from "../../../lib/schemas";
import { declareAction } from "./declare";

/** The JSON Schema of a config field naming a temp file by id. */
export const tempFileIdSchema = { type: "string", format: "uuid" } as const;

/** `maxTextBytes`: how many bytes of a file a download may read into the run's state. */
export const TEXT_BYTES = { default: 1024 * 1024, max: 5 * 1024 * 1024 } as const;

const maxTextBytesSchema = { type: "integer", minimum: 1, maximum: TEXT_BYTES.max } as const;

/** Config fields giving bytes in scope; a declaration requires exactly one of them. */
export const inlineBytesProperties = { text: { type: "string" }, base64: { type: "string" } } as const;

export const fileDeclarations = {
  uploadTempFile: declareAction({
    name: "uploadTempFile",
    configSchema: {
      type: "object",
      required: ["name", "contentType"],
      properties: { name: fileNameSchema, contentType: contentTypeSchema, ...inlineBytesProperties },
      additionalProperties: false,
      // Exactly one of them.
      anyOf: [{ required: ["text"] }, { required: ["base64"] }],
      dependentSchemas: { text: { properties: { base64: forbidden } } },
    },
  }),
  createTempFileDownloadURL: declareAction({
    name: "createTempFileDownloadURL",
    configSchema: {
      type: "object",
      required: ["tempFileId"],
      properties: {
        tempFileId: tempFileIdSchema,
        /** Seconds the link is valid, shortened to the file's remaining life. */
        ttl: { type: "integer", minimum: 1, maximum: LINK_TTL.max },
      },
      additionalProperties: false,
    },
  }),
  downloadTempFile: declareAction({
    name: "downloadTempFile",
    configSchema: {
      type: "object",
      required: ["tempFileId", "as"],
      properties: { tempFileId: tempFileIdSchema, as: { enum: ["text", "base64"] }, maxTextBytes: maxTextBytesSchema },
      additionalProperties: false,
    },
  }),
  uploadArtifact: declareAction({
    name: "uploadArtifact",
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
  }),
  downloadArtifact: declareAction({
    name: "downloadArtifact",
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
  }),
  listEntityArtifacts: declareAction({
    name: "listEntityArtifacts",
    configSchema: {
      type: "object",
      required: ["entityId"],
      properties: {
        entityId: uuidSchema,
        artifactType: { type: "string", minLength: 1 },
        artifactTypeIn: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 100 },
        includeVersions: { type: "boolean" },
        ...paginationQuery,
      },
      additionalProperties: false,
    },
  }),
  createArtifactDownloadURL: declareAction({
    name: "createArtifactDownloadURL",
    configSchema: {
      type: "object",
      required: ["entityId", "artifactId"],
      properties: {
        entityId: uuidSchema,
        artifactId: uuidSchema,
        version: artifactVersionSchema,
        /** Seconds the link is valid. */
        ttl: { type: "integer", minimum: 1, maximum: DOWNLOAD_TTL.max },
      },
      additionalProperties: false,
    },
  }),
};
