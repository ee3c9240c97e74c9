// Keyset cursors: opaque to clients and tamper-evident (HMAC-signed), bound to
// the query they continue so a cursor cannot be replayed against another one.
import { base64url, fromBase64url, hmacSha256, timingSafeEqualText } from "./crypto";
import { validationFailed } from "./validate";

const SIG_BYTES = 16;

function keyOf(secret: string) {
  return `cursor:${secret}`;
}

export async function encodeCursor(secret: string, scope: string, position: unknown[]): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify(position)));
  const sig = (await hmacSha256(keyOf(secret), `${scope}\n${payload}`)).slice(0, SIG_BYTES);
  return `${payload}.${base64url(sig)}`;
}

export async function decodeCursor(secret: string, scope: string, cursor: string): Promise<unknown[]> {
  const invalid = validationFailed(["cursor: is invalid or does not belong to this query"], "cursor is invalid or does not belong to this query");
  const [payload, sig] = cursor.split(".");
  if (!payload || !sig) throw invalid;
  const expected = (await hmacSha256(keyOf(secret), `${scope}\n${payload}`)).slice(0, SIG_BYTES);
  if (!timingSafeEqualText(base64url(expected), sig)) throw invalid;
  const position = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  if (!Array.isArray(position)) throw invalid;
  return position;
}
