// CORS on every answer of a browser host's routes, errors included: an
// answer to an Origin the integration lists carries
// Access-Control-Allow-Origin and Vary: Origin, so the host's page reads a
// 401, 403, 413 or 422 as its body instead of "Failed to fetch".
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, expectError } from "../support/api";
import { HOST_ORIGIN, hostFor, hostProvider, type Host } from "./host-fixture";

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          layout: [["picker"]],
          widgets: {
            picker: {
              widgetComponent: "button",
              actionHandlers: {
                slots: [
                  { kind: "createTempFileUploadUrl", stepId: "up", slots: [{ name: "doc", accept: [".pdf"], maxFileSize: 16 }] },
                  { kind: "setWidgetState", widgetId: "picker", state: { upload: "{{ outputs.up.doc }}" } },
                ],
              },
            },
          },
        },
      },
    },
  },
  providers: { host: { ...hostProvider.host, upload: "canvasFileUpload" } },
};

const OTHER = "https://elsewhere.example";
const BOUNDARY = "----cors";

function multipart(bytes: string, filename: string): Uint8Array {
  return new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n${bytes}\r\n--${BOUNDARY}--\r\n`,
  );
}

/** A render post; `token` null sends no credential. */
function run(host: Host, origin: string | undefined, body: unknown, token: string | null = host.token, integrationId = host.integrationId) {
  return call("POST", `/apps/run/${integrationId}`, {
    ...(token !== null && { auth: `Bearer ${token}` }),
    body,
    headers: origin === undefined ? {} : { Origin: origin },
  });
}

function upload(url: string, origin: string | undefined, body: BodyInit) {
  return SELF.fetch(url, { method: "POST", body, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...(origin && { Origin: origin }) } });
}

/** The CORS grant a browser reads, and Vary: Origin, which every answer of these routes carries. */
function grant(res: { headers: Headers }) {
  expect(res.headers.get("Vary") ?? "").toMatch(/(^|,\s*)Origin(\s*,|$)/);
  return res.headers.get("Access-Control-Allow-Origin");
}

describe("CORS on every answer of /apps/run/{id} to a listed origin", () => {
  it("grants the listed origin on success and on each error status, never an unlisted one", async () => {
    const host = await hostFor(spec);
    const user = { user: "u-1", company: "acme" };
    const answers: [status: number, code: string | undefined, send: (origin: string) => ReturnType<typeof call>][] = [
      [200, undefined, (o) => run(host, o, user)],
      [401, "UNAUTHORIZED", (o) => run(host, o, user, `svc_at_${"0".repeat(64)}`)],
      [401, "UNAUTHORIZED", (o) => run(host, o, user, null)],
      [401, "UNAUTHORIZED", (o) => run(host, o, { company: "acme" })],
      [403, "FORBIDDEN", (o) => run(host, o, { user: "u-1", company: "globex" })],
      [422, "UNPROCESSABLE_ENTITY", (o) => run(host, o, { ...user, action: { widgetId: "nope", handler: "click" } })],
      [422, "VALIDATION_FAILED", (o) => run(host, o, { ...user, action: "click" })],
      [
        400,
        "BAD_REQUEST",
        (o) =>
          call("POST", `/apps/run/${host.integrationId}`, {
            auth: `Bearer ${host.token}`,
            rawBody: "{",
            headers: { Origin: o, "Content-Type": "application/json" },
          }),
      ],
      [413, "PAYLOAD_TOO_LARGE", (o) => run(host, o, { ...user, context: { pad: "x".repeat(1024 * 1024) } })],
      [405, "METHOD_NOT_ALLOWED", (o) => call("GET", `/apps/run/${host.integrationId}`, { headers: { Origin: o } })],
    ];
    for (const [status, code, send] of answers) {
      const listed = await send(HOST_ORIGIN);
      if (code) expectError(listed, status, code);
      else expect(listed.status, listed.text).toBe(status);
      expect(grant(listed), `${status} ${code}`).toBe(HOST_ORIGIN);
      const unlisted = await send(OTHER);
      // The render refuses an unlisted origin itself once the credential holds; either way it gets no grant.
      expect(grant(unlisted), `${status} ${code} unlisted`).toBeNull();
    }
    // A server host sends no Origin and gets no grant, only Vary.
    const server = await run(host, undefined, user);
    expect(server.status).toBe(200);
    expect(grant(server)).toBeNull();
  });

  it("grants nothing for an integration that does not exist, so a page on an unlisted origin learns nothing from the header", async () => {
    const host = await hostFor(spec);
    const unknown = await run(host, HOST_ORIGIN, { user: "u-1", company: "acme" }, host.token, crypto.randomUUID());
    expectError(unknown, 401, "UNAUTHORIZED");
    expect(grant(unknown)).toBeNull();
    // An existing integration grants only the origins it lists, whatever the credential.
    const wrongToken = await run(host, OTHER, { user: "u-1", company: "acme" }, `svc_at_${"0".repeat(64)}`);
    expectError(wrongToken, 401, "UNAUTHORIZED");
    expect(grant(wrongToken)).toBeNull();
    const malformed = await run(host, HOST_ORIGIN, {}, host.token, "not-a-uuid");
    expectError(malformed, 422, "VALIDATION_FAILED");
    expect(grant(malformed)).toBeNull();
  });
});

describe("CORS on every answer of /apps/upload/{integrationId}/{uploadId} to a listed origin", () => {
  it("grants the listed origin on success and on the provider's error bodies, the link's refusals included", async () => {
    const host = await hostFor(spec);
    const slot = async () => {
      const res = await host.render({ action: { widgetId: "picker", handler: "slots" } });
      expect(res.status, res.text).toBe(200);
      return res.json.data.state.widgets.picker.upload as { uploadUrl: string; uploadId: string };
    };
    const [ok, big, wrongType, tampered] = [await slot(), await slot(), await slot(), await slot()];
    const forged = new URL(tampered.uploadUrl);
    forged.searchParams.set("signature", "A".repeat(43));
    const otherIntegration = (await hostFor(spec)).integrationId;
    const answers: [status: number, send: (origin: string) => Promise<Response>][] = [
      [415, (o) => upload(wrongType.uploadUrl, o, multipart("x", "notes.txt"))],
      [413, (o) => upload(big.uploadUrl, o, multipart("x".repeat(64), "big.pdf"))],
      [403, (o) => upload(forged.toString(), o, multipart("x", "a.pdf"))],
      [403, (o) => upload(ok.uploadUrl.replace(host.integrationId, otherIntegration), o, multipart("x", "a.pdf"))],
      [400, (o) => SELF.fetch(ok.uploadUrl, { method: "POST", body: "plain", headers: { "Content-Type": "text/plain", Origin: o } })],
      [200, (o) => upload(ok.uploadUrl, o, multipart("x", "a.pdf"))],
      [409, (o) => upload(ok.uploadUrl, o, multipart("x", "a.pdf"))],
    ];
    for (const [status, send] of answers) {
      const listed = await send(HOST_ORIGIN);
      expect(listed.status, await listed.clone().text()).toBe(status);
      // The grant follows the integration the path names: another integration's path grants what that one lists.
      expect(grant(listed), `${status}`).toBe(HOST_ORIGIN);
      expect(listed.headers.get("Cache-Control")).toBe("no-store");
      // The upload takes no Origin check of its own (its link is its authority), so this one may answer otherwise; it gets no grant.
      expect(grant(await send(OTHER)), `${status} unlisted`).toBeNull();
    }
  });
});

describe("OPTIONS /apps/upload/{integrationId}/{uploadId}", () => {
  it("answers a listed origin's preflight (a page following an upload's progress asks first), and grants nothing to another", async () => {
    const host = await hostFor(spec);
    const url = `https://platform.test/apps/upload/${host.integrationId}/${crypto.randomUUID()}`;
    const ask = (origin: string) =>
      SELF.fetch(url, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
      });
    const listed = await ask(HOST_ORIGIN);
    expect(listed.status).toBe(204);
    expect([listed.headers.get("Access-Control-Allow-Origin"), listed.headers.get("Access-Control-Allow-Methods"), listed.headers.get("Vary")]).toEqual([
      HOST_ORIGIN,
      "POST, OPTIONS",
      "Origin",
    ]);
    expect(listed.headers.get("Access-Control-Allow-Headers")).toContain("Content-Type");
    const other = await ask(OTHER);
    expect(other.status).toBe(204);
    expect(other.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
