// Per-tenant key material derived from MASTER_KEY, one derivation for every
// use so that no two uses share a key:
//
//   tenant key = HKDF-SHA256(MASTER_KEY, salt "entity-platform/<purpose>", info "tenant:<tenant id>"), 256 bits
//
// The purpose sits in the salt (not the info) because the files' key was
// derived that way first, and stored files must keep decrypting.
const encoder = new TextEncoder();

export type KeyPurpose = "files" | "secrets";

const masterKeys = new Map<string, Promise<CryptoKey>>();

function masterKey(secret: string): Promise<CryptoKey> {
  let key = masterKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"]);
    masterKeys.set(secret, key);
  }
  return key;
}

export async function tenantKeyBits(secret: string, purpose: KeyPurpose, tenantId: string): Promise<ArrayBuffer> {
  return crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode(`entity-platform/${purpose}`), info: encoder.encode(`tenant:${tenantId}`) },
    await masterKey(secret),
    256,
  );
}
