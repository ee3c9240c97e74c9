// Secret values at rest: AES-256-GCM under the tenant's secrets key
// (lib/tenant-key.ts, purpose "secrets"), one random 96-bit IV per value, and
// the row's address (tenant, scope, principal, name) as additional
// authenticated data, so a ciphertext copied to another row, principal or
// tenant fails to open instead of answering that row's value.
//
//   stored = 0x01 (format 1) || IV (12 bytes) || AES-GCM ciphertext with its 16-byte tag
import { randomBytes } from "../../lib/crypto";
import { tenantKeyBits } from "../../lib/tenant-key";

export type SecretScope = "tenant" | "user" | "company" | "team";

/** Which row a value belongs to; bound into its ciphertext. */
export interface SecretAddress {
  tenantId: string;
  /** `webhook`: a webhook trigger's signing secret, with the trigger's id as principal. */
  scope: SecretScope | "webhook";
  /** Null for tenant scope. */
  principalId: string | null;
  name: string;
}

const FORMAT = 0x01;
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The tenant's key for secret values, derived from MASTER_KEY. */
export async function secretsKey(masterKey: string, tenantId: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", await tenantKeyBits(masterKey, "secrets", tenantId), "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A JSON array, so no two addresses encode alike (a name cannot pass for a principal). */
function additionalData(address: SecretAddress): Uint8Array {
  return encoder.encode(JSON.stringify([address.tenantId, address.scope, address.principalId, address.name]));
}

/** `key` is secretsKey(MASTER_KEY, address.tenantId). */
export async function sealSecret(key: CryptoKey, address: SecretAddress, value: string): Promise<Uint8Array> {
  const iv = randomBytes(IV_BYTES);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: additionalData(address) }, key, encoder.encode(value)));
  const out = new Uint8Array(1 + IV_BYTES + sealed.byteLength);
  out[0] = FORMAT;
  out.set(iv, 1);
  out.set(sealed, 1 + IV_BYTES);
  return out;
}

/** The value, or null when the bytes are not a value sealed for this address. */
export async function openSecret(key: CryptoKey, address: SecretAddress, stored: Uint8Array): Promise<string | null> {
  if (stored[0] !== FORMAT || stored.byteLength < 1 + IV_BYTES + 16) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: stored.subarray(1, 1 + IV_BYTES), additionalData: additionalData(address) },
      key,
      stored.subarray(1 + IV_BYTES),
    );
    return decoder.decode(plain);
  } catch {
    return null;
  }
}
