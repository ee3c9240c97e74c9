// The HTTP side of file routes: raw request bodies in, byte streams out, and
// the header encodings file names need.
import type { Context } from "hono";
import type { Upload } from "./object-store";

/** The request's body as an upload; its length is known when Content-Length was sent. */
export function rawUpload(c: Context): Upload {
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
export function attachment(filename: string, disposition: "attachment" | "inline" = "attachment"): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${headerText(filename, /^[A-Za-z0-9!#$&+.^_`|~-]$/)}`;
}

/**
 * Types a browser shows in place without running anything: the images it
 * decodes, PDF in its viewer, plain text. HTML, SVG and XML are not among
 * them: they carry script.
 */
const SHOWN_IN_PLACE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain"]);

/**
 * How a download link serves a file: a type SHOWN_IN_PLACE inline under its
 * recorded type (parameters such as charset kept), any other as an opaque
 * attachment. Either way in a CSP sandbox, so whatever a browser makes of
 * the bytes runs no script with the service's origin; fileResponse adds
 * nosniff, so the browser keeps to the declared type.
 */
export function linkedFileHeaders(name: string, contentType: string): Record<string, string> {
  const shown = SHOWN_IN_PLACE.has(contentType.split(";")[0].trim().toLowerCase());
  return {
    "Content-Type": shown ? contentType : "application/octet-stream",
    "Content-Disposition": attachment(name, shown ? "inline" : "attachment"),
    "Content-Security-Policy": "sandbox",
  };
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
