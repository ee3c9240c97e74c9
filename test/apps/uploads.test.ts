// App uploads (docs/apps.md, Uploads): slots minted as a render's
// `createTempFileUploadUrl` step mints them (mintUploadSlots, called in the
// test worker with an identity of API-made fixtures), files posted to their
// links through the gateway, read back through GET /entity/temp-files/{id},
// and the form preview's view of them.
import { env, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database, tenantDb } from "../../src/db/client";
import type { RenderIdentity } from "../../src/apps/render/contracts";
import { mintUploadSlots, sweepUploadSlots, uploadPreview, type MintedSlot } from "../../src/apps/uploads/slots";
import type { SpecDocument } from "../../src/apps/spec";
import { ApiError } from "../../src/lib/errors";
import { BASE, call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { firstDifference, MiB, randomData, streamOf } from "../entity/files-support";
import { dashboards, insertSpec, putConfig, registerCompany } from "./fixture";
import { bearerProvider, testClock } from "./identity-fixture";

const enc = new TextEncoder();
const BOUNDARY = "----uploadtestboundary";
const ORIGIN = "https://host.example";

interface Fixture {
  tenant: TenantCreds;
  spec: SpecDocument;
  identity: RenderIdentity;
  otherIntegrationId: string;
}

async function setup(upload: unknown): Promise<Fixture> {
  const tenant = await createTenant();
  const spec = {
    dashboards,
    providers: { host: { ...bearerProvider(), upload } },
    config: { app: { label: "from the definition" } },
  } as unknown as SpecDocument;
  const published = await insertSpec(tenant, [spec]);
  const activation = await putConfig(tenant, published.id, { config: { greeting: "hello" } });
  expect(activation.status, activation.text).toBe(200);
  const integration = async () => {
    const company = await registerCompany(tenant, "host");
    const res = await call("POST", `/apps/${published.id}/integrations`, {
      auth: tenant.auth,
      body: { external_company_id: company.id, allowed_origins: [ORIGIN], config: { shelf: "B" } },
    });
    expect(res.status, res.text).toBe(201);
    return { id: res.json.data.id as string, company };
  };
  const first = await integration();
  const second = await integration();
  return {
    tenant,
    spec,
    otherIntegrationId: second.id,
    identity: {
      tenantId: tenant.tenantId,
      integrationId: first.id,
      activationId: activation.json.data.id,
      specId: published.id,
      specVersion: 1,
      provider: "host",
      externalCompanyId: first.company.id,
      companyExternalId: first.company.external_id,
      userId: tenant.userId,
      identity: { user_external_id: "u-1", first_name: "Ada" },
      // Minting reads no permission: the step that calls it has run under them already.
      principal: {} as RenderIdentity["principal"],
    },
  };
}

let database: Database;
beforeAll(() => {
  database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
});
afterAll(async () => {
  await database.close();
});

function mint(f: Fixture, request: { slots: unknown; type?: unknown; ttl?: unknown }, clock = { now: () => Date.now() }, identity = f.identity) {
  return mintUploadSlots(
    { tenant: tenantDb(database, f.tenant.tenantId), secret: env.MASTER_KEY, clock },
    { identity, origin: BASE, spec: f.spec, ...request },
  );
}

async function slot(f: Fixture, fields: { maxFileSize?: number; accept?: string[] } = {}): Promise<MintedSlot> {
  return (await mint(f, { slots: [{ name: "doc", ...fields }] })).doc;
}

/** A multipart body with one file part, its Content-Disposition filename written as given (bytes, so NUL survives). */
function multipart(file: Uint8Array, filename = "report.pdf", type = "application/pdf"): Uint8Array {
  const head = enc.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = enc.encode(`\r\n--${BOUNDARY}--\r\n`);
  const out = new Uint8Array(head.length + file.length + tail.length);
  out.set(head);
  out.set(file, head.length);
  out.set(tail, head.length + file.length);
  return out;
}

async function post(url: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(url, { method: "POST", body, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

async function stored(f: Fixture, id: string) {
  const res = await SELF.fetch(`${BASE}/entity/temp-files/${id}`, { headers: { Authorization: f.tenant.auth } });
  return {
    status: res.status,
    name: res.headers.get("X-Temp-File-Name"),
    type: res.headers.get("X-Temp-File-Content-Type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

/** Neither a temp file row nor its bytes, and the slot free again (or never taken). */
async function expectNothingStored(f: Fixture, id: string, claimed = false) {
  expect(await systemQuery("SELECT id FROM temp_files WHERE id = $1", [id])).toEqual([]);
  expect(await env.FILES.head(`temp-files/${f.tenant.tenantId}/${id}`)).toBeNull();
  const [row] = await systemQuery("SELECT claimed_at FROM app_upload_slots WHERE id = $1", [id]);
  expect(row.claimed_at !== null).toBe(claimed);
}

describe("minting upload slots", () => {
  it("stores one row per slot and signs an absolute link to the upload route for each", async () => {
    const f = await setup("canvasFileUpload");
    const before = Date.now();
    const minted = await mint(f, {
      slots: [
        { name: "doc", maxFileSize: 30 * MiB, accept: [".pdf", "image/*"] },
        { name: "photo", maxFileSize: 1000 },
      ],
    });
    expect(Object.keys(minted)).toEqual(["doc", "photo"]);
    for (const m of Object.values(minted)) {
      expect(m.uploadUrl).toMatch(
        new RegExp(`^${BASE}/apps/upload/${f.identity.integrationId}/${m.uploadId}\\?tenant=${f.tenant.tenantId}&expires=\\d+&signature=[\\w-]{43}$`),
      );
      const ttl = (Date.parse(m.expiresAt) - before) / 1000;
      expect(ttl).toBeGreaterThan(1795);
      expect(ttl).toBeLessThanOrEqual(1801);
    }
    const rows = await systemQuery(
      "SELECT id, name, type, provider, max_file_size, accept, user_id, integration_id, activation_id, identity, claimed_at FROM app_upload_slots WHERE tenant_id = $1 ORDER BY name",
      [f.tenant.tenantId],
    );
    expect(rows).toEqual([
      {
        id: minted.doc.uploadId,
        name: "doc",
        type: "canvasFileUpload",
        provider: "host",
        max_file_size: 25 * MiB,
        accept: [".pdf", "image/*"],
        user_id: f.tenant.userId,
        integration_id: f.identity.integrationId,
        activation_id: f.identity.activationId,
        identity: f.identity.identity,
        claimed_at: null,
      },
      {
        id: minted.photo.uploadId,
        name: "photo",
        type: "canvasFileUpload",
        provider: "host",
        max_file_size: 1000,
        accept: [],
        user_id: f.tenant.userId,
        integration_id: f.identity.integrationId,
        activation_id: f.identity.activationId,
        identity: f.identity.identity,
        claimed_at: null,
      },
    ]);
  });

  it("takes ttl from 1 to 7200 and refuses everything it cannot mint with 422, storing nothing", async () => {
    const f = await setup({ canvasFileUpload: {} });
    const long = await mint(f, { slots: [{ name: "a" }], ttl: 7200, type: "canvasFileUpload" });
    expect((Date.parse(long.a.expiresAt) - Date.now()) / 1000).toBeGreaterThan(7190);
    const refusals: [object, string][] = [
      [{ slots: [{ name: "a" }], ttl: 7201 }, "ttl: must be an integer from 1 to 7200, got 7201"],
      [{ slots: [{ name: "a" }], ttl: 0 }, "ttl: must be an integer from 1 to 7200, got 0"],
      [{ slots: [{ name: "a" }, { name: "a" }] }, 'slots[1].name: "a" names an earlier slot too; slot names are unique'],
      [{ slots: [{ name: "" }] }, "slots[0].name"],
      [{ slots: [{ name: "a", accept: ["pdf"] }] }, 'slots[0].accept[0]: "pdf" is neither an extension (.pdf) nor a MIME type (application/pdf, image/*)'],
      [{ slots: [{ name: "a", maxFileSize: 0 }] }, "slots[0].maxFileSize"],
      [{ slots: "a" }, "slots"],
      [{ slots: [{ name: "a" }], type: "otherUpload" }, 'type: "otherUpload" is not an upload type of provider host (declared: canvasFileUpload)'],
    ];
    for (const [request, line] of refusals) {
      const e = await mint(f, request as { slots: unknown }).then(
        () => undefined,
        (err) => err,
      );
      expect(e, JSON.stringify(request)).toBeInstanceOf(ApiError);
      expect([e.status, e.code]).toEqual([422, "UNPROCESSABLE_ENTITY"]);
      expect(
        e.details.errors.some((l: string) => l.startsWith(line)),
        `${JSON.stringify(e.details.errors)} has ${line}`,
      ).toBe(true);
    }
    const preview = await mint(f, { slots: [{ name: "a" }] }, undefined, { ...f.identity, integrationId: undefined }).then(
      () => undefined,
      (err) => err,
    );
    expect([preview.status, preview.message]).toEqual([422, "uploads need an integration: an author's preview has none, so it mints no upload links"]);
    expect(await systemQuery("SELECT count(*)::int AS n FROM app_upload_slots WHERE tenant_id = $1", [f.tenant.tenantId])).toEqual([{ n: 1 }]);
  });

  it("defaults the type to the provider's only one, and needs it named when there is none to default to", async () => {
    const none = await setup(undefined);
    const e = await mint(none, { slots: [{ name: "a" }] }).then(
      () => undefined,
      (err) => err,
    );
    expect([e.status, e.message]).toEqual([422, "Provider host declares no upload type (providers.<name>.upload)"]);
    const undeclared = await mint(none, { slots: [{ name: "a" }], type: "canvasFileUpload" }).then(
      () => undefined,
      (err) => err,
    );
    expect(undeclared.details.errors).toEqual(['type: "canvasFileUpload" is not declared by provider host (declared: none)']);
  });
});

describe("POST /apps/upload/{integrationId}/{uploadId}", () => {
  it("stores the file as the temp file of the slot's id and answers { uploadId }", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const bytes = randomData(300_000);
    const res = await post(s.uploadUrl, multipart(bytes), { Origin: ORIGIN });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ uploadId: s.uploadId });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    const file = await stored(f, s.uploadId);
    expect([file.status, file.name, file.type]).toEqual([200, "report.pdf", "application/pdf"]);
    expect(firstDifference(file.bytes, bytes)).toBe(-1);
    const [row] = await systemQuery("SELECT tenant_id, size, expires_at > now() + interval '23 hours 59 minutes' AS day FROM temp_files WHERE id = $1", [
      s.uploadId,
    ]);
    expect(row).toEqual({ tenant_id: f.tenant.tenantId, size: 300_000, day: true });
    const stranger = await post(s.uploadUrl, multipart(bytes), { Origin: "https://else.example" });
    expect(stranger.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("takes a browser's FormData, streamed without Content-Length too", async () => {
    const f = await setup("canvasFileUpload");
    const [a, b] = [await slot(f), await slot(f)];
    const form = new FormData();
    form.append("note", "ignored");
    form.append("file", new File([enc.encode("from a form")], "note.txt", { type: "text/plain" }));
    const res = await SELF.fetch(a.uploadUrl, { method: "POST", body: form });
    expect([res.status, await res.json()]).toEqual([200, { uploadId: a.uploadId }]);
    expect(await stored(f, a.uploadId)).toMatchObject({ name: "note.txt", type: "text/plain", bytes: enc.encode("from a form") });
    const bytes = randomData(3 * MiB + 17);
    const chunked = await post(b.uploadUrl, streamOf(multipart(bytes), 65_000));
    expect(chunked.status, chunked.text).toBe(200);
    expect(firstDifference((await stored(f, b.uploadId)).bytes, bytes)).toBe(-1);
  });

  it("answers in the provider's props and errorProps, resolved against upload, error, provider and config", async () => {
    const f = await setup({
      canvasFileUpload: {
        props: {
          id: "{{ upload.id }}",
          file: "{{ upload.filename }}",
          type: "{{ upload.contentType }}",
          size: "{{ upload.size }}",
          until: "{{ upload.expiresAt }}",
          who: "{{ provider.provider }}:{{ provider.identity.first_name }}",
          config: "{{ config.app.label }}/{{ config.app.greeting }}/{{ config.integration.shelf }}",
        },
        errorProps: {
          ok: false,
          reason: "{{ error.code }}",
          status: "{{ error.status }}",
          text: "{{ error.message }}",
          for: "{{ provider.identity.first_name }}",
        },
      },
    });
    const s = await slot(f);
    const res = await post(s.uploadUrl, multipart(enc.encode("12345"), "r.pdf"));
    expect(res.status, res.text).toBe(200);
    const [row] = await systemQuery("SELECT expires_at FROM temp_files WHERE id = $1", [s.uploadId]);
    expect(res.json).toEqual({
      id: s.uploadId,
      file: "r.pdf",
      type: "application/pdf",
      size: 5,
      until: row.expires_at,
      who: "host:Ada",
      config: "from the definition/hello/B",
    });
    const again = await post(s.uploadUrl, multipart(enc.encode("other")));
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ ok: false, reason: "CONFLICT", status: 409, text: "This upload slot has already been used", for: "Ada" });
  });

  it("falls back to the default bodies when an override fails to resolve", async () => {
    const f = await setup({ canvasFileUpload: { props: { n: "{{ $number('not a number') }}" }, errorProps: { n: "{{ $number('nor this') }}" } } });
    const s = await slot(f);
    expect((await post(s.uploadUrl, multipart(enc.encode("x")))).json).toEqual({ uploadId: s.uploadId });
    const again = await post(s.uploadUrl, multipart(enc.encode("x")));
    expect([again.status, again.json]).toEqual([409, { errorMessage: "This upload slot has already been used" }]);
  });

  it("refuses a replayed link with 409 and keeps the first file", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const first = randomData(1000);
    expect((await post(s.uploadUrl, multipart(first))).status).toBe(200);
    const replay = await post(s.uploadUrl, multipart(randomData(2000), "other.pdf"));
    expect([replay.status, replay.json]).toEqual([409, { errorMessage: "This upload slot has already been used" }]);
    const file = await stored(f, s.uploadId);
    expect([file.name, firstDifference(file.bytes, first)]).toEqual(["report.pdf", -1]);
  });

  it("takes one of two uploads racing for a slot; the other is 409 and the stored file is the winner's", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const bodies = [randomData(2 * MiB), randomData(2 * MiB)];
    const answers = await Promise.all(bodies.map((b) => post(s.uploadUrl, streamOf(multipart(b), 64 * 1024))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = bodies[answers.findIndex((a) => a.status === 200)];
    expect(firstDifference((await stored(f, s.uploadId)).bytes, winner)).toBe(-1);
  });

  it("refuses a missing, tampered or other integration's link with 403", async () => {
    const f = await setup({ canvasFileUpload: { errorProps: { failed: "{{ error.message }}" } } });
    const s = await slot(f);
    const url = new URL(s.uploadUrl);
    const bare = await post(`${url.origin}${url.pathname}`, multipart(enc.encode("x")));
    expect([bare.status, bare.json]).toEqual([
      403,
      { errorMessage: "This upload link is not valid: the link is incomplete: tenant, expires and signature are required" },
    ]);
    const tampered = new URL(url);
    tampered.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 60));
    const forged = await post(tampered.toString(), multipart(enc.encode("x")));
    expect([forged.status, forged.json]).toEqual([403, { errorMessage: "This upload link is not valid: the link's signature is not valid" }]);
    const other = await post(s.uploadUrl.replace(f.identity.integrationId!, f.otherIntegrationId), multipart(enc.encode("x")));
    // The link is genuine, so the slot's provider shapes the answer.
    expect([other.status, other.json]).toEqual([403, { failed: "This upload link belongs to another integration" }]);
    await expectNothingStored(f, s.uploadId);
    expect((await post(s.uploadUrl, multipart(enc.encode("x")))).status).toBe(200);
  });

  it("refuses an expired link with 410, saying so", async () => {
    const f = await setup("canvasFileUpload");
    const clock = testClock(Date.now() - 2 * 3600_000);
    const { doc } = await mint(f, { slots: [{ name: "doc" }], ttl: 1800 }, clock);
    const res = await post(doc.uploadUrl, multipart(enc.encode("late")));
    expect(res.status).toBe(410);
    expect(res.json.errorMessage).toContain("expired");
    await expectNothingStored(f, doc.uploadId);
  });

  it("refuses a file over the slot's maxFileSize with 413, storing nothing and leaving the slot to retry", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f, { maxFileSize: 100_000 });
    const res = await post(s.uploadUrl, streamOf(multipart(randomData(300_000)), 16 * 1024));
    expect([res.status, res.json]).toEqual([413, { errorMessage: "The file is larger than this upload takes (100000 bytes)" }]);
    await expectNothingStored(f, s.uploadId);
    const exact = randomData(100_000);
    expect((await post(s.uploadUrl, multipart(exact))).status).toBe(200);
    expect(firstDifference((await stored(f, s.uploadId)).bytes, exact)).toBe(-1);
  });

  it("refuses a 26 MiB body with 413 whether it declares its length or not, storing nothing", async () => {
    const f = await setup("canvasFileUpload");
    const [declared, streamed] = [await slot(f), await slot(f)];
    const big = multipart(new Uint8Array(26 * MiB).fill(1));
    const a = await post(declared.uploadUrl, big);
    expect([a.status, a.json.errorMessage]).toEqual([413, `Request body exceeds ${25 * MiB + 64 * 1024} bytes`]);
    await expectNothingStored(f, declared.uploadId);
    const b = await post(streamed.uploadUrl, streamOf(big, 256 * 1024));
    expect(b.status).toBe(413);
    await expectNothingStored(f, streamed.uploadId);
  });

  it("stores nothing from a body cut off mid-stream, and lets the slot be used again", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const whole = multipart(randomData(200_000));
    const res = await post(s.uploadUrl, whole.slice(0, 150_000));
    expect([res.status, res.json]).toEqual([400, { errorMessage: "Request body is not valid multipart/form-data" }]);
    await expectNothingStored(f, s.uploadId);
    let sent = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 120_000) return controller.error(new Error("connection lost"));
        controller.enqueue(whole.slice(sent, sent + 40_000));
        sent += 40_000;
      },
    });
    await post(s.uploadUrl, broken).catch(() => undefined);
    await expectNothingStored(f, s.uploadId);
    expect((await post(s.uploadUrl, whole)).status).toBe(200);
  });

  it("records the last path segment of the file name, without NUL or other control characters", async () => {
    const f = await setup("canvasFileUpload");
    const [a, b] = [await slot(f), await slot(f)];
    expect((await post(a.uploadUrl, multipart(enc.encode("x"), "C:\\Users\\ada/../re\u0000port\u0007.pdf"))).status).toBe(200);
    expect((await stored(f, a.uploadId)).name).toBe("report.pdf");
    expect((await post(b.uploadUrl, multipart(enc.encode("x"), "dir/"))).status).toBe(200);
    expect((await stored(f, b.uploadId)).name).toBe("upload");
  });

  it("records the name without Unicode format characters, so an override cannot dress one extension as another", async () => {
    const f = await setup("canvasFileUpload");
    const [a, b, c] = [await slot(f), await slot(f, { accept: [".pdf"] }), await slot(f)];
    const hidden = "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff";
    expect((await post(a.uploadUrl, multipart(enc.encode("x"), `in${hidden}voice\u202Efdp.exe`))).status).toBe(200);
    expect((await stored(f, a.uploadId)).name).toBe("invoicefdp.exe");
    // Shown as "invoiceexe.pdf", it is an .exe: accept reads the name as recorded.
    const refused = await post(b.uploadUrl, multipart(enc.encode("x"), "invoice\u202Efdp.exe"));
    expect([refused.status, refused.json]).toEqual([415, { errorMessage: "This upload takes only .pdf; invoicefdp.exe (application/pdf) is neither" }]);
    await expectNothingStored(f, b.uploadId);
    expect((await post(c.uploadUrl, multipart(enc.encode("x"), `\u202E${hidden}`))).status).toBe(200);
    expect((await stored(f, c.uploadId)).name).toBe("upload");
  });

  it("refuses a file outside accept with 415 and takes one matching an extension or a MIME family", async () => {
    const f = await setup("canvasFileUpload");
    const accept = [".pdf", "image/*"];
    const [txt, pdf, png] = [await slot(f, { accept }), await slot(f, { accept }), await slot(f, { accept })];
    const refused = await post(txt.uploadUrl, multipart(enc.encode("x"), "notes.txt", "text/plain"));
    expect([refused.status, refused.json]).toEqual([415, { errorMessage: "This upload takes only .pdf, image/*; notes.txt (text/plain) is neither" }]);
    await expectNothingStored(f, txt.uploadId);
    expect((await post(pdf.uploadUrl, multipart(enc.encode("x"), "SCAN.PDF", "application/octet-stream"))).status).toBe(200);
    expect((await post(png.uploadUrl, multipart(enc.encode("x"), "photo", "image/png"))).status).toBe(200);
  });

  it("refuses a body that is not multipart with 400 in the provider's body", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const res = await SELF.fetch(s.uploadUrl, { method: "POST", body: "raw", headers: { "Content-Type": "text/plain" } });
    expect([res.status, await res.json()]).toEqual([400, { errorMessage: "An upload is multipart/form-data with a boundary and one `file` part" }]);
    await expectNothingStored(f, s.uploadId);
  });
});

