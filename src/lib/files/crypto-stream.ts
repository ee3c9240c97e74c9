// Encryption at rest for file bytes (artifacts, temp files): AES-256-GCM over
// fixed-size records, so a file is encrypted and decrypted as it streams and
// never has to be held whole. The construction follows the STREAM scheme
// (Hoang, Reyhanitabar, Rogaway, Vizár) as Tink's AES-GCM-HKDF streaming AEAD
// uses it:
//
//   object  = header || record_0 || … || record_n-1
//   header  = "EPF" 0x01 (format 1) || record size (uint32 BE) || salt (16) || nonce prefix (7)
//   record  = AES-GCM(object key, nonce_i, plaintext_i) incl. its 16-byte tag
//   nonce_i = nonce prefix (7) || i (uint32 BE) || 0x01 on the last record, else 0x00
//
// Keys: tenant key = HKDF-SHA256(MASTER_KEY, salt "entity-platform/files",
// info "tenant:<tenant id>") (lib/tenant-key.ts); object key = HKDF-SHA256(tenant key, the
// header's random salt, info "object:<R2 key>"). A fresh key per object means
// nonces never repeat under one key however many objects a tenant has, and
// binding the R2 key means bytes copied to another key do not decrypt. The
// counter in the nonce refuses reordered records and the last-record flag
// refuses a truncated object. Every plaintext has at least one record (an
// empty file is one empty last record), so an object is never just a header.
import { ApiError } from "../errors";
import { log } from "../logger";
import { randomBytes } from "../crypto";
import { tenantKeyBits } from "../tenant-key";
import { FixedChunks } from "./fixed-chunks";

const RECORD_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const SALT_BYTES = 16;
const PREFIX_BYTES = 7;
const MAGIC = [0x45, 0x50, 0x46, 0x01];
const HEADER_BYTES = MAGIC.length + 4 + SALT_BYTES + PREFIX_BYTES;
/** A stored header may name another record size; refuse sizes that would make a reader buffer without bound. */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

/** The stored size of `plainBytes` of plaintext. */
export function encryptedLength(plainBytes: number): number {
  const records = Math.max(1, Math.ceil(plainBytes / RECORD_BYTES));
  return HEADER_BYTES + plainBytes + records * TAG_BYTES;
}

async function objectKey(secret: string, tenantId: string, storageKey: string, salt: Uint8Array): Promise<CryptoKey> {
  const tenantKey = await crypto.subtle.importKey("raw", await tenantKeyBits(secret, "files", tenantId), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt, info: encoder.encode(`object:${storageKey}`) },
    tenantKey,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

function nonce(prefix: Uint8Array, counter: number, last: boolean): Uint8Array {
  const out = new Uint8Array(PREFIX_BYTES + 5);
  out.set(prefix);
  new DataView(out.buffer).setUint32(PREFIX_BYTES, counter);
  out[PREFIX_BYTES + 4] = last ? 1 : 0;
  return out;
}

/** Where an object's bytes are encrypted for: the tenant whose key is used and the R2 key bound into it. */
export interface ObjectBinding {
  masterKey: string;
  tenantId: string;
  storageKey: string;
}

export async function encryptStream(binding: ObjectBinding): Promise<TransformStream<Uint8Array, Uint8Array>> {
  const salt = randomBytes(SALT_BYTES);
  const prefix = randomBytes(PREFIX_BYTES);
  const key = await objectKey(binding.masterKey, binding.tenantId, binding.storageKey, salt);
  const header = new Uint8Array(HEADER_BYTES);
  header.set(MAGIC);
  new DataView(header.buffer).setUint32(MAGIC.length, RECORD_BYTES);
  header.set(salt, MAGIC.length + 4);
  header.set(prefix, MAGIC.length + 4 + SALT_BYTES);

  const records = new FixedChunks(new Uint8Array(RECORD_BYTES));
  let counter = 0;
  const seal = async (plain: Uint8Array, last: boolean) =>
    new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce(prefix, counter++, last) }, key, plain));

  return new TransformStream({
    start(controller) {
      controller.enqueue(header);
    },
    async transform(chunk, controller) {
      await records.push(chunk, async (record) => controller.enqueue(await seal(record, false)));
    },
    async flush(controller) {
      controller.enqueue(await seal(records.held(), true));
    },
  });
}

export function decryptStream(binding: ObjectBinding): TransformStream<Uint8Array, Uint8Array> {
  /**
   * A stored object that is not what this service wrote: a server fault. The
   * response has already begun (its status logged as 200), so say so here.
   */
  const corrupt = (reason: string) => {
    log.error("stored file failed its integrity check", { storage_key: binding.storageKey, reason });
    return new ApiError("INTERNAL_ERROR", "A stored file failed its integrity check", { reason });
  };
  const header = new Uint8Array(HEADER_BYTES);
  let headerFilled = 0;
  let records: FixedChunks | undefined;
  let open: ((sealed: Uint8Array, last: boolean) => Promise<Uint8Array>) | undefined;

  async function readHeader() {
    if (!MAGIC.every((b, i) => header[i] === b)) throw corrupt("unknown format");
    const recordBytes = new DataView(header.buffer).getUint32(MAGIC.length);
    if (recordBytes === 0 || recordBytes > MAX_RECORD_BYTES) throw corrupt("bad record size");
    const salt = header.slice(MAGIC.length + 4, MAGIC.length + 4 + SALT_BYTES);
    const prefix = header.slice(MAGIC.length + 4 + SALT_BYTES);
    const key = await objectKey(binding.masterKey, binding.tenantId, binding.storageKey, salt);
    let counter = 0;
    open = async (sealed, last) => {
      const at = counter++;
      try {
        return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce(prefix, at, last) }, key, sealed));
      } catch {
        throw corrupt(`record ${at} failed authentication`);
      }
    };
    records = new FixedChunks(new Uint8Array(recordBytes + TAG_BYTES));
  }

  return new TransformStream({
    async transform(chunk, controller) {
      let body = chunk;
      if (!records) {
        const take = Math.min(HEADER_BYTES - headerFilled, chunk.byteLength);
        header.set(chunk.subarray(0, take), headerFilled);
        headerFilled += take;
        if (headerFilled < HEADER_BYTES) return;
        await readHeader();
        body = chunk.subarray(take);
      }
      await records!.push(body, async (sealed) => controller.enqueue(await open!(sealed, false)));
    },
    async flush(controller) {
      if (!records || records.held().byteLength < TAG_BYTES) throw corrupt("truncated");
      controller.enqueue(await open!(records.held(), true));
    },
  });
}
