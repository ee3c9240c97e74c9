// The streaming multipart reader (src/lib/files/multipart.ts): one file part
// out of a body however it is chunked, the rest of the body read to its
// closing boundary, and every malformed or cut-off body refused with 400.
import { describe, expect, it } from "vitest";
import { filePart, multipartBoundary } from "../../src/lib/files/multipart";
import { ApiError } from "../../src/lib/errors";

const enc = new TextEncoder();
const BOUNDARY = "----b0undary";

function join(...parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === "string" ? enc.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

function body(file: Uint8Array, opts: { before?: string; after?: string; disposition?: string; type?: string; close?: boolean } = {}): Uint8Array {
  return join(
    "preamble to ignore\r\n",
    opts.before ?? "",
    `--${BOUNDARY}\r\n`,
    `Content-Disposition: ${opts.disposition ?? 'form-data; name="file"; filename="a.bin"'}\r\n`,
    opts.type === undefined ? "Content-Type: application/pdf\r\n" : opts.type,
    "\r\n",
    file,
    "\r\n",
    opts.after ?? "",
    opts.close === false ? "" : `--${BOUNDARY}--\r\nepilogue`,
  );
}

/** The bytes as a stream cut into pieces of the sizes given, cycling. */
function chunked(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes[i++ % sizes.length];
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const e = await work.then(
    () => undefined,
    (err) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  expect((e as ApiError).status).toBe(400);
  return e as ApiError;
}

describe("multipartBoundary", () => {
  it("reads the boundary of multipart/form-data only", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(multipartBoundary(`Multipart/Form-Data;boundary="a b;c"`)).toBe("a b;c");
    expect(multipartBoundary("multipart/mixed; boundary=x")).toBeUndefined();
    expect(multipartBoundary("multipart/form-data")).toBeUndefined();
    expect(multipartBoundary(`multipart/form-data; boundary=${"x".repeat(201)}`)).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });
});

describe("filePart", () => {
  // Bytes that start like the delimiter and then do not finish it, at every offset.
  const tricky = join(
    new Uint8Array(1000).fill(7),
    `\r\n--${BOUNDARY.slice(0, 5)}`,
    "\r\n-",
    "\r\n--",
    `\r\n--${BOUNDARY.slice(0, -1)}\0`,
    new Uint8Array(300).fill(13),
  );

  for (const sizes of [[1], [2, 3], [7], [64], [65536], [13, 1, 100]]) {
    it(`hands on the file part's bytes exactly, chunked by ${sizes.join(",")}`, async () => {
      const part = await filePart(chunked(body(tricky), sizes), BOUNDARY, "file");
      expect(part.filename).toBe("a.bin");
      expect(part.contentType).toBe("application/pdf");
      expect(await read(part.body)).toEqual(tricky);
    });
  }

  it("reads past fields before the file and parts after it", async () => {
    const before = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="other"; filename="x.txt"\r\n\r\nnot this one\r\n`;
    const after = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="more"\r\n\r\ntail\r\n`;
    const part = await filePart(chunked(body(enc.encode("the file"), { before, after }), [5]), BOUNDARY, "file");
    expect(part.filename).toBe("a.bin");
    expect(new TextDecoder().decode(await read(part.body))).toBe("the file");
  });

  it("takes an empty file and a part without Content-Type", async () => {
    const part = await filePart(chunked(body(new Uint8Array(), { type: "" }), [3]), BOUNDARY, "file");
    expect(part.contentType).toBeUndefined();
    expect((await read(part.body)).length).toBe(0);
  });

  it('reads filename* (RFC 8187) over filename, and quoted escapes of " and \\ only', async () => {
    const ext = await filePart(
      chunked(body(enc.encode("x"), { disposition: `form-data; name="file"; filename="plain.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf` }), [4]),
      BOUNDARY,
      "file",
    );
    expect(ext.filename).toBe("résumé.pdf");
    await read(ext.body);
    const quoted = await filePart(
      chunked(body(enc.encode("x"), { disposition: String.raw`form-data; name="file"; filename="C:\dir\say \"hi\" \\ .txt"` }), [4]),
      BOUNDARY,
      "file",
    );
    expect(quoted.filename).toBe(String.raw`C:\dir\say "hi" \ .txt`);
  });

  it("errors the file's stream when the body ends before its closing boundary", async () => {
    const cut = body(enc.encode("half a file"), { close: false });
    const part = await filePart(chunked(cut.slice(0, cut.length - 6), [8]), BOUNDARY, "file");
    const e = await refusal(read(part.body));
    expect(e.details.reason).toBe("the body ends before its closing boundary");
    const afterFile = await filePart(chunked(body(enc.encode("whole"), { close: false }), [8]), BOUNDARY, "file");
    await refusal(read(afterFile.body));
  });

  it("refuses a body without the file part, or with headers past 16 KiB, before any byte of a file", async () => {
    const noFile = join(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${BOUNDARY}--\r\n`);
    expect((await refusal(filePart(chunked(noFile, [10]), BOUNDARY, "file"))).details.reason).toBe("the body has no file part with a filename");
    const long = body(enc.encode("x"), { type: `X-Pad: ${"p".repeat(20_000)}\r\n` });
    expect((await refusal(filePart(chunked(long, [1000]), BOUNDARY, "file"))).details.reason).toMatch(/longer than 16384 bytes/);
    await refusal(filePart(chunked(enc.encode("no boundary at all"), [4]), BOUNDARY, "file"));
  });
});
