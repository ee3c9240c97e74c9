// The outbound actions: `http`, `httpCallback`, `llmCallback`. Their request
// fields are the outbound client's (lib/outbound/request.ts).
import { forbidden } from "../../../lib/schemas";
import { HTTP_METHODS, knobProperties, requestProperties } from "../../../lib/outbound/request";
import { declareAction } from "./declare";
import { tempFileIdSchema } from "./files";

/** The fields of `http`, and of `httpCallback` past its own. */
export const httpProperties = {
  ...requestProperties,
  method: { enum: [...HTTP_METHODS] },
  body: {},
  redirect: { enum: ["follow", "manual"] },
  /** The body is this temp file's bytes, its content type the file's unless a header sets one. */
  binaryUpload: { type: "object", required: ["tempFileId"], properties: { tempFileId: tempFileIdSchema }, additionalProperties: false },
} as const;

/**
 * GET and HEAD (GET by default) carry no body: refused with the body's path
 * rather than left to fail in fetch. Typed `object`, so the config types do
 * not see it: json-schema-to-ts would set this `if` against the whole config,
 * auth profiles' own branches included, past what the compiler computes, and
 * the rule adds nothing to a type (a `not` is not followed).
 */
const bodyRule: object = {
  if: { not: { required: ["method"], properties: { method: { enum: ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"] } } } },
  then: { properties: { body: forbidden, binaryUpload: forbidden } },
};

/** How long the target has to call back, by default and at most. */
export const CALLBACK_TIMEOUT_MS = { default: 3_600_000, min: 1000, max: 7 * 24 * 3_600_000 } as const;

export const MAX_MESSAGES = 1000;

const { url, headers, auth } = requestProperties;

export const outboundDeclarations = {
  http: declareAction({
    name: "http",
    configSchema: { type: "object", required: ["url"], properties: httpProperties, additionalProperties: false, ...bodyRule },
  }),
  httpCallback: declareAction({
    name: "httpCallback",
    configSchema: {
      type: "object",
      required: ["url"],
      properties: {
        ...httpProperties,
        callbackTimeoutMs: { type: "integer", minimum: CALLBACK_TIMEOUT_MS.min, maximum: CALLBACK_TIMEOUT_MS.max },
        /** A field of a JSON object body that also carries the callback URL. */
        callbackField: { type: "string", minLength: 1, maxLength: 200 },
      },
      additionalProperties: false,
      ...bodyRule,
    },
  }),
  llmCallback: declareAction({
    name: "llmCallback",
    configSchema: {
      type: "object",
      required: ["url", "model"],
      properties: {
        url,
        headers,
        auth,
        ...knobProperties,
        model: { type: "string", minLength: 1, maxLength: 200 },
        messages: {
          type: "array",
          minItems: 1,
          maxItems: MAX_MESSAGES,
          items: {
            type: "object",
            required: ["role", "content"],
            properties: { role: { enum: ["system", "user", "assistant", "tool", "developer"] }, content: true, name: { type: "string" } },
            additionalProperties: true,
          },
        },
        /** One user message: the shorthand for `messages: [{ role: "user", content: prompt }]`. */
        prompt: { type: "string", minLength: 1 },
        temperature: { type: "number", minimum: 0, maximum: 2 },
        maxTokens: { type: "integer", minimum: 1 },
        /** The provider's `response_format` (for example `{ "type": "json_object" }`), passed as given. */
        responseFormat: { type: "object", required: ["type"], properties: { type: { type: "string" } }, additionalProperties: true },
      },
      additionalProperties: false,
    },
  }),
};
