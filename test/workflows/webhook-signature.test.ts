// The webhook signature check on its own: every location and method, with
// signatures computed here by WebCrypto independently of the code under test.
import { describe, expect, it } from "vitest";
import { atPath, presentedSignature, verifySignature, type SignedRequest, type Verification } from "../../src/workflows/triggers/webhook-signature";

const SECRET = "whsec_test-secret-0123456789";
const encoder = new TextEncoder();

async function hexHmac(hash: "SHA-256" | "SHA-1", secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(data)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function request(parts: { headers?: Record<string, string>; query?: string; body?: unknown; raw?: string }): SignedRequest {
  const raw = parts.raw ?? (typeof parts.body === "string" ? parts.body : JSON.stringify(parts.body ?? null));
  return { headers: new Headers(parts.headers), query: new URLSearchParams(parts.query ?? ""), body: parts.body, raw: encoder.encode(raw) };
}

const sha256Header: Verification = { location: "header", key: "X-Signature", method: "hmac-sha256" };
const sha1Query: Verification = { location: "query", key: "sig", method: "hmac-sha1" };

describe("atPath", () => {
  it("walks objects and arrays by dotted path and answers undefined for anything absent", () => {
    const doc = { a: { b: [{ c: "deep" }] }, s: "top" };
    expect(atPath(doc, "a.b.0.c")).toBe("deep");
    expect(atPath(doc, "s")).toBe("top");
    expect(atPath(doc, "a.x")).toBeUndefined();
    expect(atPath(doc, "s.length")).toBeUndefined();
    expect(atPath("text", "a")).toBeUndefined();
    expect(atPath({}, "constructor")).toBeUndefined();
  });
});

describe("presentedSignature", () => {
  it("reads the header by name in any case, the query parameter, and a string body field; a non-string or empty one is missing", () => {
    expect(presentedSignature(sha256Header, request({ headers: { "x-signature": "abc" } }))).toBe("abc");
    expect(presentedSignature(sha1Query, request({ query: "sig=def" }))).toBe("def");
    const body: Verification = { location: "body", key: "auth.token", method: "exact" };
    expect(presentedSignature(body, request({ body: { auth: { token: "t" } } }))).toBe("t");
    expect(presentedSignature(body, request({ body: { auth: { token: 42 } } }))).toBeUndefined();
    expect(presentedSignature(sha1Query, request({ query: "sig=" }))).toBeUndefined();
  });
});

describe("verifySignature", () => {
  const raw = '{"event":"push","n":1}';

  it("hmac-sha256 in a header: the lowercase hex passes, with or without sha256=, and in upper case", async () => {
    const hex = await hexHmac("SHA-256", SECRET, raw);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    for (const sig of [hex, `sha256=${hex}`, hex.toUpperCase(), `SHA256=${hex}`]) {
      expect(await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": sig }, raw }))).toEqual({ ok: true });
    }
  });

  it("hmac-sha256 refuses a wrong secret, another body, the sha1= prefix, a truncated hex and a missing header, saying which", async () => {
    const hex = await hexHmac("SHA-256", SECRET, raw);
    const wrong = await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": await hexHmac("SHA-256", "whsec_other", raw) }, raw }));
    expect(wrong).toEqual({ ok: false, reason: "The signature (header X-Signature) is not the hmac-sha256 of the body as hex" });
    expect((await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": hex }, raw: raw + " " }))).ok).toBe(false);
    expect(await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": `sha1=${hex}` }, raw }))).toEqual({
      ok: false,
      reason: "The signature (header X-Signature) is prefixed sha1= but the trigger verifies hmac-sha256",
    });
    expect(await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": hex.slice(2) }, raw }))).toEqual({
      ok: false,
      reason: "The signature (header X-Signature) is not the hmac-sha256 of the body as hex (64 hex digits expected)",
    });
    expect(await verifySignature(sha256Header, SECRET, request({ raw }))).toEqual({ ok: false, reason: "The signature (header X-Signature) is missing" });
  });

  it("hmac-sha1 in the query: sha1= prefix or bare hex passes; a sha256 of the body does not", async () => {
    const hex = await hexHmac("SHA-1", SECRET, raw);
    expect(hex).toHaveLength(40);
    expect(await verifySignature(sha1Query, SECRET, request({ query: `sig=${hex}`, raw }))).toEqual({ ok: true });
    expect(await verifySignature(sha1Query, SECRET, request({ query: `sig=sha1%3D${hex}`, raw }))).toEqual({ ok: true });
    const sha256 = await hexHmac("SHA-256", SECRET, raw);
    expect((await verifySignature(sha1Query, SECRET, request({ query: `sig=${sha256}`, raw }))).ok).toBe(false);
    expect((await verifySignature(sha1Query, SECRET, request({ query: `sig=sha256%3D${hex}`, raw }))).ok).toBe(false);
  });

  it("exact: the value must be the whole secret, never a prefix of it or the secret with more", async () => {
    const header: Verification = { location: "header", key: "X-Token", method: "exact" };
    expect(await verifySignature(header, SECRET, request({ headers: { "X-Token": SECRET } }))).toEqual({ ok: true });
    expect(await verifySignature(header, SECRET, request({ headers: { "X-Token": SECRET.slice(0, -1) } }))).toEqual({
      ok: false,
      reason: "The signature (header X-Token) does not match the trigger's secret",
    });
    expect((await verifySignature(header, SECRET, request({ headers: { "X-Token": `${SECRET}x` } }))).ok).toBe(false);
    const body: Verification = { location: "body", key: "token", method: "exact" };
    expect(await verifySignature(body, SECRET, request({ body: { token: SECRET } }))).toEqual({ ok: true });
    expect(await verifySignature(body, SECRET, request({ body: "plain text" }))).toEqual({ ok: false, reason: "The signature (body field token) is missing" });
  });

  it("never puts the secret or the expected signature into a refusal", async () => {
    const expected = await hexHmac("SHA-256", SECRET, raw);
    const verdict = await verifySignature(sha256Header, SECRET, request({ headers: { "X-Signature": "00".repeat(32) }, raw }));
    expect(verdict.ok).toBe(false);
    const reason = (verdict as { reason: string }).reason;
    expect(reason).not.toContain(SECRET);
    expect(reason).not.toContain(expected);
  });
});
