// The file actions through real runs: each run is dispatched through the API
// and walked by its object; what the actions did is read back through the
// REST API (the artifact listed and downloaded, the temp file downloaded
// through the link the run made).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { fetchUrl, firstDifference, randomData, secondsFromNow } from "../entity/files-support";
import { policyGranting } from "./actions-support";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

const MiB = 1024 * 1024;
const ALL = ["entity:read", "entity:create", "entity:update"];
const ORIGIN = env.PUBLIC_URL.replace(/\/+$/, "");

interface Action {
  stepId: string;
  name: string;
  config: Record<string, unknown>;
  errorPolicy?: "continue";
}

/** One job of `actions`, run with a policy granting `permissions`; answers the finished run's record. */
async function runActions(t: TenantCreds, actions: Action[], permissions = ALL, input: unknown = {}) {
  const policy = await policyGranting(t, permissions);
  const { id } = await manualWorkflow(t, [{ id: "f", actions }], {}, { policy_id: policy });
  return runRecord(t, await dispatched(t, id, input));
}

/** Each action as `[stepId, status, error status, error code]`. */
const outcomes = (run: any) => run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.status, a.error?.status ?? null, a.error?.code ?? null]);
const errorOf = (run: any, stepId: string) => run.job_runs[0].action_runs.find((a: any) => a.step_id === stepId).error;

/** Each action continues past its error, so one run tries every config. */
const continuing = (actions: Action[]) => actions.map((a) => ({ ...a, errorPolicy: "continue" as const }));

async function tenantWithEntity() {
  const t = await createTenant();
  await createProductType(t.auth);
  const entity = await createEntity(t.auth, "Product", "Widget", { sku: "W-1", title: "Widget" });
  return { t, entityId: entity.id };
}

