// File bytes in the FILES R2 bucket, encrypted (crypto-stream.ts) on the way
// in and decrypted on the way out, streaming both ways. Key layout:
//
//   artifacts/<tenant id>/<artifact id>/<object id>   a fresh id per upload (artifacts/service.ts says why)
//   temp-files/<tenant id>/<temp file id>
//
// (kind first, so an R2 lifecycle rule can sweep `temp-files/` as a backstop).
import { ApiError } from "../errors";
import { toHex } from "../crypto";
import { decryptStream, encryptStream, encryptedLength } from "./crypto-stream";
import { FixedChunks } from "./fixed-chunks";

/** Files are at most 25 MiB (docs/api.md, Files). */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** R2's smallest multipart part; every part but the last must be this one size. */
const PART_BYTES = 5 * 1024 * 1024;
/** R2 deletes at most this many keys per call. */
const DELETE_BATCH = 1000;

export const artifactStorageKey = (tenantId: string, artifactId: string, objectId: string) => `artifacts/${tenantId}/${artifactId}/${objectId}`;
export const tempFileStorageKey = (tenantId: string, tempFileId: string) => `temp-files/${tenantId}/${tempFileId}`;

export function fileTooLarge(): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `A file may be at most ${MAX_FILE_BYTES} bytes`, { limit: MAX_FILE_BYTES });
}

export interface Upload {
  body: ReadableStream<Uint8Array>;
  /**
   * The byte count when known up front (a Content-Length, a File's size): the
   * bytes then stream to R2 as they arrive. Without it R2 needs lengths per
   * request, so they go as multipart parts of 5 MiB, one part held at a time.
   */
  length?: number;
}

export interface Stored {
  size: number;
  /** Lowercase hex SHA-256 of the plaintext, when asked for. */
  sha256?: string;
}

/** Counts the plaintext as it passes, refuses it past the file limit, and hashes it if asked. */
function meter(hash: boolean) {
  const digest = hash ? new crypto.DigestStream("SHA-256") : undefined;
  const writer = digest?.getWriter();
  let size = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > MAX_FILE_BYTES) throw fileTooLarge();
      await writer?.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      await writer?.close();
    },
  });
  return { stream, size: () => size, sha256: async () => (digest ? toHex(new Uint8Array(await digest.digest)) : undefined) };
}

export class FileStore {
  constructor(
    private readonly bucket: R2Bucket,
    private readonly masterKey: string,
  ) {}

  /** Encrypts and stores the bytes under `storageKey`; refuses more than MAX_FILE_BYTES with 413. */
  async put(tenantId: string, storageKey: string, upload: Upload, opts: { sha256?: boolean } = {}): Promise<Stored> {
    if (upload.length !== undefined && upload.length > MAX_FILE_BYTES) throw fileTooLarge();
    const counted = meter(opts.sha256 ?? false);
    const sealed = upload.body.pipeThrough(counted.stream).pipeThrough(await encryptStream({ masterKey: this.masterKey, tenantId, storageKey }));
    if (upload.length !== undefined) await this.putKnownLength(storageKey, sealed, encryptedLength(upload.length));
    else await this.putInParts(storageKey, sealed);
    return { size: counted.size(), sha256: await counted.sha256() };
  }

  private async putKnownLength(storageKey: string, sealed: ReadableStream<Uint8Array>, length: number): Promise<void> {
    const fixed = new FixedLengthStream(length);
    const [piped, put] = await Promise.allSettled([sealed.pipeTo(fixed.writable), this.bucket.put(storageKey, fixed.readable)]);
    // A failed read (the caller's stream, the size limit) also fails the put; report the cause.
    if (piped.status === "rejected" && (piped.reason instanceof ApiError || put.status === "fulfilled")) throw piped.reason;
    if (put.status === "rejected") throw put.reason;
  }

  private async putInParts(storageKey: string, sealed: ReadableStream<Uint8Array>): Promise<void> {
    const parts = new FixedChunks(new Uint8Array(PART_BYTES));
    const uploaded: R2UploadedPart[] = [];
    let multipart: R2MultipartUpload | undefined;
    const reader = sealed.getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        await parts.push(r.value, async (part) => {
          multipart ??= await this.bucket.createMultipartUpload(storageKey);
          uploaded.push(await multipart.uploadPart(uploaded.length + 1, part));
        });
      }
      if (!multipart) {
        await this.bucket.put(storageKey, parts.held());
        return;
      }
      uploaded.push(await multipart.uploadPart(uploaded.length + 1, parts.held()));
      await multipart.complete(uploaded);
    } catch (e) {
      await reader.cancel(e).catch(() => {});
      await multipart?.abort().catch(() => {});
      throw e;
    }
  }

  /**
   * The plaintext as a stream of exactly the recorded `size` (a response with
   * it carries Content-Length, and any other length errors the stream), or
   * null when the object is gone.
   */
  async get(tenantId: string, storageKey: string, size: number): Promise<ReadableStream<Uint8Array> | null> {
    const object = await this.bucket.get(storageKey);
    if (!object) return null;
    return object.body.pipeThrough(decryptStream({ masterKey: this.masterKey, tenantId, storageKey })).pipeThrough(new FixedLengthStream(size));
  }

  async delete(storageKeys: string[]): Promise<void> {
    for (let i = 0; i < storageKeys.length; i += DELETE_BATCH) await this.bucket.delete(storageKeys.slice(i, i + DELETE_BATCH));
  }
}
