// The HTTP side of file routes: raw request bodies in, byte streams out, and
// the header encodings file names need.
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import type { Upload } from "./object-store";

/** The request's body as an upload; its length is known when Content-Length was sent. */
export function rawUpload(c: Context<HonoEnv>): Upload {
  const declared = c.req.header("Content-Length");
  const body = c.req.raw.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return { body, length: declared === undefined ? undefined : Number(declared) };
}

/**
 * Header values are Latin-1 on the wire; a file name can be any text. Keep
 * printable ASCII and percent-encode the rest as UTF-8 (and `%` itself), so
 * `decodeURIComponent` gives the name back.
 */
export function headerText(text: string, keep = /^[\x20-\x24\x26-\x7e]$/): string {
  let out = "";
  for (const ch of text) {
    if (keep.test(ch)) out += ch;
    // A lone surrogate has no UTF-8 form; stand in U+FFFD as TextEncoder does.
    else if (/^[\ud800-\udfff]$/.test(ch)) out += "%EF%BF%BD";
    else out += encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

/** A header value sent percent-encoded (or plain); text that is not valid percent-encoding is taken as is. */
export function fromHeaderText(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** RFC 6266: an ASCII fallback for old clients plus the exact name as RFC 8187 `filename*`. */
export function attachment(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${headerText(filename, /^[A-Za-z0-9!#$&+.^_`|~-]$/)}`;
}

/**
 * Stored bytes going out. nosniff, and no caching: the links are bearer
 * capabilities, and a shared cache must not keep what they unlock.
 */
export function fileResponse(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Response {
  return new Response(body, {
    status: 200,
    headers: { "X-Content-Type-Options": "nosniff", "Cache-Control": "private, no-store", ...headers },
  });
}
