// Helpers for the artifact and temp-file tests; everything still goes through the gateway.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { basic, call } from "../support/api";

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** Random bytes (getRandomValues fills at most 64 KiB per call). */
export function randomData(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 65536) crypto.getRandomValues(out.subarray(at, Math.min(n, at + 65536)));
  return out;
}

/** A body of unknown length: the runtime sends it chunked, without Content-Length. */
export function streamOf(bytes: Uint8Array, chunk = 100_000): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunk));
      at += chunk;
    },
  });
}

/**
 * Byte-for-byte comparison: the first index where the two differ (a length
 * difference counts at the shorter length), or -1 when they are equal.
 * (toEqual walks big typed arrays element by element, far too slowly for MiBs.)
 */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.byteLength === b.byteLength ? -1 : n;
}

/** True when `needle` occurs in `haystack`. */
export function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.byteLength <= haystack.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** Fetches an absolute URL (an upload or download link) with no credentials unless given. */
export async function fetchUrl(url: string, init: RequestInit = {}) {
  const res = await SELF.fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  let json: any;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, json };
}

/** A PAT holding only the given permissions (a role made for it). */
export async function tokenWith(adminAuth: string, permissions: string[]): Promise<string> {
  const name = `r-${crypto.randomUUID().slice(0, 8)}`;
  const role = await call("POST", "/access/roles", { auth: adminAuth, body: { name, permissions } });
  expect(role.status, JSON.stringify(role.json)).toBe(201);
  const token = await call("POST", "/access/api-tokens", { auth: adminAuth, body: { name, role_names: [name] } });
  expect(token.status, JSON.stringify(token.json)).toBe(201);
  return basic(token.json.data.client_id, token.json.data.client_secret);
}

/** Seconds between an RFC 3339 time and now. */
export function secondsFromNow(iso: string): number {
  return (Date.parse(iso) - Date.now()) / 1000;
}