describe("uploadPreview", () => {
  it("links the uploaded file, and says when nothing was uploaded or the upload expired", async () => {
    const f = await setup("canvasFileUpload");
    const s = await slot(f);
    const deps = { database, secret: env.MASTER_KEY, origin: BASE, clock: { now: () => Date.now() } };
    const owner = { integrationId: f.identity.integrationId, userId: f.tenant.userId };
    const refusal = (id: string, who = owner) =>
      uploadPreview(deps, f.tenant.tenantId, id, who).then(
        () => undefined,
        (e) => e,
      );
    const nothing = await refusal(s.uploadId);
    expect([nothing.status, nothing.message]).toEqual([404, "Nothing uploaded: pick a file first"]);
    expect((await refusal(crypto.randomUUID())).message).toBe("Nothing uploaded: pick a file first");
    expect((await post(s.uploadUrl, multipart(enc.encode("preview me"), "p.pdf"))).status).toBe(200);
    const preview = await uploadPreview(deps, f.tenant.tenantId, s.uploadId, owner);
    expect([preview.name, preview.contentType]).toEqual(["p.pdf", "application/pdf"]);
    const download = await SELF.fetch(preview.url);
    expect([download.status, new TextDecoder().decode(await download.arrayBuffer())]).toEqual([200, "preview me"]);
    expect((await refusal(s.uploadId, { integrationId: f.otherIntegrationId, userId: f.tenant.userId })).message).toBe("Nothing uploaded: pick a file first");
    await systemQuery("UPDATE temp_files SET expires_at = now() - interval '1 second' WHERE id = $1", [s.uploadId]);
    const expired = await refusal(s.uploadId);
    expect([expired.status, expired.message]).toEqual([410, "The upload has expired: upload the file again"]);
  });
});

describe("sweepUploadSlots", () => {
  it("removes slots a week past their expiry and keeps the younger ones", async () => {
    const f = await setup("canvasFileUpload");
    const day = 24 * 3600_000;
    const old = (await mint(f, { slots: [{ name: "old" }] }, testClock(Date.now() - 8 * day))).old;
    const recent = (await mint(f, { slots: [{ name: "recent" }] }, testClock(Date.now() - 6 * day))).recent;
    await sweepUploadSlots(database, new Date());
    const left = await systemQuery("SELECT id FROM app_upload_slots WHERE id = ANY($1::uuid[])", [[old.uploadId, recent.uploadId]]);
    expect(left).toEqual([{ id: recent.uploadId }]);
  });
});
