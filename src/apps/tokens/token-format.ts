// The app token format: `svc_at_` and 64 lowercase hex digits (256 random
// bits). Only its SHA-256 is stored: a fast hash is enough for a value that
// cannot be guessed, and a render finds the token's row by that hash alone.
import { randomBytes, sha256, toHex } from "../../lib/crypto";

export const APP_TOKEN = /^svc_at_[0-9a-f]{64}$/;

export async function newAppToken(): Promise<{ raw: string; hash: Uint8Array }> {
  const raw = `svc_at_${toHex(randomBytes(32))}`;
  return { raw, hash: await sha256(raw) };
}
