import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expireAbandonedUploads } from "../../src/cron/tick";
import { Database } from "../../src/db/client";
import { signLink } from "../../src/gateway/capability";
import { encryptedLength } from "../../src/lib/files/crypto-stream";
import { sha256Hex } from "../../src/lib/crypto";
import { BASE, call, createTenant, expectError, systemQuery } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { contains, fetchUrl, firstDifference, KiB, MiB, randomData, secondsFromNow, streamOf, tokenWith } from "./files-support";

interface Artifact {
  id: string;
  entity_id: string;
  artifact_type: string;
  filename: string;
  content_type: string;
  version: number;
  status: "pending" | "confirmed";
  size: number | null;
  checksum: string | null;
  created_at: string;
  confirmed_at: string | null;
  versions?: {
    version: number;
    status: string;
    content_type: string;
    size: number | null;
    checksum: string | null;
    created_at: string;
    confirmed_at: string | null;
  }[];
}

interface UploadSpec {
  artifact_type?: string;
  filename?: string;
  content_type?: string;
  size?: number;
  ttl?: number;
}

const path = (entityId: string, rest = "") => `/entity/entities/${entityId}/artifacts${rest}`;

async function tenantWithEntity() {
  const tenant = await createTenant();
  await createProductType(tenant.auth);
  const entity = await createEntity(tenant.auth, "Product", "Widget", { sku: "W-1", title: "Widget" });
  return { ...tenant, entity };
}

