// /entity/entities/{id}/artifacts (docs/api.md, Artifacts), and the two capability
// routes its links point at: PUT /entity/uploads/{versionId} (the upload URL)
// and GET /entity/downloads/{versionId} (the download link). Those two carry
// no credentials; the signed link is the credential (gateway/capability.ts).
import { pageOf } from "../../lib/pagination";
import { route } from "../../gateway/route";
import { binarySchema, dataEnvelope, deleted, listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { capability, capabilityQuery } from "../../gateway/capability";
import { attachment, fileResponse, rawUpload } from "../../lib/files/http";
import { MAX_FILE_BYTES } from "../../lib/files/object-store";
import { artifactVersionSchema, linkSchema } from "../../lib/files/schemas";
import {
  artifactDownloadUrl,
  confirmArtifact,
  createUploadUrl,
  deleteArtifact,
  listArtifacts,
  readArtifact,
  readLinkedVersion,
  receiveUpload,
  type StoredFile,
} from "./service";
import { artifactSchema, downloadUrlInput, confirmBody, uploadUrlBody } from "./schemas";

function download(file: StoredFile): Response {
  return fileResponse(file.body, { "Content-Type": file.contentType, "Content-Disposition": attachment(file.filename) });
}

const binary = { description: "The bytes, with the Content-Type recorded for the version", contentType: "*/*", schema: binarySchema };

export const artifactRoutes = [
  route({
    operation: "createArtifactUploadUrl",
    method: "post",
    path: "/entity/entities/:id/artifacts/upload-url",
    tag: "artifacts",
    summary: "Open a new artifact version and get a signed URL to PUT its bytes to",
    permission: ["entity", "update"],
    params: { id: uuidSchema },
    body: uploadUrlBody,
    responses: {
      201: {
        description: "The pending version and its upload URL",
        schema: dataEnvelope({
          type: "object",
          required: ["artifact", "upload_url", "expires_at"],
          properties: { artifact: artifactSchema, upload_url: { type: "string" }, expires_at: { type: "string" } },
        }),
      },
      404: { description: "Unknown or deleted entity" },
    },
    handler: async (c, { params, body }) => c.json({ data: await createUploadUrl(c.var.ctx, params.id, body) }, 201),
  }),
  route({
    operation: "uploadArtifactVersion",
    method: "put",
    path: "/entity/uploads/:versionId",
    tag: "artifacts",
    summary: `Upload URL: the raw bytes of one artifact version (at most ${MAX_FILE_BYTES}); authorised by the signed link`,
    auth: capability("artifact-upload", "versionId"),
    bodyLimit: MAX_FILE_BYTES,
    params: { versionId: uuidSchema },
    query: capabilityQuery,
    documentedRequest: { content: { "*/*": { schema: { ...binarySchema, description: "The raw bytes, as many as the size announced if one was" } } } },
    responses: {
      200: { description: "The version, now with size and checksum, still pending until confirmed", schema: dataEnvelope(artifactSchema) },
      401: { description: "Link malformed, tampered with or expired (details.code)" },
      404: { description: "Version replaced by a newer upload URL, or its artifact or entity deleted" },
      409: { description: "Version already confirmed" },
      422: { description: "Byte count differs from the size announced (SIZE_MISMATCH)" },
    },
    handler: async (c, { params }) => c.json({ data: await receiveUpload(c.var.ctx, params.versionId, rawUpload(c)) }),
  }),
  route({
    operation: "confirmArtifact",
    method: "post",
    path: "/entity/entities/:id/artifacts/:artifactId/confirm",
    tag: "artifacts",
    summary: "Confirm the newest version once its bytes are uploaded, optionally checking their SHA-256",
    permission: ["entity", "update"],
    params: { id: uuidSchema, artifactId: uuidSchema },
    body: confirmBody,
    bodyOptional: true,
    responses: {
      200: { description: "The confirmed artifact", schema: dataEnvelope(artifactSchema) },
      404: { description: "Unknown artifact, or entity unknown or deleted" },
      422: { description: "Nothing uploaded yet (NOT_UPLOADED) or checksum mismatch (CHECKSUM_MISMATCH); the version stays pending" },
    },
    handler: async (c, { params, body }) => c.json({ data: await confirmArtifact(c.var.ctx, params.id, params.artifactId, body.checksum) }),
  }),
  route({
    operation: "listArtifacts",
    method: "get",
    path: "/entity/entities/:id/artifacts",
    tag: "artifacts",
    summary: "List an entity's artifacts, oldest first",
    permission: ["entity", "read"],
    params: { id: uuidSchema },
    query: {
      type: "object",
      additionalProperties: false,
      properties: {
        artifact_type: { type: "string", minLength: 1 },
        artifact_type_in: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 100, description: "Comma-separated or repeated" },
        include_versions: { type: "boolean", default: false },
        ...paginationQuery,
      },
    },
    responses: { 200: { description: "Artifacts", schema: listEnvelope(artifactSchema) }, 404: { description: "Unknown or deleted entity" } },
    handler: async (c, { params, query }) => c.json(await listArtifacts(c.var.ctx, params.id, query, pageOf(query))),
  }),
  route({
    operation: "getArtifact",
    method: "get",
    path: "/entity/entities/:id/artifacts/:artifactId",
    tag: "artifacts",
    summary: "Stream an artifact's bytes (newest confirmed version unless `version` is given)",
    permission: ["entity", "read"],
    params: { id: uuidSchema, artifactId: uuidSchema },
    query: { type: "object", additionalProperties: false, properties: { version: artifactVersionSchema } },
    responses: { 200: binary, 404: { description: "Unknown artifact, no confirmed version, or entity unknown or deleted" } },
    handler: async (c, { params, query }) => download(await readArtifact(c.var.ctx, params.id, params.artifactId, query.version)),
  }),
  route({
    operation: "deleteArtifact",
    method: "delete",
    path: "/entity/entities/:id/artifacts/:artifactId",
    tag: "artifacts",
    summary: "Delete an artifact with all its versions and bytes",
    permission: ["entity", "update"],
    params: { id: uuidSchema, artifactId: uuidSchema },
    responses: {
      200: { description: "Deleted", schema: dataEnvelope(deleted) },
      404: { description: "Unknown artifact, or entity unknown or deleted" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteArtifact(c.var.ctx, params.id, params.artifactId) }),
  }),
  route({
    operation: "getArtifactDownloadUrl",
    method: "get",
    path: "/entity/entities/:id/artifacts/:artifactId/download-url",
    tag: "artifacts",
    summary: "A credential-free link that downloads the artifact as an attachment with its filename",
    permission: ["entity", "read"],
    params: { id: uuidSchema, artifactId: uuidSchema },
    query: downloadUrlInput,
    responses: { 200: { description: "The link", schema: dataEnvelope(linkSchema) }, 404: { description: "Unknown artifact or no confirmed version" } },
    handler: async (c, { params, query }) => c.json({ data: await artifactDownloadUrl(c.var.ctx, params.id, params.artifactId, query) }),
  }),
  route({
    operation: "createArtifactDownloadUrl",
    method: "post",
    path: "/entity/entities/:id/artifacts/:artifactId/download-url",
    tag: "artifacts",
    summary: "As the GET; `ttl` and `version` in an optional JSON body",
    permission: ["entity", "read"],
    params: { id: uuidSchema, artifactId: uuidSchema },
    body: downloadUrlInput,
    bodyOptional: true,
    responses: { 200: { description: "The link", schema: dataEnvelope(linkSchema) }, 404: { description: "Unknown artifact or no confirmed version" } },
    handler: async (c, { params, body }) => c.json({ data: await artifactDownloadUrl(c.var.ctx, params.id, params.artifactId, body) }),
  }),
  route({
    operation: "downloadArtifactVersion",
    method: "get",
    path: "/entity/downloads/:versionId",
    tag: "artifacts",
    summary: "Download link: one artifact version as an attachment; authorised by the signed link",
    auth: capability("artifact-download", "versionId"),
    params: { versionId: uuidSchema },
    query: capabilityQuery,
    responses: {
      200: binary,
      401: { description: "Link malformed, tampered with or expired (details.code)" },
      404: { description: "The version, its artifact or its entity is gone" },
    },
    handler: async (c, { params }) => download(await readLinkedVersion(c.var.ctx, params.versionId)),
  }),
];
