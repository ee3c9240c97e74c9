import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { signLink } from "../../src/gateway/capability";
import { encryptedLength } from "../../src/lib/files/crypto-stream";
import { BASE, call, createTenant, expectError, systemQuery } from "../support/api";
import { contains, fetchUrl, firstDifference, KiB, MiB, randomData, secondsFromNow, streamOf, tokenWith } from "./files-support";

async function createTemp(auth: string, bytes: Uint8Array, headers: Record<string, string> = { "X-Temp-File-Name": "data.csv", "Content-Type": "text/csv" }) {
  const res = await call("POST", "/entity/temp-files", { auth, rawBody: bytes, headers });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; name: string; content_type: string; size: number; expires_at: string };
}

async function getTemp(auth: string, id: string) {
  return fetchUrl(`${BASE}/entity/temp-files/${id}`, { headers: { Authorization: auth } });
}

async function downloadUrl(auth: string, id: string, body?: unknown) {
  return call("POST", `/entity/temp-files/${id}/download-url`, { auth, body });
}

async function runScheduled() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("POST /entity/temp-files and GET /entity/temp-files/{id}", () => {
  it("stores the raw body and streams it back byte for byte with the recorded name and type", async () => {
    const { auth } = await createTenant();
    const bytes = randomData(300 * KiB);
    const file = await createTemp(auth, bytes, { "X-Temp-File-Name": "report 2024.csv", "Content-Type": "text/csv; charset=utf-8" });
    expect(file).toMatchObject({ name: "report 2024.csv", content_type: "text/csv; charset=utf-8", size: 300 * KiB });
    expect(file.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(secondsFromNow(file.expires_at)).toBeGreaterThan(24 * 3600 - 60);
    expect(secondsFromNow(file.expires_at)).toBeLessThanOrEqual(24 * 3600 + 1);

    const res = await getTemp(auth, file.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/octet-stream");
    expect(res.headers.get("X-Temp-File-Name")).toBe("report 2024.csv");
    expect(res.headers.get("X-Temp-File-Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(firstDifference(res.bytes, bytes)).toBe(-1);
  });

  it("keeps only ciphertext in R2, under temp-files/<tenant>/<id>", async () => {
    const { auth, tenantId } = await createTenant();
    const bytes = randomData(200 * KiB);
    const file = await createTemp(auth, bytes);
    const object = await env.FILES.get(`temp-files/${tenantId}/${file.id}`);
    expect(object).not.toBeNull();
    const stored = new Uint8Array(await object!.arrayBuffer());
    expect(stored.byteLength).toBe(encryptedLength(200 * KiB));
    expect([...stored.subarray(0, 4)]).toEqual([0x45, 0x50, 0x46, 0x01]);
    for (const at of [0, 70_000, 150_000]) expect(contains(stored, bytes.subarray(at, at + 32))).toBe(false);
  });

  it("takes a body sent without Content-Length, and an empty one", async () => {
    const { auth } = await createTenant();
    const bytes = randomData(700 * KiB);
    const res = await call("POST", "/entity/temp-files", { auth, rawBody: streamOf(bytes), headers: { "X-Temp-File-Name": "s.bin" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ name: "s.bin", content_type: "application/octet-stream", size: 700 * KiB });
    expect(firstDifference((await getTemp(auth, res.json.data.id)).bytes, bytes)).toBe(-1);

    const empty = await createTemp(auth, new Uint8Array(0), { "X-Temp-File-Name": "empty.txt", "Content-Type": "text/plain" });
    expect(empty.size).toBe(0);
    const got = await getTemp(auth, empty.id);
    expect(got.status).toBe(200);
    expect(got.bytes.byteLength).toBe(0);
  });

  it("takes a multipart file part: name and type from the part", async () => {
    const { auth } = await createTenant();
    const bytes = randomData(90 * KiB);
    const form = new FormData();
    form.append("file", new File([bytes], "photo.png", { type: "image/png" }));
    const res = await call("POST", "/entity/temp-files", { auth, rawBody: form });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ name: "photo.png", content_type: "image/png", size: 90 * KiB });
    const got = await getTemp(auth, res.json.data.id);
    expect(got.headers.get("X-Temp-File-Content-Type")).toBe("image/png");
    expect(firstDifference(got.bytes, bytes)).toBe(-1);

    const noFile = new FormData();
    noFile.append("other", "x");
    const err = expectError(await call("POST", "/entity/temp-files", { auth, rawBody: noFile }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["file: is required (a file part)"]);
  });

  it("percent-decodes X-Temp-File-Name and percent-encodes the name going out", async () => {
    const { auth } = await createTenant();
    const file = await createTemp(auth, new TextEncoder().encode("hi"), { "X-Temp-File-Name": "r%C3%A9sum%C3%A9 100%25.txt", "Content-Type": "text/plain" });
    expect(file.name).toBe("résumé 100%.txt");
    const got = await getTemp(auth, file.id);
    expect(got.headers.get("X-Temp-File-Name")).toBe("r%C3%A9sum%C3%A9 100%25.txt");
    expect(decodeURIComponent(got.headers.get("X-Temp-File-Name")!)).toBe("résumé 100%.txt");
  });

  it("records the name without Unicode format characters, from X-Temp-File-Name and from a multipart part", async () => {
    const { auth } = await createTenant();
    const hidden = "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff";
    const raw = await createTemp(auth, new TextEncoder().encode("MZ"), {
      "X-Temp-File-Name": encodeURIComponent(`invoice\u202Efdp${hidden}.exe`),
      "Content-Type": "application/octet-stream",
    });
    expect(raw.name).toBe("invoicefdp.exe");
    expect((await getTemp(auth, raw.id)).headers.get("X-Temp-File-Name")).toBe("invoicefdp.exe");
    const form = new FormData();
    form.append("file", new File([new Uint8Array(2)], "\ufeffreport\u202E.pdf", { type: "application/pdf" }));
    const part = await call("POST", "/entity/temp-files", { auth, rawBody: form });
    expect(part.status, part.text).toBe(201);
    expect(part.json.data.name).toBe("report.pdf");
    // Nothing left is no name: refused like an empty one.
    const empty = expectError(
      await call("POST", "/entity/temp-files", { auth, rawBody: new Uint8Array(1), headers: { "X-Temp-File-Name": encodeURIComponent("\u202E\u200b") } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(empty.details.validation_errors).toEqual([expect.stringMatching(/^name: /)]);
  });

  it("refuses a missing name, a bad content type and a body over 25 MiB, with the envelope", async () => {
    const { auth } = await createTenant();
    const noName = expectError(await call("POST", "/entity/temp-files", { auth, rawBody: new Uint8Array(3) }), 422, "VALIDATION_FAILED");
    expect(noName.details.validation_errors).toEqual(["X-Temp-File-Name: is required"]);
    const badType = expectError(
      await call("POST", "/entity/temp-files", { auth, rawBody: new Uint8Array(3), headers: { "X-Temp-File-Name": "a", "Content-Type": "not a type" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(badType.details.validation_errors).toEqual([expect.stringMatching(/^content_type: /)]);

    const declared = expectError(
      await call("POST", "/entity/temp-files", { auth, rawBody: new Uint8Array(25 * MiB + 1), headers: { "X-Temp-File-Name": "big.bin" } }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(declared.details.limit).toBe(25 * MiB);
    const streamed = expectError(
      await call("POST", "/entity/temp-files", { auth, rawBody: streamOf(new Uint8Array(25 * MiB + 1), 1 * MiB), headers: { "X-Temp-File-Name": "big.bin" } }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(streamed.details.limit).toBe(25 * MiB);
    expect((await systemQuery("SELECT count(*)::int AS n FROM temp_files WHERE name = 'big.bin'"))[0].n).toBe(0);
  });

  it("answers 401 without or with bad credentials, 403 without the permission, 404 for unknown and other tenants' ids", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const file = await createTemp(a.auth, new Uint8Array([1, 2, 3]));

    expectError(await call("POST", "/entity/temp-files", { rawBody: new Uint8Array(1), headers: { "X-Temp-File-Name": "x" } }), 401, "UNAUTHORIZED");
    expectError(await call("GET", `/entity/temp-files/${file.id}`, { auth: "Basic bm9wZTpub3Bl" }), 401, "UNAUTHORIZED");

    const reader = await tokenWith(a.auth, ["entity:read"]);
    const refused = expectError(
      await call("POST", "/entity/temp-files", { auth: reader, rawBody: new Uint8Array(1), headers: { "X-Temp-File-Name": "x" } }),
      403,
      "FORBIDDEN",
    );
    expect(refused.details).toMatchObject({ resource: "entity", action: "create" });
    expect((await getTemp(reader, file.id)).bytes).toEqual(new Uint8Array([1, 2, 3]));
    const writer = await tokenWith(a.auth, ["entity:create"]);
    expectError(await call("GET", `/entity/temp-files/${file.id}`, { auth: writer }), 403, "FORBIDDEN");

    expectError(await call("GET", `/entity/temp-files/${file.id}`, { auth: b.auth }), 404, "NOT_FOUND");
    expectError(await downloadUrl(b.auth, file.id), 404, "NOT_FOUND");
    expectError(await call("GET", `/entity/temp-files/${crypto.randomUUID()}`, { auth: a.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/entity/temp-files/nope", { auth: a.auth }), 422, "VALIDATION_FAILED");
  });
});

describe("temp-file download links", () => {
  it("mints a credential-free link (default ttl 900) that downloads as an attachment", async () => {
    const { auth } = await createTenant();
    const bytes = randomData(130 * KiB);
    const file = await createTemp(auth, bytes, { "X-Temp-File-Name": 'na%C3%AFve "q".csv', "Content-Type": "text/csv" });
    for (const res of [await downloadUrl(auth, file.id), await call("POST", `/entity/temp-files/${file.id}/download-url`, { auth, body: {} })]) {
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.json.data).sort()).toEqual(["expires_at", "url"]);
      expect(secondsFromNow(res.json.data.expires_at)).toBeGreaterThan(895);
      expect(secondsFromNow(res.json.data.expires_at)).toBeLessThanOrEqual(900);
      expect(res.json.data.url).toMatch(new RegExp(`^${BASE}/entity/temp-files/${file.id}/download\\?tenant=[0-9a-f-]{36}&expires=\\d+&signature=[\\w-]{43}$`));
    }
    const { json } = await downloadUrl(auth, file.id);
    const got = await fetchUrl(json.data.url);
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("application/octet-stream");
    expect(got.headers.get("X-Temp-File-Content-Type")).toBe("text/csv");
    expect(got.headers.get("Content-Disposition")).toBe(`attachment; filename="na_ve _q_.csv"; filename*=UTF-8''na%C3%AFve%20%22q%22.csv`);
    expect(got.headers.get("Cache-Control")).toBe("private, no-store");
    expect(firstDifference(got.bytes, bytes)).toBe(-1);
  });

  it("serves PNG, JPEG, GIF, WebP, PDF and plain text inline under their recorded type, sandboxed and nosniff", async () => {
    const { auth } = await createTenant();
    const bytes = randomData(2 * KiB);
    for (const type of ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain", "text/plain; charset=utf-8", "Image/PNG"]) {
      const file = await createTemp(auth, bytes, { "X-Temp-File-Name": "shown%20%C3%A9.bin", "Content-Type": type });
      const got = await fetchUrl((await downloadUrl(auth, file.id)).json.data.url);
      expect(got.status, type).toBe(200);
      expect(got.headers.get("Content-Type"), type).toBe(type);
      expect(got.headers.get("Content-Disposition"), type).toBe(`inline; filename="shown _.bin"; filename*=UTF-8''shown%20%C3%A9.bin`);
      expect(got.headers.get("X-Content-Type-Options"), type).toBe("nosniff");
      expect(got.headers.get("Content-Security-Policy"), type).toBe("sandbox");
      expect(got.headers.get("X-Temp-File-Content-Type"), type).toBe(type);
      expect(firstDifference(got.bytes, bytes)).toBe(-1);
    }
  });

  it("keeps every other type an opaque attachment: markup, SVG, scripts and anything unknown", async () => {
    const { auth } = await createTenant();
    const markup = new TextEncoder().encode("<script>alert(document.domain)</script>");
    for (const type of [
      "text/html",
      "text/html; charset=utf-8",
      "image/svg+xml",
      "application/xhtml+xml",
      "text/xml",
      "application/javascript",
      "text/csv",
      "application/octet-stream",
      "image/pngx",
      "text/plainx",
    ]) {
      const file = await createTemp(auth, markup, { "X-Temp-File-Name": "page.html", "Content-Type": type });
      const got = await fetchUrl((await downloadUrl(auth, file.id)).json.data.url);
      expect(got.status, type).toBe(200);
      expect(got.headers.get("Content-Type"), type).toBe("application/octet-stream");
      expect(got.headers.get("Content-Disposition"), type).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
      expect(got.headers.get("X-Content-Type-Options"), type).toBe("nosniff");
      expect(got.headers.get("Content-Security-Policy"), type).toBe("sandbox");
      expect(got.headers.get("X-Temp-File-Content-Type"), type).toBe(type);
    }
    // The authenticated read stays opaque whatever the type.
    const png = await createTemp(auth, markup, { "X-Temp-File-Name": "a.png", "Content-Type": "image/png" });
    expect((await getTemp(auth, png.id)).headers.get("Content-Type")).toBe("application/octet-stream");
  });

  it("applies the ttl rules: up to 7200, 0 and 7201 refused, never beyond the file's remaining life", async () => {
    const { auth } = await createTenant();
    const file = await createTemp(auth, new Uint8Array([9]));
    const max = await downloadUrl(auth, file.id, { ttl: 7200 });
    expect(max.status).toBe(200);
    expect(secondsFromNow(max.json.data.expires_at)).toBeGreaterThan(7195);
    expect(secondsFromNow(max.json.data.expires_at)).toBeLessThanOrEqual(7200);
    const short = await downloadUrl(auth, file.id, { ttl: 30 });
    expect(secondsFromNow(short.json.data.expires_at)).toBeLessThanOrEqual(30);
    expect(secondsFromNow(short.json.data.expires_at)).toBeGreaterThan(25);

    for (const [ttl, line] of [
      [0, "ttl: 0 is less than 1"],
      [7201, "ttl: 7201 is greater than 7200"],
      ["60", "ttl: must be integer, got string"],
    ] as const) {
      const err = expectError(await downloadUrl(auth, file.id, { ttl }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([line]);
    }

    // Ten minutes of life left: a two-hour link ends with the file.
    const [{ expires_at }] = await systemQuery("UPDATE temp_files SET expires_at = now() + interval '10 minutes' WHERE id = $1 RETURNING expires_at", [
      file.id,
    ]);
    const capped = await downloadUrl(auth, file.id, { ttl: 7200 });
    expect(capped.status).toBe(200);
    expect(Date.parse(capped.json.data.expires_at)).toBe(Math.floor(Date.parse(expires_at) / 1000) * 1000);
  });

  it("refuses tampered, incomplete and expired links with 401 and the envelope", async () => {
    const { auth, tenantId } = await createTenant();
    const other = await createTenant();
    const file = await createTemp(auth, new Uint8Array([1, 2]));
    const { url } = (await downloadUrl(auth, file.id)).json.data as { url: string };
    const link = new URL(url);
    const variant = (edit: (u: URL) => void) => {
      const u = new URL(link);
      edit(u);
      return u.toString();
    };
    const sig = link.searchParams.get("signature")!;

    const refusals: [string, string][] = [
      [variant((u) => u.searchParams.set("signature", (sig[0] === "A" ? "B" : "A") + sig.slice(1))), "LINK_SIGNATURE_INVALID"],
      [variant((u) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600))), "LINK_SIGNATURE_INVALID"],
      [variant((u) => u.searchParams.set("tenant", other.tenantId)), "LINK_SIGNATURE_INVALID"],
      [variant((u) => (u.pathname = `/entity/temp-files/${crypto.randomUUID()}/download`)), "LINK_SIGNATURE_INVALID"],
      [variant((u) => u.searchParams.delete("signature")), "LINK_MALFORMED"],
      [variant((u) => u.searchParams.set("tenant", "x")), "LINK_MALFORMED"],
    ];
    for (const [bad, code] of refusals) {
      const res = await fetchUrl(bad);
      expect(expectError(res, 401, "UNAUTHORIZED").details.code, bad).toBe(code);
    }

    // A link signed correctly, for another purpose: an artifact download link with this id does not open the temp file.
    const wrongPurpose = await signLink(
      env.MASTER_KEY,
      "artifact-download",
      tenantId,
      file.id,
      BASE,
      `/entity/temp-files/${file.id}/download`,
      Math.floor(Date.now() / 1000) + 600,
    );
    expect(expectError(await fetchUrl(wrongPurpose.url), 401, "UNAUTHORIZED").details.code).toBe("LINK_SIGNATURE_INVALID");

    const expired = await signLink(
      env.MASTER_KEY,
      "temp-file-download",
      tenantId,
      file.id,
      BASE,
      `/entity/temp-files/${file.id}/download`,
      Math.floor(Date.now() / 1000) - 1,
    );
    const err = expectError(await fetchUrl(expired.url), 401, "UNAUTHORIZED");
    expect(err.details.code).toBe("LINK_EXPIRED");
    expect(err.message).toBe("The link has expired");

    expect((await fetchUrl(url)).bytes).toEqual(new Uint8Array([1, 2]));
  });
});

describe("temp-file expiry", () => {
  it("is gone at once after 24 hours and the cron tick removes it from R2 and Postgres", async () => {
    const { auth, tenantId } = await createTenant();
    const file = await createTemp(auth, randomData(10 * KiB));
    const keep = await createTemp(auth, randomData(10 * KiB));
    const link = (await downloadUrl(auth, file.id)).json.data.url as string;
    const key = `temp-files/${tenantId}/${file.id}`;
    expect(await env.FILES.head(key)).not.toBeNull();

    await systemQuery("UPDATE temp_files SET expires_at = now() - interval '1 second' WHERE id = $1", [file.id]);
    expectError(await call("GET", `/entity/temp-files/${file.id}`, { auth }), 404, "NOT_FOUND");
    expectError(await fetchUrl(link), 404, "NOT_FOUND");
    expectError(await downloadUrl(auth, file.id), 404, "NOT_FOUND");

    await runScheduled();
    expect(await env.FILES.head(key)).toBeNull();
    expect(await systemQuery("SELECT id FROM temp_files WHERE id = $1", [file.id])).toEqual([]);
    expect((await getTemp(auth, keep.id)).status).toBe(200);
    expect(await env.FILES.head(`temp-files/${tenantId}/${keep.id}`)).not.toBeNull();
  });
});