async function requestUpload(auth: string, entityId: string, spec: UploadSpec = {}) {
  const res = await call("POST", path(entityId, "/upload-url"), {
    auth,
    body: { artifact_type: "invoice", filename: "report.pdf", content_type: "application/pdf", ...spec },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { artifact: Artifact; upload_url: string; expires_at: string };
}

const put = (url: string, body: BodyInit) => fetchUrl(url, { method: "PUT", body });

async function confirm(auth: string, entityId: string, artifactId: string, checksum?: string) {
  return call("POST", path(entityId, `/${artifactId}/confirm`), { auth, body: checksum === undefined ? undefined : { checksum } });
}

/** upload-url, PUT, confirm: the whole flow, checked at each step. */
async function attach(auth: string, entityId: string, bytes: Uint8Array, spec: UploadSpec = {}): Promise<Artifact> {
  const { artifact, upload_url } = await requestUpload(auth, entityId, spec);
  const uploaded = await put(upload_url, bytes);
  expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(200);
  const confirmed = await confirm(auth, entityId, artifact.id, await sha256Hex(bytes));
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.json.data;
}

async function download(auth: string, entityId: string, artifactId: string, query = "") {
  return fetchUrl(`${BASE}${path(entityId, `/${artifactId}`)}${query}`, { headers: { Authorization: auth } });
}

async function list(auth: string, entityId: string, query = "") {
  const res = await call("GET", `${path(entityId)}${query}`, { auth });
  expect(res.status, res.text).toBe(200);
  return res.json as { data: Artifact[]; pagination: { page: number; limit: number; total: number; total_pages: number } };
}

async function storedObjects(tenantId: string, artifactId: string) {
  return (await env.FILES.list({ prefix: `artifacts/${tenantId}/${artifactId}/` })).objects;
}

describe("artifact upload, confirm and download", () => {
  it("runs the whole flow for a multi-record file and gives the bytes back byte for byte", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const bytes = randomData(300 * KiB);
    const sha = await sha256Hex(bytes);

    const opened = await requestUpload(auth, entity.id, {
      artifact_type: "invoice",
      filename: "Q3 report.pdf",
      content_type: "application/pdf",
      size: bytes.byteLength,
    });
    expect(opened.artifact).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      entity_id: entity.id,
      artifact_type: "invoice",
      filename: "Q3 report.pdf",
      content_type: "application/pdf",
      version: 1,
      status: "pending",
      size: null,
      checksum: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      confirmed_at: null,
    });
    expect(opened.upload_url).toMatch(new RegExp(`^${BASE}/entity/uploads/[0-9a-f-]{36}\\?tenant=${tenantId}&expires=\\d+&signature=[\\w-]{43}$`));
    expect(secondsFromNow(opened.expires_at)).toBeGreaterThan(1795);
    expect(secondsFromNow(opened.expires_at)).toBeLessThanOrEqual(1800);

    const uploaded = await put(opened.upload_url, bytes);
    expect(uploaded.status).toBe(200);
    expect(uploaded.json.data).toMatchObject({ id: opened.artifact.id, version: 1, status: "pending", size: 300 * KiB, checksum: sha });

    expectError(await download(auth, entity.id, opened.artifact.id), 404, "NOT_FOUND");

    const confirmed = await confirm(auth, entity.id, opened.artifact.id, `sha256:${sha}`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.data).toMatchObject({ id: opened.artifact.id, version: 1, status: "confirmed", size: 300 * KiB, checksum: sha });
    expect(confirmed.json.data.confirmed_at).toMatch(/Z$/);
    // Confirming again changes nothing.
    expect((await confirm(auth, entity.id, opened.artifact.id)).json.data).toEqual(confirmed.json.data);

    const got = await download(auth, entity.id, opened.artifact.id);
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("application/pdf");
    expect(got.headers.get("Content-Disposition")).toBe(`attachment; filename="Q3 report.pdf"; filename*=UTF-8''Q3%20report.pdf`);
    expect(got.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(firstDifference(got.bytes, bytes)).toBe(-1);

    const objects = await storedObjects(tenantId, opened.artifact.id);
    expect(objects.map((o) => o.size)).toEqual([encryptedLength(300 * KiB)]);
  });

  it("streams a 5 MiB file sent without Content-Length (multipart to R2) and back", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const bytes = randomData(5 * MiB);
    const { artifact, upload_url } = await requestUpload(auth, entity.id, { artifact_type: "video", filename: "clip.mp4", content_type: "video/mp4" });
    const uploaded = await put(upload_url, streamOf(bytes, 300_001));
    expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(200);
    expect(uploaded.json.data).toMatchObject({ size: 5 * MiB, checksum: await sha256Hex(bytes) });
    expect((await confirm(auth, entity.id, artifact.id)).json.data.status).toBe("confirmed");

    const got = await download(auth, entity.id, artifact.id);
    expect(got.headers.get("Content-Type")).toBe("video/mp4");
    expect(got.bytes.byteLength).toBe(5 * MiB);
    expect(firstDifference(got.bytes, bytes)).toBe(-1);
    expect((await storedObjects(tenantId, artifact.id)).map((o) => o.size)).toEqual([encryptedLength(5 * MiB)]);
  });

  it("keeps only ciphertext in R2, fresh each upload, and refuses to serve altered bytes", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const bytes = randomData(150 * KiB);
    const first = await attach(auth, entity.id, bytes, { filename: "a.bin" });
    const second = await attach(auth, entity.id, bytes, { filename: "b.bin" });
    const [a] = await storedObjects(tenantId, first.id);
    const [b] = await storedObjects(tenantId, second.id);
    const storedA = new Uint8Array(await (await env.FILES.get(a.key))!.arrayBuffer());
    const storedB = new Uint8Array(await (await env.FILES.get(b.key))!.arrayBuffer());
    expect([...storedA.subarray(0, 4)]).toEqual([0x45, 0x50, 0x46, 0x01]);
    for (const at of [0, 65_536, 100_000, 150 * KiB - 32]) expect(contains(storedA, bytes.subarray(at, at + 32))).toBe(false);
    // Same plaintext, different salt and nonces: nothing in common past the magic and record size.
    expect(storedA.subarray(8, 64)).not.toEqual(storedB.subarray(8, 64));

    const altered = storedA.slice();
    altered[100_000] ^= 1;
    await env.FILES.put(a.key, altered);
    const res = await SELF.fetch(`${BASE}${path(entity.id, `/${first.id}`)}`, { headers: { Authorization: auth } });
    await expect(res.arrayBuffer()).rejects.toThrow();
    // Bytes moved under another key do not decrypt either (the key is bound into the encryption).
    await env.FILES.put(b.key, storedA);
    const moved = await SELF.fetch(`${BASE}${path(entity.id, `/${second.id}`)}`, { headers: { Authorization: auth } });
    await expect(moved.arrayBuffer()).rejects.toThrow();
  });

  it("a checksum mismatch is refused and the version stays pending; confirm needs bytes first", async () => {
    const { auth, entity } = await tenantWithEntity();
    const bytes = randomData(70 * KiB);
    const { artifact, upload_url } = await requestUpload(auth, entity.id);

    const early = expectError(await confirm(auth, entity.id, artifact.id), 422, "UNPROCESSABLE_ENTITY");
    expect(early.details).toMatchObject({ code: "NOT_UPLOADED", version: 1 });

    await put(upload_url, bytes);
    const wrong = "0".repeat(64);
    const mismatch = expectError(await confirm(auth, entity.id, artifact.id, `sha256:${wrong}`), 422, "UNPROCESSABLE_ENTITY");
    expect(mismatch.details).toMatchObject({ code: "CHECKSUM_MISMATCH", version: 1, expected: wrong, actual: await sha256Hex(bytes) });
    const [listed] = (await list(auth, entity.id)).data;
    expect(listed).toMatchObject({ id: artifact.id, status: "pending", confirmed_at: null });
    expectError(await download(auth, entity.id, artifact.id), 404, "NOT_FOUND");

    for (const bad of ["ABC", "A".repeat(64), `md5:${"0".repeat(64)}`]) {
      const err = expectError(await confirm(auth, entity.id, artifact.id, bad), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([expect.stringMatching(/^checksum: /)]);
    }
    expectError(await call("POST", path(entity.id, `/${artifact.id}/confirm`), { auth, body: { checksum: wrong, extra: 1 } }), 422, "VALIDATION_FAILED");

    const ok = await confirm(auth, entity.id, artifact.id, await sha256Hex(bytes));
    expect(ok.json.data.status).toBe("confirmed");
    expect(firstDifference((await download(auth, entity.id, artifact.id)).bytes, bytes)).toBe(-1);
  });

  it("re-PUT to a pending version replaces its bytes; a confirmed one refuses more (409)", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const { artifact, upload_url } = await requestUpload(auth, entity.id);
    await put(upload_url, randomData(10 * KiB));
    const again = randomData(20 * KiB);
    expect((await put(upload_url, again)).json.data).toMatchObject({ size: 20 * KiB, checksum: await sha256Hex(again) });
    expect((await storedObjects(tenantId, artifact.id)).map((o) => o.size)).toEqual([encryptedLength(20 * KiB)]);
    await confirm(auth, entity.id, artifact.id);
    const refused = expectError(await put(upload_url, randomData(5)), 409, "CONFLICT");
    expect(refused.details.code).toBe("ALREADY_CONFIRMED");
    expect(firstDifference((await download(auth, entity.id, artifact.id)).bytes, again)).toBe(-1);
  });

  it("checks the announced size, and refuses files over 25 MiB with 413", async () => {
    const { auth, entity } = await tenantWithEntity();
    const tooBig = expectError(
      await call("POST", path(entity.id, "/upload-url"), { auth, body: { artifact_type: "x", filename: "x", content_type: "text/plain", size: 25 * MiB + 1 } }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(tooBig.details.limit).toBe(25 * MiB);

    const sized = await requestUpload(auth, entity.id, { size: 100 });
    const mismatch = expectError(await put(sized.upload_url, randomData(99)), 422, "UNPROCESSABLE_ENTITY");
    expect(mismatch.details).toMatchObject({ code: "SIZE_MISMATCH", declared_size: 100, size: 99 });
    const streamedMismatch = expectError(await put(sized.upload_url, streamOf(randomData(101))), 422, "UNPROCESSABLE_ENTITY");
    expect(streamedMismatch.details).toMatchObject({ code: "SIZE_MISMATCH", declared_size: 100, size: 101 });

    const open = await requestUpload(auth, entity.id, { filename: "big.bin" });
    expect(expectError(await put(open.upload_url, new Uint8Array(25 * MiB + 1)), 413, "PAYLOAD_TOO_LARGE").details.limit).toBe(25 * MiB);
    expect(expectError(await put(open.upload_url, streamOf(new Uint8Array(25 * MiB + 1), MiB)), 413, "PAYLOAD_TOO_LARGE").details.limit).toBe(25 * MiB);
    expect((await list(auth, entity.id, "?artifact_type=invoice")).data.find((a) => a.filename === "big.bin")).toMatchObject({ size: null, status: "pending" });
  });

  it("validates the upload-url body and its ttl (default 1800, at most 7200)", async () => {
    const { auth, entity } = await tenantWithEntity();
    const missing = expectError(await call("POST", path(entity.id, "/upload-url"), { auth, body: { filename: "a" } }), 422, "VALIDATION_FAILED");
    expect(missing.details.validation_errors).toEqual(["artifact_type: is required", "content_type: is required"]);
    const badType = expectError(
      await call("POST", path(entity.id, "/upload-url"), { auth, body: { artifact_type: "x", filename: "a\nb", content_type: "pdf" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(badType.details.validation_errors).toEqual([expect.stringMatching(/^filename: /), expect.stringMatching(/^content_type: /)]);
    for (const [ttl, line] of [
      [0, "ttl: 0 is less than 1"],
      [7201, "ttl: 7201 is greater than 7200"],
    ] as const) {
      const err = expectError(
        await call("POST", path(entity.id, "/upload-url"), { auth, body: { artifact_type: "x", filename: "a", content_type: "text/plain", ttl } }),
        422,
        "VALIDATION_FAILED",
      );
      expect(err.details.validation_errors).toEqual([line]);
    }
    const longest = await requestUpload(auth, entity.id, { ttl: 7200 });
    expect(secondsFromNow(longest.expires_at)).toBeGreaterThan(7195);
    expect(secondsFromNow(longest.expires_at)).toBeLessThanOrEqual(7200);
    expectError(
      await call("POST", `/entity/entities/${crypto.randomUUID()}/artifacts/upload-url`, {
        auth,
        body: { artifact_type: "x", filename: "a", content_type: "text/plain" },
      }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("artifact versions and lists", () => {
  it("a second upload of the same type and filename is version 2; reads default to the newest confirmed", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const v1 = randomData(80 * KiB);
    const v2 = randomData(90 * KiB);
    const first = await attach(auth, entity.id, v1, { artifact_type: "contract", filename: "c.txt", content_type: "text/plain" });

    const opened = await requestUpload(auth, entity.id, { artifact_type: "contract", filename: "c.txt", content_type: "text/markdown" });
    expect(opened.artifact).toMatchObject({ id: first.id, version: 2, status: "pending", content_type: "text/markdown" });
    await put(opened.upload_url, v2);
    // Until version 2 is confirmed, version 1 is what the artifact shows and serves.
    expect((await list(auth, entity.id)).data).toEqual([
      expect.objectContaining({ id: first.id, version: 1, status: "confirmed", content_type: "text/plain" }),
    ]);
    expect(firstDifference((await download(auth, entity.id, first.id)).bytes, v1)).toBe(-1);

    await confirm(auth, entity.id, first.id, await sha256Hex(v2));
    const current = await download(auth, entity.id, first.id);
    expect(current.headers.get("Content-Type")).toBe("text/markdown");
    expect(firstDifference(current.bytes, v2)).toBe(-1);
    const old = await download(auth, entity.id, first.id, "?version=1");
    expect(old.headers.get("Content-Type")).toBe("text/plain");
    expect(firstDifference(old.bytes, v1)).toBe(-1);
    expectError(await download(auth, entity.id, first.id, "?version=3"), 404, "NOT_FOUND");

    const withVersions = await list(auth, entity.id, "?include_versions=true");
    expect(withVersions.pagination).toEqual({ page: 1, limit: 100, total: 1, total_pages: 1 });
    expect(withVersions.data[0]).toMatchObject({ id: first.id, version: 2, status: "confirmed", size: 90 * KiB, checksum: await sha256Hex(v2) });
    expect(withVersions.data[0].versions!.map((v) => [v.version, v.status, v.content_type, v.size, v.checksum])).toEqual([
      [2, "confirmed", "text/markdown", 90 * KiB, await sha256Hex(v2)],
      [1, "confirmed", "text/plain", 80 * KiB, await sha256Hex(v1)],
    ]);
    expect((await list(auth, entity.id, "?include_versions=false")).data[0]).not.toHaveProperty("versions");
    expect((await list(auth, entity.id)).data[0]).not.toHaveProperty("versions");
    expectError(await call("GET", `${path(entity.id)}?include_versions=yes`, { auth }), 422, "VALIDATION_FAILED");

    // A new upload URL replaces a pending version: the old link is dead, its bytes removed, the number reused.
    const pending = await requestUpload(auth, entity.id, { artifact_type: "contract", filename: "c.txt", content_type: "text/plain" });
    await put(pending.upload_url, randomData(1 * KiB));
    const replacement = await requestUpload(auth, entity.id, { artifact_type: "contract", filename: "c.txt", content_type: "text/plain" });
    expect(replacement.artifact.version).toBe(3);
    expectError(await put(pending.upload_url, randomData(1 * KiB)), 404, "NOT_FOUND");
    expect((await storedObjects(tenantId, first.id)).map((o) => o.size).sort()).toEqual([encryptedLength(80 * KiB), encryptedLength(90 * KiB)].sort());
    expect((await list(auth, entity.id, "?include_versions=true")).data[0].versions!.map((v) => [v.version, v.status])).toEqual([
      [3, "pending"],
      [2, "confirmed"],
      [1, "confirmed"],
    ]);
  });

  it("filters by artifact_type and artifact_type_in (comma-separated or repeated) and pages oldest first", async () => {
    const { auth, entity } = await tenantWithEntity();
    const types = ["invoice", "photo", "contract", "photo", "invoice"];
    const made: Artifact[] = [];
    for (const [i, artifact_type] of types.entries()) made.push(await attach(auth, entity.id, new Uint8Array([i]), { artifact_type, filename: `f${i}` }));

    const all = await list(auth, entity.id);
    expect(all.data.map((a) => a.filename)).toEqual(["f0", "f1", "f2", "f3", "f4"]);
    expect(all.pagination).toEqual({ page: 1, limit: 100, total: 5, total_pages: 1 });

    const page2 = await list(auth, entity.id, "?page=2&limit=2");
    expect(page2.data.map((a) => a.id)).toEqual([made[2].id, made[3].id]);
    expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect((await list(auth, entity.id, "?page=3&limit=2")).data.map((a) => a.filename)).toEqual(["f4"]);
    expect((await list(auth, entity.id, "?page=4&limit=2")).data).toEqual([]);

    expect((await list(auth, entity.id, "?artifact_type=photo")).data.map((a) => a.filename)).toEqual(["f1", "f3"]);
    expect((await list(auth, entity.id, "?artifact_type_in=invoice,contract")).data.map((a) => a.filename)).toEqual(["f0", "f2", "f4"]);
    const repeated = await list(auth, entity.id, "?artifact_type_in=invoice&artifact_type_in=photo&limit=3");
    expect(repeated.data.map((a) => a.filename)).toEqual(["f0", "f1", "f3"]);
    expect(repeated.pagination).toEqual({ page: 1, limit: 3, total: 4, total_pages: 2 });
    expect((await list(auth, entity.id, "?artifact_type=photo&artifact_type_in=invoice")).pagination.total).toBe(0);
    expect((await list(auth, entity.id, "?artifact_type=nothing")).data).toEqual([]);

    expectError(await call("GET", `${path(entity.id)}?limit=1001`, { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", `${path(entity.id)}?color=red`, { auth }), 422, "VALIDATION_FAILED");
  });
});

describe("artifact download links", () => {
  it("GET and POST both mint a credential-free link that downloads as an attachment", async () => {
    const { auth, entity } = await tenantWithEntity();
    const bytes = randomData(100 * KiB);
    const artifact = await attach(auth, entity.id, bytes, { filename: "résumé.pdf" });

    const viaGet = await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth });
    const viaPost = await call("POST", path(entity.id, `/${artifact.id}/download-url`), { auth });
    const viaPostTtl = await call("POST", path(entity.id, `/${artifact.id}/download-url`), { auth, body: { ttl: 60 } });
    const viaGetTtl = await call("GET", path(entity.id, `/${artifact.id}/download-url?ttl=7200`), { auth });
    for (const [res, ttl] of [
      [viaGet, 900],
      [viaPost, 900],
      [viaPostTtl, 60],
      [viaGetTtl, 7200],
    ] as const) {
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.url).toMatch(new RegExp(`^${BASE}/entity/downloads/[0-9a-f-]{36}\\?tenant=[0-9a-f-]{36}&expires=\\d+&signature=[\\w-]{43}$`));
      expect(secondsFromNow(res.json.data.expires_at)).toBeGreaterThan(ttl - 5);
      expect(secondsFromNow(res.json.data.expires_at)).toBeLessThanOrEqual(ttl);
    }
    expectError(await call("GET", path(entity.id, `/${artifact.id}/download-url?ttl=0`), { auth }), 422, "VALIDATION_FAILED");
    expectError(await call("POST", path(entity.id, `/${artifact.id}/download-url`), { auth, body: { ttl: 7201 } }), 422, "VALIDATION_FAILED");

    const got = await fetchUrl(viaPost.json.data.url);
    expect(got.status).toBe(200);
    expect(got.headers.get("Content-Type")).toBe("application/pdf");
    expect(got.headers.get("Content-Disposition")).toBe(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
    expect(firstDifference(got.bytes, bytes)).toBe(-1);

    // A link names one version: after version 2 it still serves version 1.
    const v2 = randomData(10 * KiB);
    await attach(auth, entity.id, v2, { filename: "résumé.pdf" });
    expect(firstDifference((await fetchUrl(viaGet.json.data.url)).bytes, bytes)).toBe(-1);
    expect(firstDifference((await fetchUrl((await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth })).json.data.url)).bytes, v2)).toBe(-1);
  });

  it("refuses tampered and expired upload and download links with 401 and the envelope", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const other = await createTenant();
    const { artifact, upload_url } = await requestUpload(auth, entity.id);
    const versionId = new URL(upload_url).pathname.split("/").pop()!;
    const variant = (url: string, edit: (u: URL) => void) => {
      const u = new URL(url);
      edit(u);
      return u.toString();
    };
    const flip = (s: string) => (s[5] === "A" ? "B" : "A");
    const tampered = (url: string) => [
      variant(url, (u) =>
        u.searchParams.set(
          "signature",
          u.searchParams.get("signature")!.slice(0, 5) + flip(u.searchParams.get("signature")!) + u.searchParams.get("signature")!.slice(6),
        ),
      ),
      variant(url, (u) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 60))),
      variant(url, (u) => u.searchParams.set("tenant", other.tenantId)),
      variant(url, (u) => (u.pathname = u.pathname.replace(/[0-9a-f-]{36}$/, crypto.randomUUID()))),
    ];
    for (const bad of tampered(upload_url)) {
      expect(expectError(await put(bad, new Uint8Array(1)), 401, "UNAUTHORIZED").details.code, bad).toBe("LINK_SIGNATURE_INVALID");
    }
    expect(
      expectError(
        await put(
          variant(upload_url, (u) => (u.search = "")),
          new Uint8Array(1),
        ),
        401,
        "UNAUTHORIZED",
      ).details.code,
    ).toBe("LINK_MALFORMED");
    const expiredUpload = await signLink(
      env.MASTER_KEY,
      "artifact-upload",
      tenantId,
      versionId,
      BASE,
      `/entity/uploads/${versionId}`,
      Math.floor(Date.now() / 1000) - 1,
    );
    expect(expectError(await put(expiredUpload.url, new Uint8Array(1)), 401, "UNAUTHORIZED").details.code).toBe("LINK_EXPIRED");
    // The upload link is no download link, though both name the same version.
    const asDownload = upload_url.replace("/entity/uploads/", "/entity/downloads/");
    expect(expectError(await fetchUrl(asDownload), 401, "UNAUTHORIZED").details.code).toBe("LINK_SIGNATURE_INVALID");

    await put(upload_url, new Uint8Array([7]));
    await confirm(auth, entity.id, artifact.id);
    const { url } = (await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth })).json.data;
    for (const bad of tampered(url)) {
      expect(expectError(await fetchUrl(bad), 401, "UNAUTHORIZED").details.code, bad).toBe("LINK_SIGNATURE_INVALID");
    }
    const expired = await signLink(
      env.MASTER_KEY,
      "artifact-download",
      tenantId,
      versionId,
      BASE,
      `/entity/downloads/${versionId}`,
      Math.floor(Date.now() / 1000) - 1,
    );
    const err = expectError(await fetchUrl(expired.url), 401, "UNAUTHORIZED");
    expect(err).toMatchObject({ message: "The link has expired", details: { code: "LINK_EXPIRED" } });
    expect((await fetchUrl(url)).bytes).toEqual(new Uint8Array([7]));
  });
});

describe("artifacts follow their entity and their tenant", () => {
  it("another tenant's entity and artifact ids answer 404", async () => {
    const a = await tenantWithEntity();
    const b = await tenantWithEntity();
    const artifact = await attach(a.auth, a.entity.id, new Uint8Array([1, 2, 3]));
    const ours = a.entity.id;
    const theirs = b.entity.id;

    expectError(await call("GET", path(ours), { auth: b.auth }), 404, "NOT_FOUND");
    expectError(
      await call("POST", path(ours, "/upload-url"), { auth: b.auth, body: { artifact_type: "x", filename: "x", content_type: "text/plain" } }),
      404,
      "NOT_FOUND",
    );
    for (const entityId of [ours, theirs]) {
      expectError(await call("GET", path(entityId, `/${artifact.id}`), { auth: b.auth }), 404, "NOT_FOUND");
      expectError(await call("GET", path(entityId, `/${artifact.id}/download-url`), { auth: b.auth }), 404, "NOT_FOUND");
      expectError(await call("POST", path(entityId, `/${artifact.id}/confirm`), { auth: b.auth }), 404, "NOT_FOUND");
      expectError(await call("DELETE", path(entityId, `/${artifact.id}`), { auth: b.auth }), 404, "NOT_FOUND");
    }
    expect((await list(b.auth, theirs)).data).toEqual([]);
    // The artifact under the wrong entity of its own tenant is not found either.
    const second = await createEntity(a.auth, "Product", "Other", { sku: "W-2", title: "Other" });
    expectError(await call("GET", path(second.id, `/${artifact.id}`), { auth: a.auth }), 404, "NOT_FOUND");
    expect((await download(a.auth, ours, artifact.id)).bytes).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("a soft-deleted entity's artifacts answer 404, its links included", async () => {
    const { auth, entity } = await tenantWithEntity();
    const artifact = await attach(auth, entity.id, new Uint8Array([5]));
    const link = (await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth })).json.data.url;
    const pending = await requestUpload(auth, entity.id, { filename: "later.pdf" });
    expect((await call("DELETE", `/entity/entities/${entity.id}`, { auth })).status).toBe(200);

    expectError(await call("GET", path(entity.id), { auth }), 404, "NOT_FOUND");
    expectError(await call("GET", path(entity.id, `/${artifact.id}`), { auth }), 404, "NOT_FOUND");
    expectError(await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth }), 404, "NOT_FOUND");
    expectError(
      await call("POST", path(entity.id, "/upload-url"), { auth, body: { artifact_type: "x", filename: "x", content_type: "text/plain" } }),
      404,
      "NOT_FOUND",
    );
    expectError(await call("DELETE", path(entity.id, `/${artifact.id}`), { auth }), 404, "NOT_FOUND");
    expectError(await fetchUrl(link), 404, "NOT_FOUND");
    expectError(await put(pending.upload_url, new Uint8Array(1)), 404, "NOT_FOUND");
  });

  it("a merged entity's artifacts move to the survivor", async () => {
    const { auth, entity: incumbent } = await tenantWithEntity();
    const survivor = await createEntity(auth, "Product", "Target", { sku: "T-1", title: "Target" });
    const bytes = randomData(40 * KiB);
    const moved = await attach(auth, incumbent.id, bytes, { artifact_type: "manual", filename: "m.pdf" });
    const kept = await attach(auth, survivor.id, new Uint8Array([1]), { artifact_type: "photo", filename: "p.png", content_type: "image/png" });
    const link = (await call("GET", path(incumbent.id, `/${moved.id}/download-url`), { auth })).json.data.url;

    // The survivor takes the incumbent's key: the incumbent is merged into it.
    const merged = await call("PUT", `/entity/entities/${survivor.id}`, { auth, body: { attributes: { sku: "W-1", title: "Target" } } });
    expect(merged.status, merged.text).toBe(200);

    expectError(await call("GET", path(incumbent.id), { auth }), 404, "NOT_FOUND");
    expectError(await call("GET", path(incumbent.id, `/${moved.id}`), { auth }), 404, "NOT_FOUND");
    const listed = await list(auth, survivor.id);
    expect(listed.data.map((a) => [a.id, a.entity_id, a.filename])).toEqual([
      [moved.id, survivor.id, "m.pdf"],
      [kept.id, survivor.id, "p.png"],
    ]);
    expect(firstDifference((await download(auth, survivor.id, moved.id)).bytes, bytes)).toBe(-1);
    expect(firstDifference((await fetchUrl(link)).bytes, bytes)).toBe(-1);
    // Uploads of the same type and filename now version it under the survivor.
    expect((await requestUpload(auth, survivor.id, { artifact_type: "manual", filename: "m.pdf" })).artifact).toMatchObject({ id: moved.id, version: 2 });
  });

  it("DELETE removes the artifact, every version and their bytes", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const artifact = await attach(auth, entity.id, randomData(5 * KiB));
    await attach(auth, entity.id, randomData(6 * KiB));
    const link = (await call("GET", path(entity.id, `/${artifact.id}/download-url`), { auth })).json.data.url;
    expect(await storedObjects(tenantId, artifact.id)).toHaveLength(2);

    const res = await call("DELETE", path(entity.id, `/${artifact.id}`), { auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: artifact.id, deleted: true } });
    expect(await storedObjects(tenantId, artifact.id)).toEqual([]);
    expect(await systemQuery("SELECT id FROM artifact_versions WHERE artifact_id = $1", [artifact.id])).toEqual([]);
    expectError(await call("GET", path(entity.id, `/${artifact.id}`), { auth }), 404, "NOT_FOUND");
    expectError(await fetchUrl(link), 404, "NOT_FOUND");
    expectError(await call("DELETE", path(entity.id, `/${artifact.id}`), { auth }), 404, "NOT_FOUND");
    expect((await list(auth, entity.id)).pagination.total).toBe(0);
  });

  it("needs credentials (401) and the entity permission per operation (403)", async () => {
    const { auth, entity } = await tenantWithEntity();
    const artifact = await attach(auth, entity.id, new Uint8Array([3]));
    expectError(await call("GET", path(entity.id), {}), 401, "UNAUTHORIZED");
    expectError(await call("GET", path(entity.id, `/${artifact.id}`), { auth: "Basic bm9wZTpub3Bl" }), 401, "UNAUTHORIZED");

    const reader = await tokenWith(auth, ["entity:read"]);
    expect((await list(reader, entity.id)).pagination.total).toBe(1);
    expect((await download(reader, entity.id, artifact.id)).bytes).toEqual(new Uint8Array([3]));
    expect((await call("POST", path(entity.id, `/${artifact.id}/download-url`), { auth: reader })).status).toBe(200);
    for (const res of [
      await call("POST", path(entity.id, "/upload-url"), { auth: reader, body: { artifact_type: "x", filename: "x", content_type: "text/plain" } }),
      await call("POST", path(entity.id, `/${artifact.id}/confirm`), { auth: reader }),
      await call("DELETE", path(entity.id, `/${artifact.id}`), { auth: reader }),
    ]) {
      expect(expectError(res, 403, "FORBIDDEN").details).toMatchObject({ resource: "entity", action: "update" });
    }
    const writer = await tokenWith(auth, ["entity:update"]);
    expect(expectError(await call("GET", path(entity.id), { auth: writer }), 403, "FORBIDDEN").details).toMatchObject({ resource: "entity", action: "read" });
  });
});

