// One file out of a multipart/form-data body, streamed: the parts before it
// are read past, the file part's bytes are handed on as they arrive, and the
// rest of the body is read to its closing delimiter before that stream ends,
// so a body cut off anywhere errors the stream instead of ending it early.
// Nothing is held beyond one chunk of the body and one part's headers.
// (The platform's Request.formData() holds the whole body; the multipart
// libraries for Workers buffer each part whole.)
import { ApiError } from "../errors";

/** A part's header section: more than this is not a browser's or curl's. */
const MAX_HEADER_BYTES = 16 * 1024;
/** RFC 2046 allows 70; leave room for clients that go past it. */
const MAX_BOUNDARY_LENGTH = 200;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF = encoder.encode("\r\n");
const HEADER_END = encoder.encode("\r\n\r\n");

export interface FilePart {
  /** The part's filename as sent (`filename*` when given), undecided about paths and control characters. */
  filename: string;
  /** The part's Content-Type, when it has one. */
  contentType: string | undefined;
  body: ReadableStream<Uint8Array>;
}

function malformed(reason: string): ApiError {
  return new ApiError("BAD_REQUEST", "Request body is not valid multipart/form-data", { reason });
}

/** The `boundary` parameter of a multipart/form-data Content-Type. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= MAX_BOUNDARY_LENGTH ? boundary : undefined;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(needle[0], from); i !== -1 && i <= last; i = haystack.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The body as bytes not yet looked at plus the reader behind them. */
class Scanner {
  private pending: Uint8Array;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    start: Uint8Array,
  ) {
    this.pending = start;
  }

  /** More bytes into `pending`; false at the body's end. */
  private async more(): Promise<boolean> {
    const { value, done } = await this.reader.read();
    if (done) return false;
    this.pending = concat(this.pending, value);
    return true;
  }

  /** At least `n` bytes pending, else the body was cut off. */
  async peek(n: number): Promise<Uint8Array> {
    while (this.pending.length < n) if (!(await this.more())) throw malformed("the body ends before its closing boundary");
    return this.pending.subarray(0, n);
  }

  /** The bytes before `delimiter` (at most `max`), with the delimiter consumed. */
  async until(delimiter: Uint8Array, max: number): Promise<Uint8Array> {
    for (let from = 0; ; ) {
      const at = indexOf(this.pending, delimiter, from);
      if (at !== -1) {
        const before = this.pending.subarray(0, at);
        this.pending = this.pending.subarray(at + delimiter.length);
        return before;
      }
      if (this.pending.length > max + delimiter.length) throw malformed(`a part's headers are longer than ${max} bytes`);
      from = Math.max(0, this.pending.length - delimiter.length + 1);
      if (!(await this.more())) throw malformed("the body ends before its closing boundary");
    }
  }

  /**
   * The next bytes before `delimiter` as they arrive, or null once the
   * delimiter is reached (and consumed). The last `delimiter.length - 1`
   * bytes are held back until more arrive, since they may begin the delimiter.
   */
  async next(delimiter: Uint8Array): Promise<Uint8Array | null> {
    for (;;) {
      const at = indexOf(this.pending, delimiter);
      if (at === 0) {
        this.pending = this.pending.subarray(delimiter.length);
        return null;
      }
      const ready = at > 0 ? at : this.pending.length - Math.min(this.pending.length, delimiter.length - 1);
      if (ready > 0) {
        const bytes = this.pending.subarray(0, ready);
        this.pending = this.pending.subarray(ready);
        return bytes;
      }
      if (!(await this.more())) throw malformed("the body ends before its closing boundary");
    }
  }

  /** Reads past everything up to `delimiter` and the delimiter. */
  async skip(delimiter: Uint8Array): Promise<void> {
    while ((await this.next(delimiter)) !== null);
  }

  cancel(reason: unknown): Promise<void> {
    return this.reader.cancel(reason);
  }
}

interface PartHead {
  name?: string;
  filename?: string;
  contentType?: string;
}

/** A quoted-string's content; a backslash escapes only `"` and `\` (browsers send Windows paths unescaped). */
function unquote(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(["\\])/g, "$1") : value.trim();
}

/** RFC 8187 `filename*`: `UTF-8''<percent-encoded>`; another charset is not read. */
function extValue(value: string): string | undefined {
  const match = /^utf-8'[^']*'(.*)$/i.exec(value.trim());
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

function parseHead(block: Uint8Array): PartHead {
  // The block is the rest of the boundary line (transport padding), then the header lines.
  const [, ...lines] = decoder.decode(block).split("\r\n");
  const head: PartHead = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon === -1) throw malformed("a part header has no colon");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-type") head.contentType = value;
    if (name !== "content-disposition") continue;
    let extended: string | undefined;
    for (const param of value.matchAll(/;\s*([^=\s;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
      const key = param[1].toLowerCase();
      if (key === "name") head.name = unquote(param[2]);
      else if (key === "filename") head.filename = unquote(param[2]);
      else if (key === "filename*") extended = extValue(param[2]);
    }
    if (extended !== undefined) head.filename = extended;
  }
  return head;
}

/**
 * The first part named `field` that carries a filename. The parts before it
 * are read and dropped; its `body` ends only once the closing boundary has
 * been read (the parts after it are dropped too), and errors with 400 when
 * the body is malformed or ends early. 400 as well when the body has no
 * such part.
 */
export async function filePart(body: ReadableStream<Uint8Array>, boundary: string, field: string): Promise<FilePart> {
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  // A body opens with its first boundary line; a CRLF before it lets one delimiter find every boundary.
  const scanner = new Scanner(body.getReader(), CRLF);
  try {
    await scanner.skip(delimiter);
    for (;;) {
      const after = await scanner.peek(2);
      if (after[0] === 0x2d && after[1] === 0x2d) throw malformed(`the body has no ${field} part with a filename`);
      const head = parseHead(await scanner.until(HEADER_END, MAX_HEADER_BYTES));
      if (head.name === field && head.filename !== undefined) {
        return { filename: head.filename, contentType: head.contentType, body: partBody(scanner, delimiter) };
      }
      await scanner.skip(delimiter);
    }
  } catch (e) {
    await scanner.cancel(e).catch(() => {});
    throw e;
  }
}

/** The file part's bytes; the stream closes once the rest of the body has been read to its closing boundary. */
function partBody(scanner: Scanner, delimiter: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const bytes = await scanner.next(delimiter);
          if (bytes) return controller.enqueue(bytes);
          await restOfBody(scanner, delimiter);
          controller.close();
        } catch (e) {
          await scanner.cancel(e).catch(() => {});
          controller.error(e);
        }
      },
      cancel: (reason) => scanner.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

async function restOfBody(scanner: Scanner, delimiter: Uint8Array): Promise<void> {
  for (;;) {
    const after = await scanner.peek(2);
    if (after[0] === 0x2d && after[1] === 0x2d) return;
    await scanner.until(HEADER_END, MAX_HEADER_BYTES);
    await scanner.skip(delimiter);
  }
}
