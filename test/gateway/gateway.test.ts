import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";

const ROUTE_CHALLENGE = 'Basic realm="platform", Bearer realm="platform"';

describe("gateway", () => {
  it("answers /healthz without credentials and reports the database reachable", async () => {
    const res = await call("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { status: "ok", database: "reachable" } });
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("X-Rate-Limit-Limit")).toBe("1000000");
  });

  it("echoes a well-formed caller request id and puts it in error bodies", async () => {
    const res = await call("GET", "/nope", { headers: { "X-Request-Id": "req-abc.123" } });
    expect(res.headers.get("X-Request-Id")).toBe("req-abc.123");
    const err = expectError(res, 404, "NOT_FOUND");
    expect(err.details.request_id).toBe("req-abc.123");
  });

  it("replaces a malformed caller request id", async () => {
    const res = await call("GET", "/healthz", { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(res.headers.get("X-Request-Id")).not.toBe("bad id with spaces");
  });

  it("answers unknown routes with the error envelope", async () => {
    const err = expectError(await call("GET", "/entity/nothing-here"), 404, "NOT_FOUND");
    expect(err.message).toContain("/entity/nothing-here");
  });

  it("answers a wrong method with 405, the envelope and Allow", async () => {
    const res = await call("PUT", "/healthz");
    const err = expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(err.details.allowed).toEqual(["GET"]);
    expect(res.headers.get("Allow")).toBe("GET");
  });

  it("challenges every 401 of an authenticated route with both schemes", async () => {
    const id = crypto.randomUUID();
    for (const [method, path] of [
      ["GET", "/access/me/permissions"],
      ["GET", "/schema/schemas"],
      ["POST", "/entity/query"],
      ["GET", `/entity/entities/${id}`],
      ["POST", "/entity/temp-files"],
      ["POST", `/entity/temp-files/${id}/download-url`],
    ]) {
      const res = await call(method, path, { headers: { Authorization: "Basic bm9wZTpub3Bl" } });
      expectError(res, 401, "UNAUTHORIZED");
      expect(res.headers.get("WWW-Authenticate"), `${method} ${path}`).toBe(ROUTE_CHALLENGE);
    }
  });

  it("leaves signed-link refusals without a challenge: no Authorization header would be accepted there", async () => {
    const id = crypto.randomUUID();
    const forged = `tenant=${crypto.randomUUID()}&expires=4102444800&signature=${"A".repeat(43)}`;
    const download = await call("GET", `/entity/temp-files/${id}/download?${forged}`);
    expect(expectError(download, 401, "UNAUTHORIZED").details.code).toBe("LINK_SIGNATURE_INVALID");
    expect(download.headers.get("WWW-Authenticate")).toBeNull();
    const upload = await call("PUT", `/entity/uploads/${id}`, { rawBody: "bytes" });
    expect(expectError(upload, 401, "UNAUTHORIZED").details.code).toBe("LINK_MALFORMED");
    expect(upload.headers.get("WWW-Authenticate")).toBeNull();
  });

  it("answers malformed JSON with 400 BAD_REQUEST", async () => {
    const { auth } = await createTenant();
    const res = await call("POST", "/access/roles", { auth, rawBody: "{not json", headers: { "Content-Type": "application/json" } });
    expectError(res, 400, "BAD_REQUEST");
  });

  it("treats /engine/* as the deprecated alias of /workflows/*", async () => {
    const res = await call("GET", "/engine/nothing");
    const err = expectError(res, 404, "NOT_FOUND");
    expect(err.message).toContain("/workflows/nothing");
    expect(res.headers.get("Deprecation")).toBe("true");
  });

  it("serves an OpenAPI 3.1 document built from the route schemas", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.1.0");
    expect(res.json.info.version).toBe("1.0.0");
    const mint = res.json.paths["/access/api-tokens"].post;
    expect(mint.requestBody.content["application/json"].schema.required).toEqual(["name"]);
    expect(mint["x-permission"]).toBe("access:create");
    expect(res.json.paths["/access/api-tokens/{id}"].delete.parameters[0]).toMatchObject({ name: "id", in: "path" });
    expect(res.json.paths["/healthz"].get.security).toEqual([]);
    expect(res.json.servers).toEqual([{ url: "http://127.0.0.1:8787", description: "This deployment (PUBLIC_URL)" }]);
    expect(res.json.paths["/schema/validate"].post.requestBody.content["application/json"].example).toEqual({
      schema_name: "order",
      data: { sku: "A-1", quantity: 2 },
    });
  });
});

describe("body limit", () => {
  it("refuses a declared body over 1 MiB with 413 PAYLOAD_TOO_LARGE", async () => {
    const { auth } = await createTenant();
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), permissions: [] });
    const res = await call("POST", "/access/roles", { auth, rawBody: big, headers: { "Content-Type": "application/json" } });
    const err = expectError(res, 413, "PAYLOAD_TOO_LARGE");
    expect(err.details.limit).toBe(1024 * 1024);
  });

  it("refuses a streamed body (no Content-Length) once it passes the limit, writing nothing", async () => {
    const { auth } = await createTenant();
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"r1","permissions":[],"pad":"'));
        if (sent++ < 20) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
      },
    });
    const res = await call("POST", "/access/roles", { auth, rawBody: stream, headers: { "Content-Type": "application/json" } });
    expectError(res, 413, "PAYLOAD_TOO_LARGE");
    const roles = await call("GET", "/access/roles", { auth });
    expect(roles.json.data.map((r: any) => r.name)).toEqual(["admin"]);
  });

  /**
   * A body of `chunks` 64 KiB chunks that records how far the Worker read it.
   * workerd cannot read a body after answering, and `wrangler dev` stalls the
   * next request when one is left half read, so every answer must come after
   * the whole body was read (test/e2e/dev-server.test.ts shows the stall).
   */
  function recordedBody(chunks: number, prefix = "") {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    const seen = { pulled: 0, ended: false, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (seen.pulled === 0 && prefix) controller.enqueue(new TextEncoder().encode(prefix));
        if (seen.pulled++ < chunks) return controller.enqueue(chunk);
        seen.ended = true;
        controller.close();
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return { stream, seen };
  }

  it("reads a streamed body refused with 413 to its end before answering", async () => {
    const { auth } = await createTenant();
    const { stream, seen } = recordedBody(48, '{"name":"r1","permissions":[],"pad":"');
    const res = await call("POST", "/access/roles", { auth, rawBody: stream, headers: { "Content-Type": "application/json" } });
    expect(expectError(res, 413, "PAYLOAD_TOO_LARGE").details.limit).toBe(1024 * 1024);
    expect(seen).toEqual({ pulled: 49, ended: true, cancelled: false });
  });

  it("reads a body no handler looked at (401, 404) to its end before answering", async () => {
    const refused = recordedBody(8);
    const unauthenticated = await call("POST", "/access/roles", { rawBody: refused.stream });
    expectError(unauthenticated, 401, "UNAUTHORIZED");
    expect(unauthenticated.headers.get("WWW-Authenticate")).toBe(ROUTE_CHALLENGE);
    expect(refused.seen).toEqual({ pulled: 9, ended: true, cancelled: false });
    const unrouted = recordedBody(8);
    expectError(await call("POST", "/nothing-here", { rawBody: unrouted.stream }), 404, "NOT_FOUND");
    expect(unrouted.seen).toEqual({ pulled: 9, ended: true, cancelled: false });
  });
});