describe("abandoned uploads", () => {
  it("a version still pending after 24 hours is swept with its bytes; an emptied artifact goes too", async () => {
    const { auth, tenantId, entity } = await tenantWithEntity();
    const kept = await attach(auth, entity.id, randomData(2 * KiB), { filename: "kept.pdf" });
    const stale = await requestUpload(auth, entity.id, { filename: "kept.pdf" });
    await put(stale.upload_url, randomData(3 * KiB));
    const lone = await requestUpload(auth, entity.id, { filename: "lone.pdf" });
    await put(lone.upload_url, randomData(4 * KiB));
    const fresh = await requestUpload(auth, entity.id, { filename: "fresh.pdf" });
    expect(await storedObjects(tenantId, kept.id)).toHaveLength(2);
    expect(await storedObjects(tenantId, lone.artifact.id)).toHaveLength(1);

    await systemQuery("UPDATE artifact_versions SET created_at = now() - interval '25 hours' WHERE artifact_id = ANY($1::uuid[]) AND status = 'pending'", [
      [kept.id, lone.artifact.id],
    ]);
    await systemQuery("UPDATE artifact_versions SET created_at = now() - interval '25 hours' WHERE artifact_id = $1 AND status = 'confirmed'", [kept.id]);
    const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
    try {
      await expireAbandonedUploads(database, env, new Date());
    } finally {
      await database.close();
    }

    expect((await storedObjects(tenantId, kept.id)).map((o) => o.size)).toEqual([encryptedLength(2 * KiB)]);
    expect(await storedObjects(tenantId, lone.artifact.id)).toEqual([]);
    expect(await systemQuery("SELECT id FROM artifacts WHERE id = $1", [lone.artifact.id])).toEqual([]);
    const listed = await list(auth, entity.id, "?include_versions=true");
    expect(listed.data.map((a) => [a.filename, a.versions!.map((v) => [v.version, v.status])])).toEqual([
      ["kept.pdf", [[1, "confirmed"]]],
      ["fresh.pdf", [[1, "pending"]]],
    ]);
    expectError(await put(stale.upload_url, randomData(1)), 404, "NOT_FOUND");
    expect((await put(fresh.upload_url, randomData(1))).status).toBe(200);
  });
});
