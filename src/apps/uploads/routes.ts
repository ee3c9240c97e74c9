// POST /apps/upload/{integrationId}/{uploadId}: where a provider's upload
// widget posts a file to a slot a render minted (docs/apps.md, Uploads).
import { route } from "../../gateway/route";
import { binarySchema, uuidSchema } from "../../lib/schemas";
import { capabilityQuery } from "../../gateway/capability";
import { MAX_FILE_BYTES } from "../../lib/files/object-store";
import { receiveUpload, uploadErrorAnswer, uploadLink, UPLOAD_BODY_LIMIT } from "./receive";
import { defaultUploadBody, defaultUploadErrorBody } from "./schemas";

export const uploadRoutes = [
  route({
    operation: "uploadAppFile",
    method: "post",
    path: "/apps/upload/:integrationId/:uploadId",
    tag: "apps",
    summary: `Upload one file (at most ${MAX_FILE_BYTES} bytes, or the slot's maxFileSize) to an app upload slot; authorised by the signed link; answers in the provider's upload body, failures in its error body, never the error envelope`,
    auth: uploadLink,
    params: { integrationId: uuidSchema, uploadId: uuidSchema },
    query: capabilityQuery,
    bodyLimit: UPLOAD_BODY_LIMIT,
    errorAnswer: { schema: defaultUploadErrorBody, example: (errorMessage) => ({ errorMessage }), answer: uploadErrorAnswer },
    documentedRequest: {
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: { file: { ...binarySchema, description: "The file; its part's filename (its last path segment) and Content-Type are recorded" } },
          },
        },
      },
    },
    // A slot that is unknown or gone answers 410, never 404.
    notFound: false,
    // Failures answer in the provider's error body (errorAnswer), documented for every status below.
    responses: {
      200: {
        description: "The provider's upload body: by default { uploadId }, the temp file's id; a provider's `props` override shapes it",
        schema: defaultUploadBody,
      },
      400: { description: "Not multipart/form-data, no `file` part with a filename, or a body cut off before its closing boundary" },
      403: { description: "The link is missing, malformed or tampered with, or names another integration's slot" },
      409: { description: "The slot has already taken a file" },
      410: { description: "The link or its slot has expired, or the slot is unknown or gone (the message says so)" },
      413: { description: "The file is over the slot's maxFileSize, or the body over the 25 MiB ceiling (details in the message)" },
      415: { description: "The file is outside the slot's accept list (by extension or MIME type)" },
    },
    handler: (c, { params }) => receiveUpload(c, params),
  }),
];
