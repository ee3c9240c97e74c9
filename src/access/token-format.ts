// The PAT format. scripts/lib/db.mjs mints the bootstrap PAT in the same format.
import { base64url, randomBytes, sha256, toHex } from "../lib/crypto";

export async function newPat() {
  const clientId = `pat_${toHex(randomBytes(12))}`;
  const clientSecret = `sk_${base64url(randomBytes(32))}`;
  return { clientId, clientSecret, secretHash: await sha256(clientSecret) };
}