function base64Of(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

async function restBytes(auth: string, path: string) {
  const res = await fetchUrl(`http://platform.test${path}`, { headers: { Authorization: auth } });
  expect(res.status, path).toBe(200);
  return res;
}

describe("uploadArtifact", () => {
  it("stores text from the config as a confirmed version, listed and downloadable byte for byte", async () => {
    const { t, entityId } = await tenantWithEntity();
    const text = "Invoice 17 — € 12,50\n";
    const run = await runActions(t, [
      {
        stepId: "up",
        name: "uploadArtifact",
        config: { entityId, artifactType: "invoice", text, name: "invoice.txt", contentType: "text/plain; charset=utf-8" },
      },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const artifact = run.outputs.f.up;
    const bytes = new TextEncoder().encode(text);
    expect(artifact).toMatchObject({
      entity_id: entityId,
      artifact_type: "invoice",
      filename: "invoice.txt",
      content_type: "text/plain; charset=utf-8",
      version: 1,
      status: "confirmed",
      size: bytes.byteLength,
      checksum: await sha256Hex(bytes),
    });

    const listed = await call("GET", `/entity/entities/${entityId}/artifacts`, { auth: t.auth });
    expect(listed.json.data).toEqual([artifact]);
    const body = await restBytes(t.auth, `/entity/entities/${entityId}/artifacts/${artifact.id}`);
    expect(new TextDecoder().decode(body.bytes)).toBe(text);
  });

  it("promotes a temp file made from base64 into a new version of the same artifact, taking its name and type", async () => {
    const { t, entityId } = await tenantWithEntity();
    const first = randomData(3000);
    const second = randomData(70_000);
    const run = await runActions(t, [
      {
        stepId: "v1",
        name: "uploadArtifact",
        config: { entityId, artifactType: "scan", base64: base64Of(first), name: "scan.bin", contentType: "application/octet-stream" },
      },
      { stepId: "tmp", name: "uploadTempFile", config: { name: "scan.bin", contentType: "application/octet-stream", base64: base64Of(second) } },
      { stepId: "v2", name: "uploadArtifact", config: { entityId, artifactType: "scan", tempFileId: "{{ outputs.tmp.temp_file_id }}" } },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { v1, v2, tmp } = run.outputs.f;
    expect(tmp).toMatchObject({ name: "scan.bin", content_type: "application/octet-stream", size: 70_000 });
    expect(v2).toMatchObject({
      id: v1.id,
      filename: "scan.bin",
      content_type: "application/octet-stream",
      version: 2,
      status: "confirmed",
      size: 70_000,
      checksum: await sha256Hex(second),
    });

    const listed = await call("GET", `/entity/entities/${entityId}/artifacts?include_versions=true`, { auth: t.auth });
    expect(listed.json.data.map((a: any) => [a.id, a.version, a.versions.map((v: any) => [v.version, v.status, v.size])])).toEqual([
      [
        v1.id,
        2,
        [
          [2, "confirmed", 70_000],
          [1, "confirmed", 3000],
        ],
      ],
    ]);
    const newest = await restBytes(t.auth, `/entity/entities/${entityId}/artifacts/${v1.id}`);
    expect(firstDifference(newest.bytes, second)).toBe(-1);
    const older = await restBytes(t.auth, `/entity/entities/${entityId}/artifacts/${v1.id}?version=1`);
    expect(firstDifference(older.bytes, first)).toBe(-1);
  });

  it("takes a name and content type given beside a temp file over the file's own", async () => {
    const { t, entityId } = await tenantWithEntity();
    const run = await runActions(t, [
      { stepId: "tmp", name: "uploadTempFile", config: { name: "raw.dat", contentType: "application/octet-stream", text: "a,b\n1,2\n" } },
      {
        stepId: "up",
        name: "uploadArtifact",
        config: { entityId, artifactType: "data", tempFileId: "{{ outputs.tmp.temp_file_id }}", name: "rows.csv", contentType: "text/csv" },
      },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    expect(run.outputs.f.up).toMatchObject({ filename: "rows.csv", content_type: "text/csv", size: 8 });
    const res = await fetchUrl(`http://platform.test/entity/entities/${entityId}/artifacts/${run.outputs.f.up.id}`, { headers: { Authorization: t.auth } });
    expect([res.headers.get("Content-Type"), new TextDecoder().decode(res.bytes)]).toEqual(["text/csv", "a,b\n1,2\n"]);
  });
});

describe("downloadArtifact", () => {
  it("answers a temp file with the version's bytes, or its text and content type, for the newest or a given version", async () => {
    const { t, entityId } = await tenantWithEntity();
    const run = await runActions(t, [
      { stepId: "v1", name: "uploadArtifact", config: { entityId, artifactType: "note", text: "first", name: "note.md", contentType: "text/markdown" } },
      { stepId: "v2", name: "uploadArtifact", config: { entityId, artifactType: "note", text: "second ✓", name: "note.md", contentType: "text/markdown" } },
      { stepId: "file", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.v1.id }}" } },
      { stepId: "text", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.v1.id }}", as: "text" } },
      { stepId: "old", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.v1.id }}", version: 1, as: "text", maxTextBytes: 5 } },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { file, text, old } = run.outputs.f;
    const secondBytes = new TextEncoder().encode("second ✓");
    expect(file).toEqual({
      temp_file_id: expect.any(String),
      name: "note.md",
      content_type: "text/markdown",
      size: secondBytes.byteLength,
      expires_at: expect.any(String),
    });
    expect(secondsFromNow(file.expires_at)).toBeGreaterThan(23 * 3600);
    const stored = await restBytes(t.auth, `/entity/temp-files/${file.temp_file_id}`);
    expect(firstDifference(stored.bytes, secondBytes)).toBe(-1);
    expect(text).toEqual({ text: "second ✓", content_type: "text/markdown" });
    expect(old).toEqual({ text: "first", content_type: "text/markdown" });
  });

  it("refuses text past maxTextBytes and bytes that are not UTF-8, rather than cutting or replacing them", async () => {
    const { t, entityId } = await tenantWithEntity();
    const run = await runActions(
      t,
      continuing([
        { stepId: "small", name: "uploadArtifact", config: { entityId, artifactType: "t", text: "123456", name: "six.txt", contentType: "text/plain" } },
        {
          stepId: "binary",
          name: "uploadArtifact",
          config: {
            entityId,
            artifactType: "b",
            base64: base64Of(new Uint8Array([0xff, 0xfe, 0x00, 0xc3])),
            name: "b.bin",
            contentType: "application/octet-stream",
          },
        },
        { stepId: "capped", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.small.id }}", as: "text", maxTextBytes: 5 } },
        { stepId: "exact", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.small.id }}", as: "text", maxTextBytes: 6 } },
        { stepId: "notUtf8", name: "downloadArtifact", config: { entityId, artifactId: "{{ outputs.binary.id }}", as: "text" } },
      ]),
    );
    expect(outcomes(run)).toEqual([
      ["small", "success", null, null],
      ["binary", "success", null, null],
      ["capped", "error", 413, "PAYLOAD_TOO_LARGE"],
      ["exact", "success", null, null],
      ["notUtf8", "error", 422, "UNPROCESSABLE_ENTITY"],
    ]);
    expect(errorOf(run, "capped").details).toEqual({ size: 6, limit: 5 });
    expect(run.outputs.f.exact).toEqual({ text: "123456", content_type: "text/plain" });
  });
});

describe("listEntityArtifacts", () => {
  it("answers what GET /entity/entities/{id}/artifacts answers for the same query", async () => {
    const { t, entityId } = await tenantWithEntity();
    const upload = (stepId: string, artifactType: string, name: string) => ({
      stepId,
      name: "uploadArtifact",
      config: { entityId, artifactType, text: stepId, name, contentType: "text/plain" },
    });
    const run = await runActions(t, [
      upload("a", "invoice", "a.txt"),
      upload("b", "receipt", "b.txt"),
      upload("c", "invoice", "c.txt"),
      upload("c2", "invoice", "c.txt"),
      { stepId: "all", name: "listEntityArtifacts", config: { entityId } },
      { stepId: "invoices", name: "listEntityArtifacts", config: { entityId, artifactType: "invoice", includeVersions: true } },
      { stepId: "paged", name: "listEntityArtifacts", config: { entityId, artifactTypeIn: ["invoice", "receipt"], page: 2, limit: 2 } },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { all, invoices, paged } = run.outputs.f;
    const rest = async (query: string) => (await call("GET", `/entity/entities/${entityId}/artifacts${query}`, { auth: t.auth })).json;
    expect(all).toEqual(await rest(""));
    expect(all.data.map((a: any) => a.filename)).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(invoices).toEqual(await rest("?artifact_type=invoice&include_versions=true"));
    expect(invoices.data.map((a: any) => [a.filename, a.versions.length])).toEqual([
      ["a.txt", 1],
      ["c.txt", 2],
    ]);
    expect(paged).toEqual(await rest("?artifact_type_in=invoice,receipt&page=2&limit=2"));
    expect(paged.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });
  });
});

describe("createArtifactDownloadURL", () => {
  it("answers an absolute link on the public origin that downloads the version with no credentials", async () => {
    const { t, entityId } = await tenantWithEntity();
    const bytes = randomData(5000);
    const run = await runActions(t, [
      { stepId: "up", name: "uploadArtifact", config: { entityId, artifactType: "scan", base64: base64Of(bytes), name: "scan.png", contentType: "image/png" } },
      { stepId: "link", name: "createArtifactDownloadURL", config: { entityId, artifactId: "{{ outputs.up.id }}", ttl: 120 } },
      { stepId: "v1", name: "createArtifactDownloadURL", config: { entityId, artifactId: "{{ outputs.up.id }}", version: 1 } },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { link, v1 } = run.outputs.f;
    expect(link.url.startsWith(`${ORIGIN}/entity/downloads/`)).toBe(true);
    expect(Math.abs(secondsFromNow(link.expires_at) - 120)).toBeLessThan(5);
    expect(Math.abs(secondsFromNow(v1.expires_at) - 900)).toBeLessThan(5);
    const res = await fetchUrl(link.url);
    expect([res.status, res.headers.get("Content-Type"), res.headers.get("Content-Disposition")]).toEqual([
      200,
      "image/png",
      `attachment; filename="scan.png"; filename*=UTF-8''scan.png`,
    ]);
    expect(firstDifference(res.bytes, bytes)).toBe(-1);
  });
});

describe("temp file actions", () => {
  it("uploadTempFile, downloadTempFile as text and base64, and a download link that serves the bytes", async () => {
    const t = await createTenant();
    const binary = randomData(4096);
    const run = await runActions(t, [
      { stepId: "txt", name: "uploadTempFile", config: { name: "hello.txt", contentType: "text/plain", text: "hej då ✓" } },
      { stepId: "bin", name: "uploadTempFile", config: { name: "blob.bin", contentType: "application/octet-stream", base64: base64Of(binary) } },
      { stepId: "asText", name: "downloadTempFile", config: { tempFileId: "{{ outputs.txt.temp_file_id }}", as: "text" } },
      { stepId: "asBase64", name: "downloadTempFile", config: { tempFileId: "{{ outputs.bin.temp_file_id }}", as: "base64" } },
      { stepId: "link", name: "createTempFileDownloadURL", config: { tempFileId: "{{ outputs.bin.temp_file_id }}", ttl: 7200 } },
      { stepId: "short", name: "createTempFileDownloadURL", config: { tempFileId: "{{ outputs.txt.temp_file_id }}" } },
    ]);
    expect(run.status, JSON.stringify(run.job_runs)).toBe("success");
    const { txt, bin, asText, asBase64, link, short } = run.outputs.f;
    const textBytes = new TextEncoder().encode("hej då ✓").byteLength;
    expect(txt).toEqual({ temp_file_id: expect.any(String), name: "hello.txt", content_type: "text/plain", size: textBytes, expires_at: expect.any(String) });
    expect(bin).toMatchObject({ name: "blob.bin", content_type: "application/octet-stream", size: 4096 });
    expect(asText).toEqual({ text: "hej då ✓", content_type: "text/plain", size: textBytes });
    expect(asBase64).toEqual({ base64: base64Of(binary), content_type: "application/octet-stream", size: 4096 });

    expect(link.url.startsWith(`${ORIGIN}/entity/temp-files/${bin.temp_file_id}/download?`)).toBe(true);
    expect(Math.abs(secondsFromNow(link.expires_at) - 7200)).toBeLessThan(5);
    expect(Math.abs(secondsFromNow(short.expires_at) - 900)).toBeLessThan(5);
    const res = await fetchUrl(link.url);
    expect([res.status, res.headers.get("X-Temp-File-Name"), res.headers.get("X-Temp-File-Content-Type")]).toEqual([
      200,
      "blob.bin",
      "application/octet-stream",
    ]);
    expect(firstDifference(res.bytes, binary)).toBe(-1);
    const rest = await restBytes(t.auth, `/entity/temp-files/${txt.temp_file_id}`);
    expect(new TextDecoder().decode(rest.bytes)).toBe("hej då ✓");
  });

  it("never makes a link outlive the temp file", async () => {
    const t = await createTenant();
    const run = await runActions(t, [{ stepId: "tmp", name: "uploadTempFile", config: { name: "x.txt", contentType: "text/plain", text: "x" } }]);
    const { temp_file_id } = run.outputs.f.tmp;
    // Twenty minutes of life left: a two-hour link is cut to the file's expiry.
    await systemQuery("UPDATE temp_files SET expires_at = now() + interval '20 minutes' WHERE id = $1", [temp_file_id]);
    const linked = await runActions(t, [{ stepId: "link", name: "createTempFileDownloadURL", config: { tempFileId: temp_file_id, ttl: 7200 } }]);
    expect(linked.status, JSON.stringify(linked.job_runs)).toBe("success");
    expect(Math.abs(secondsFromNow(linked.outputs.f.link.expires_at) - 1200)).toBeLessThan(5);
  });
});

describe("refusals", () => {
  const uuid = "00000000-0000-4000-8000-000000000000";

  it("refuses bad configs with the path of the bad field", async () => {
    const t = await createTenant();
    // Wrapped in $literal, so the save leaves each to the run: a literal config the schema refuses is refused at save.
    const bad = (stepId: string, name: string, config: Record<string, unknown>) => ({ stepId, name, config: { $literal: config } });
    const run = await runActions(
      t,
      continuing([
        bad("noSource", "uploadArtifact", { entityId: uuid, artifactType: "x" }),
        bad("twoSources", "uploadArtifact", { entityId: uuid, artifactType: "x", tempFileId: uuid, text: "a", name: "a", contentType: "text/plain" }),
        bad("textNoName", "uploadArtifact", { entityId: uuid, artifactType: "x", text: "a", contentType: "text/plain" }),
        bad("badEntity", "uploadArtifact", { entityId: "nope", artifactType: "x", tempFileId: uuid }),
        bad("badType", "uploadArtifact", { entityId: uuid, artifactType: "", tempFileId: uuid, contentType: "plain" }),
        bad("badAs", "downloadArtifact", { entityId: uuid, artifactId: uuid, as: "bytes" }),
        bad("capNoText", "downloadArtifact", { entityId: uuid, artifactId: uuid, maxTextBytes: 10 }),
        bad("capTooBig", "downloadArtifact", { entityId: uuid, artifactId: uuid, as: "text", maxTextBytes: 5 * MiB + 1 }),
        bad("listExtra", "listEntityArtifacts", { entityId: uuid, artifact_type: "x", limit: 1001 }),
        bad("linkTtl", "createArtifactDownloadURL", { entityId: uuid, artifactId: uuid, ttl: 7201 }),
        bad("tmpBoth", "uploadTempFile", { name: "a", contentType: "text/plain", text: "a", base64: "YQ==" }),
        bad("tmpName", "uploadTempFile", { name: 7, contentType: "text/plain", text: "a" }),
        bad("dlNoAs", "downloadTempFile", { tempFileId: uuid }),
        bad("tmpTtl", "createTempFileDownloadURL", { tempFileId: "x", ttl: 0 }),
      ]),
    );
    const lines = Object.fromEntries(run.job_runs[0].action_runs.map((a: any) => [a.step_id, [a.error.status, a.error.code, a.error.details.errors]]));
    const v = (...errors: string[]) => [422, "VALIDATION_FAILED", errors];
    expect(lines).toEqual({
      noSource: v("config: does not match any allowed shape (tempFileId is required | text is required | base64 is required)"),
      twoSources: v("config.text: is not allowed"),
      textNoName: v("config.name: is required"),
      badEntity: v(`config.entityId: must match the pattern ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
      badType: v("config.artifactType: String is too short (0 < 1)", expect.stringMatching(/^config\.contentType: must match the pattern/)),
      badAs: v('config.as: must be one of ["tempFile","text"]'),
      capNoText: v("config.as: is required"),
      capTooBig: v("config.maxTextBytes: 5242881 is greater than 5242880"),
      listExtra: v("config.limit: 1001 is greater than 1000", "config.artifact_type: is not allowed"),
      linkTtl: v("config.ttl: 7201 is greater than 7200"),
      tmpBoth: v("config.base64: is not allowed"),
      tmpName: v("config.name: must be string, got number"),
      dlNoAs: v("config.as: is required"),
      tmpTtl: v(expect.stringMatching(/^config\.tempFileId: /), "config.ttl: 0 is less than 1"),
    });
  });

  it("refuses each action with 403 when the run's policy lacks the permission its REST route needs", async () => {
    const { t, entityId } = await tenantWithEntity();
    const setup = await runActions(t, [
      { stepId: "up", name: "uploadArtifact", config: { entityId, artifactType: "n", text: "x", name: "x.txt", contentType: "text/plain" } },
      { stepId: "tmp", name: "uploadTempFile", config: { name: "x.txt", contentType: "text/plain", text: "x" } },
    ]);
    const artifactId = setup.outputs.f.up.id;
    const tempFileId = setup.outputs.f.tmp.temp_file_id;
    const actions = continuing([
      { stepId: "upload", name: "uploadArtifact", config: { entityId, artifactType: "n", text: "y", name: "x.txt", contentType: "text/plain" } },
      { stepId: "promote", name: "uploadArtifact", config: { entityId, artifactType: "n", tempFileId } },
      { stepId: "asFile", name: "downloadArtifact", config: { entityId, artifactId } },
      { stepId: "asText", name: "downloadArtifact", config: { entityId, artifactId, as: "text" } },
      { stepId: "list", name: "listEntityArtifacts", config: { entityId } },
      { stepId: "artifactLink", name: "createArtifactDownloadURL", config: { entityId, artifactId } },
      { stepId: "tmpUp", name: "uploadTempFile", config: { name: "y.txt", contentType: "text/plain", text: "y" } },
      { stepId: "tmpDown", name: "downloadTempFile", config: { tempFileId, as: "text" } },
      { stepId: "tmpLink", name: "createTempFileDownloadURL", config: { tempFileId } },
    ]);
    const status = (run: any) => Object.fromEntries(run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.error?.status ?? 200]));

    // Read only: nothing that writes an artifact or a temp file.
    expect(status(await runActions(t, actions, ["entity:read"]))).toEqual({
      upload: 403,
      promote: 403,
      asFile: 403,
      asText: 200,
      list: 200,
      artifactLink: 200,
      tmpUp: 403,
      tmpDown: 200,
      tmpLink: 200,
    });
    // Read and update: artifacts written, but no temp file made.
    expect(status(await runActions(t, actions, ["entity:read", "entity:update"]))).toEqual({
      upload: 200,
      promote: 200,
      asFile: 403,
      asText: 200,
      list: 200,
      artifactLink: 200,
      tmpUp: 403,
      tmpDown: 200,
      tmpLink: 200,
    });
    // Read and create: temp files made, no artifact written.
    expect(status(await runActions(t, actions, ["entity:read", "entity:create"]))).toEqual({
      upload: 403,
      promote: 403,
      asFile: 200,
      asText: 200,
      list: 200,
      artifactLink: 200,
      tmpUp: 200,
      tmpDown: 200,
      tmpLink: 200,
    });
    // No read: every action here needs it (writing an artifact reads its entity first), so each is refused before it looks.
    expect(status(await runActions(t, actions, ["entity:update"]))).toEqual({
      upload: 403,
      promote: 403,
      asFile: 403,
      asText: 403,
      list: 403,
      artifactLink: 403,
      tmpUp: 403,
      tmpDown: 403,
      tmpLink: 403,
    });
    const refused = errorOf(await runActions(t, actions.slice(0, 1), ["entity:read"]), "upload");
    expect(refused).toMatchObject({ status: 403, code: "FORBIDDEN", details: { resource: "entity", action: "update" } });
    // The setup's version and the two of the run allowed to write: nothing the refused actions would have written.
    const listed = await call("GET", `/entity/entities/${entityId}/artifacts?include_versions=true`, { auth: t.auth });
    expect(listed.json.data.map((a: any) => a.versions.length)).toEqual([3]);
  });

  it("answers 404 for unknown ids and for another tenant's entity, artifact and temp file", async () => {
    const mine = await tenantWithEntity();
    const theirs = await tenantWithEntity();
    const made = await runActions(theirs.t, [
      {
        stepId: "up",
        name: "uploadArtifact",
        config: { entityId: theirs.entityId, artifactType: "n", text: "secret", name: "s.txt", contentType: "text/plain" },
      },
      { stepId: "tmp", name: "uploadTempFile", config: { name: "s.txt", contentType: "text/plain", text: "secret" } },
    ]);
    const theirArtifact = made.outputs.f.up.id;
    const theirTemp = made.outputs.f.tmp.temp_file_id;
    const own = await runActions(mine.t, [
      { stepId: "up", name: "uploadArtifact", config: { entityId: mine.entityId, artifactType: "n", text: "m", name: "m.txt", contentType: "text/plain" } },
    ]);
    const myArtifact = own.outputs.f.up.id;

    const run = await runActions(
      mine.t,
      continuing([
        {
          stepId: "uploadTheirEntity",
          name: "uploadArtifact",
          config: { entityId: theirs.entityId, artifactType: "n", text: "x", name: "x.txt", contentType: "text/plain" },
        },
        { stepId: "promoteTheirTemp", name: "uploadArtifact", config: { entityId: mine.entityId, artifactType: "n", tempFileId: theirTemp } },
        { stepId: "promoteUnknown", name: "uploadArtifact", config: { entityId: mine.entityId, artifactType: "n", tempFileId: uuid } },
        { stepId: "downloadTheirs", name: "downloadArtifact", config: { entityId: theirs.entityId, artifactId: theirArtifact, as: "text" } },
        { stepId: "theirArtifactOnMine", name: "downloadArtifact", config: { entityId: mine.entityId, artifactId: theirArtifact } },
        { stepId: "noSuchVersion", name: "downloadArtifact", config: { entityId: mine.entityId, artifactId: myArtifact, version: 2 } },
        { stepId: "listTheirs", name: "listEntityArtifacts", config: { entityId: theirs.entityId } },
        { stepId: "listUnknown", name: "listEntityArtifacts", config: { entityId: uuid } },
        { stepId: "linkTheirs", name: "createArtifactDownloadURL", config: { entityId: theirs.entityId, artifactId: theirArtifact } },
        { stepId: "linkUnknown", name: "createArtifactDownloadURL", config: { entityId: mine.entityId, artifactId: uuid } },
        { stepId: "readTheirTemp", name: "downloadTempFile", config: { tempFileId: theirTemp, as: "text" } },
        { stepId: "readUnknownTemp", name: "downloadTempFile", config: { tempFileId: uuid, as: "base64" } },
        { stepId: "linkTheirTemp", name: "createTempFileDownloadURL", config: { tempFileId: theirTemp } },
      ]),
    );
    const statuses = run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.error?.status, a.error?.code]);
    expect(statuses.filter(([, s, c]: [string, number, string]) => s !== 404 || c !== "NOT_FOUND")).toEqual([]);
    expect(statuses).toHaveLength(13);
    // Their files are as they were.
    const theirList = await call("GET", `/entity/entities/${theirs.entityId}/artifacts?include_versions=true`, { auth: theirs.t.auth });
    expect(theirList.json.data.map((a: any) => [a.id, a.versions.length])).toEqual([[theirArtifact, 1]]);
  });

  it("refuses config bytes past 1 MiB and base64 that is not base64, storing nothing", async () => {
    const { t, entityId } = await tenantWithEntity();
    // Made inside the run, so the definition itself stays small.
    const big = { $jsonata: `$pad("", ${MiB + 1}, "a")` };
    const run = await runActions(
      t,
      continuing([
        { stepId: "tmpBig", name: "uploadTempFile", config: { name: "big.txt", contentType: "text/plain", text: big } },
        { stepId: "artifactBig", name: "uploadArtifact", config: { entityId, artifactType: "n", text: big, name: "big.txt", contentType: "text/plain" } },
        { stepId: "atCap", name: "uploadTempFile", config: { name: "cap.txt", contentType: "text/plain", text: { $jsonata: `$pad("", ${MiB}, "a")` } } },
        { stepId: "notBase64", name: "uploadTempFile", config: { name: "b.bin", contentType: "application/octet-stream", base64: "not base64!" } },
        { stepId: "readDefaultCap", name: "downloadTempFile", config: { tempFileId: "{{ outputs.atCap.temp_file_id }}", as: "base64", maxTextBytes: MiB - 1 } },
      ]),
    );
    expect(outcomes(run)).toEqual([
      ["tmpBig", "error", 413, "PAYLOAD_TOO_LARGE"],
      ["artifactBig", "error", 413, "PAYLOAD_TOO_LARGE"],
      ["atCap", "success", null, null],
      ["notBase64", "error", 422, "VALIDATION_FAILED"],
      ["readDefaultCap", "error", 413, "PAYLOAD_TOO_LARGE"],
    ]);
    expect(errorOf(run, "tmpBig").details).toEqual({ field: "config.text", size: MiB + 1, limit: MiB });
    expect(errorOf(run, "notBase64").details.errors).toEqual(["config.base64: is not valid base64"]);
    expect(run.outputs.f.atCap.size).toBe(MiB);
    const listed = await call("GET", `/entity/entities/${entityId}/artifacts`, { auth: t.auth });
    expect(listed.json.data).toEqual([]);
  });
});
