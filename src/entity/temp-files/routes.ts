// /entity/temp-files (docs/api.md, Temp files). GET …/download takes no
// credentials: the signed link is its credential (gateway/capability.ts); a
// browser opens it, so it shows the safe types in place (linkedFileHeaders).
import type { Context } from "hono";
import type { HonoEnv } from "../../gateway/env";
import { ApiError } from "../../lib/errors";
import { route } from "../../gateway/route";
import { binarySchema, dataEnvelope, uuidSchema } from "../../lib/schemas";
import { validationFailed } from "../../lib/validate";
import { capability, capabilityQuery } from "../../gateway/capability";
import { fileResponse, fromHeaderText, headerText, linkedFileHeaders, rawUpload } from "../../lib/files/http";
import { MAX_FILE_BYTES } from "../../lib/files/object-store";
import { linkSchema } from "../../lib/files/schemas";
import { createTempFile, readTempFile, tempFileDownloadUrl, type NewTempFile, type TempFileView } from "./service";
import { tempFileSchema, downloadUrlBody } from "./schemas";

const NAME_HEADER = "X-Temp-File-Name";
const OCTET_STREAM = "application/octet-stream";

/** A file of MAX_FILE_BYTES with room for its multipart framing. */
const UPLOAD_BODY_LIMIT = MAX_FILE_BYTES + 1024 * 1024;

/**
 * Either multipart with a `file` part (name and type from the part), or the
 * raw bytes with the name in X-Temp-File-Name (percent-encoded UTF-8 allowed)
 * and the type in Content-Type. X-Temp-File-Name wins over a part's filename.
 */
async function incoming(c: Context<HonoEnv>): Promise<NewTempFile> {
  const header = c.req.header(NAME_HEADER);
  const named = header === undefined ? undefined : fromHeaderText(header);
  const contentType = c.req.header("Content-Type");
  if (contentType && /^multipart\/form-data\b/i.test(contentType)) {
    let form: FormData;
    try {
      form = await c.req.raw.formData();
    } catch (e) {
      throw new ApiError("BAD_REQUEST", "Request body is not valid multipart/form-data", { reason: (e as Error).message });
    }
    const file = form.get("file");
    if (!(file instanceof File)) throw validationFailed(["file: is required (a file part)"], "Temp file upload failed validation");
    return { name: named ?? file.name, contentType: file.type || OCTET_STREAM, upload: { body: file.stream(), length: file.size } };
  }
  if (named === undefined) throw validationFailed([`${NAME_HEADER}: is required`], "Temp file upload failed validation");
  return { name: named, contentType: contentType ?? OCTET_STREAM, upload: rawUpload(c) };
}

/** The stored content type travels in a header of its own; the body is always declared opaque. */
function tempFileResponse(file: TempFileView, body: ReadableStream<Uint8Array>, extra: Record<string, string> = {}): Response {
  return fileResponse(body, { "Content-Type": OCTET_STREAM, [NAME_HEADER]: headerText(file.name), "X-Temp-File-Content-Type": file.content_type, ...extra });
}

const binary = {
  description:
    "The bytes as application/octet-stream; X-Temp-File-Name (percent-encoded beyond printable ASCII) and X-Temp-File-Content-Type carry the recorded name and type",
  contentType: OCTET_STREAM,
  schema: binarySchema,
};

export const tempFileRoutes = [
  route({
    operation: "createTempFile",
    method: "post",
    path: "/entity/temp-files",
    tag: "temp-files",
    summary: `Create a temp file (24 hours) from the raw body with ${NAME_HEADER} and Content-Type, or from a multipart \`file\` part; at most ${MAX_FILE_BYTES} bytes`,
    permission: ["entity", "create"],
    bodyLimit: UPLOAD_BODY_LIMIT,
    documentedRequest: {
      content: {
        "multipart/form-data": { schema: { type: "object", required: ["file"], properties: { file: binarySchema } } },
        "*/*": { schema: { ...binarySchema, description: "The raw bytes; their Content-Type is recorded as the file's type" } },
      },
      headers: [
        {
          name: NAME_HEADER,
          required: false,
          description: "The file name, percent-encoded UTF-8 allowed; required with raw bytes, and wins over a multipart part's filename",
          schema: { type: "string" },
        },
      ],
    },
    responses: { 201: { description: "The temp file", schema: dataEnvelope(tempFileSchema) }, 413: { description: `File over ${MAX_FILE_BYTES} bytes` } },
    handler: async (c) => c.json({ data: await createTempFile(c.var.ctx, await incoming(c)) }, 201),
  }),
  route({
    operation: "getTempFile",
    method: "get",
    path: "/entity/temp-files/:id",
    tag: "temp-files",
    summary: "Stream a temp file's bytes",
    permission: ["entity", "read"],
    params: { id: uuidSchema },
    responses: { 200: binary, 404: { description: "Unknown or expired temp file" } },
    handler: async (c, { params }) => {
      const { file, body } = await readTempFile(c.var.ctx, params.id);
      return tempFileResponse(file, body);
    },
  }),
  route({
    operation: "createTempFileDownloadUrl",
    method: "post",
    path: "/entity/temp-files/:id/download-url",
    tag: "temp-files",
    summary: "A credential-free download link; ttl seconds (default 900, at most 7200), shortened to the file's remaining life",
    permission: ["entity", "read"],
    params: { id: uuidSchema },
    body: downloadUrlBody,
    bodyOptional: true,
    responses: { 200: { description: "The link", schema: dataEnvelope(linkSchema) }, 404: { description: "Unknown or expired temp file" } },
    handler: async (c, { params, body }) => c.json({ data: await tempFileDownloadUrl(c.var.ctx, params.id, body.ttl) }),
  }),
  route({
    operation: "downloadTempFile",
    method: "get",
    path: "/entity/temp-files/:id/download",
    tag: "temp-files",
    summary:
      "Download link, until it expires: PNG, JPEG, GIF, WebP, PDF and plain text inline under their recorded type, anything else an application/octet-stream attachment; authorised by the signed link",
    auth: capability("temp-file-download", "id"),
    params: { id: uuidSchema },
    query: capabilityQuery,
    responses: {
      200: {
        ...binary,
        description:
          "The bytes: inline under the recorded type for PNG, JPEG, GIF, WebP, PDF and plain text, else an application/octet-stream attachment; always X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. X-Temp-File-Name and X-Temp-File-Content-Type carry the recorded name and type",
      },
      401: { description: "Link malformed, tampered with or expired (details.code)" },
      404: { description: "The temp file expired or is gone" },
    },
    handler: async (c, { params }) => {
      const { file, body } = await readTempFile(c.var.ctx, params.id);
      return tempFileResponse(file, body, linkedFileHeaders(file.name, file.content_type));
    },
  }),
];
