// Bytes that enter or leave the run's state as values (a config's `text` or
// `base64`, a download read `as: text`) rather than as temp files: such values
// are kept in the run's record, so they are capped, and past a cap the action
// fails with 413 naming the cap instead of cutting the bytes short.
import { ApiError } from "../../../lib/errors";
import { validationFailed } from "../../../lib/validate";
import type { Accepted } from "../../../lib/validate";
import type { inlineBytesProperties } from "../../../definition/language/actions/files";

/** The most bytes a config's `text` (UTF-8 encoded) or `base64` (decoded) may carry. */
export const MAX_INLINE_BYTES = 1024 * 1024;

export type InlineBytes = Accepted<{ type: "object"; properties: typeof inlineBytesProperties; additionalProperties: false }>;

function decodeBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw validationFailed(["config.base64: is not valid base64"], "The config's base64 is not valid");
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The bytes of `text` (as UTF-8) or `base64`, refused past MAX_INLINE_BYTES. */
export function inlineBytes(config: InlineBytes): Uint8Array {
  const field = config.text !== undefined ? "text" : "base64";
  const bytes = config.text !== undefined ? new TextEncoder().encode(config.text) : decodeBase64(config.base64 ?? "");
  if (bytes.byteLength > MAX_INLINE_BYTES) {
    throw new ApiError(
      "PAYLOAD_TOO_LARGE",
      `config.${field} holds ${bytes.byteLength} bytes; a config may carry at most ${MAX_INLINE_BYTES} (pass larger files as a temp file)`,
      { field: `config.${field}`, size: bytes.byteLength, limit: MAX_INLINE_BYTES },
    );
  }
  return bytes;
}

/** The whole body of a file of `size` bytes, refused (and left unread) past `limit`. */
export async function readCapped(body: ReadableStream<Uint8Array>, size: number, limit: number): Promise<Uint8Array> {
  if (size > limit) {
    await body.cancel();
    throw new ApiError("PAYLOAD_TOO_LARGE", `The file is ${size} bytes, over maxTextBytes (${limit}); read it as a temp file instead`, { size, limit });
  }
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** UTF-8 text; bytes that are not UTF-8 are refused rather than replaced. */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("UNPROCESSABLE_ENTITY", "The file is not valid UTF-8 text; read it as a temp file or as base64 instead");
  }
}

export function base64Of(bytes: Uint8Array): string {
  // Built in slices: String.fromCharCode takes its arguments on the stack.
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
