// The outbound client against the scripted server (test/support/outbound.ts):
// redirects as the Fetch standard follows them, each hop guarded, credentials
// kept within their origin, and the timeout, size and connection failures.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { outboundFetch } from "../../src/lib/outbound/client";
import { OutboundError, type OutboundEnv, type OutboundRequest } from "../../src/lib/outbound/types";
import { outboundOrigin, scenario } from "../support/outbound";

const outboundEnv = env as unknown as OutboundEnv;
const text = (body: Uint8Array) => new TextDecoder().decode(body);

function request(url: string, fields: Partial<OutboundRequest> = {}): OutboundRequest {
  return { url, method: "GET", headers: {}, redirect: "follow", timeoutMs: 10_000, maxResponseBytes: 1_000_000, ...fields };
}

/** The failure an exchange ends with (the test fails if it answers). */
async function failure(req: OutboundRequest, withEnv = outboundEnv): Promise<OutboundError> {
  const e = await outboundFetch(req, withEnv).then(
    (res) => res,
    (err: unknown) => err,
  );
  if (!(e instanceof OutboundError)) throw new Error(`expected an OutboundError, got ${JSON.stringify(e)}`);
  return e;
}

describe("outboundFetch: plain exchanges", () => {
  it("sends method, headers and body, and answers status, lowercase headers, body and URL", async () => {
    const s = await scenario({ "/echo": [{ status: 201, headers: { "X-Thing": "a", "Content-Type": "text/plain" }, body: "hello" }] });
    const res = await outboundFetch(
      request(s.url("/echo?q=1"), { method: "PUT", headers: { "X-Custom": "v", "Content-Type": "application/json" }, body: '{"a":1}' }),
      outboundEnv,
    );
    expect([res.status, res.headers["x-thing"], res.headers["content-type"], text(res.body), res.url]).toEqual([
      201,
      "a",
      "text/plain",
      "hello",
      s.url("/echo?q=1"),
    ]);
    const [seen] = await s.requests();
    expect([seen.method, seen.path, seen.headers["x-custom"], seen.headers["content-type"], seen.body]).toEqual([
      "PUT",
      "/echo?q=1",
      "v",
      "application/json",
      '{"a":1}',
    ]);
  });
});

describe("outboundFetch: following redirects", () => {
  // What the second request looks like after each redirect status, for a GET and for a POST with a body.
  const cases: [number, string, string, string | undefined, string][] = [
    [301, "GET", "GET", "application/json", ""],
    [302, "GET", "GET", "application/json", ""],
    [303, "GET", "GET", "application/json", ""],
    [307, "GET", "GET", "application/json", ""],
    [308, "GET", "GET", "application/json", ""],
    [301, "POST", "GET", undefined, ""],
    [302, "POST", "GET", undefined, ""],
    [303, "POST", "GET", undefined, ""],
    [307, "POST", "POST", "application/json", '{"n":1}'],
    [308, "POST", "POST", "application/json", '{"n":1}'],
  ];
  it.each(cases)("%i after %s continues as %s (content-type %s, body %j)", async (status, method, nextMethod, contentType, nextBody) => {
    const s = await scenario({ "/from": [{ status, headers: { location: "to" } }], "/to": [{ json: { done: true } }] });
    const body = method === "POST" ? '{"n":1}' : undefined;
    const res = await outboundFetch(request(s.url("/from"), { method, body, headers: { "Content-Type": "application/json", "X-Keep": "k" } }), outboundEnv);
    expect([res.status, JSON.parse(text(res.body)), res.url]).toEqual([200, { done: true }, s.url("/to")]);
    const seen = await s.requests();
    expect(seen.map((r) => [r.method, r.path])).toEqual([
      [method, "/from"],
      [nextMethod, "/to"],
    ]);
    expect([seen[1].headers["content-type"], seen[1].body, seen[1].headers["x-keep"]]).toEqual([contentType, nextBody, "k"]);
  });

  it("303 after PUT, DELETE and PATCH continues as GET; 301 and 302 after PUT keep it", async () => {
    for (const [status, method, expected] of [
      [303, "PUT", "GET"],
      [303, "DELETE", "GET"],
      [303, "PATCH", "GET"],
      [301, "PUT", "PUT"],
      [302, "PUT", "PUT"],
      [303, "HEAD", "HEAD"],
    ] as const) {
      const s = await scenario({ "/from": [{ status, headers: { location: "to" } }], "/to": [{ body: "ok" }] });
      await outboundFetch(request(s.url("/from"), { method, body: method === "HEAD" ? undefined : "x" }), outboundEnv);
      const seen = await s.requests();
      expect([status, method, seen[1].method, seen[1].body]).toEqual([status, method, expected, expected === "PUT" ? "x" : ""]);
    }
  });

  it("follows 5 hops and answers the sixth URL", async () => {
    const routes = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`/r${i}`, [{ status: 302, headers: { location: `r${i + 1}` } }]]));
    const s = await scenario({ ...routes, "/r5": [{ body: "end" }] });
    const res = await outboundFetch(request(s.url("/r0")), outboundEnv);
    expect([res.status, text(res.body), res.url]).toEqual([200, "end", s.url("/r5")]);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/r0", "/r1", "/r2", "/r3", "/r4", "/r5"]);
  });

  it("fails a sixth hop with redirects, sending nothing to it", async () => {
    const routes = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`/r${i}`, [{ status: 307, headers: { location: `r${i + 1}` } }]]));
    const s = await scenario({ ...routes, "/r6": [{ body: "never" }] });
    const e = await failure(request(s.url("/r0")));
    expect([e.kind, e.reason]).toEqual(["redirects", "more than 5 redirects"]);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/r0", "/r1", "/r2", "/r3", "/r4", "/r5"]);
  });

  it("fails a redirect without a Location under follow, and answers it under manual", async () => {
    const s = await scenario({ "/from": [{ status: 302, body: "no location" }] });
    const e = await failure(request(s.url("/from")));
    expect([e.kind, e.reason]).toEqual(["redirects", "a 302 redirect without a Location header"]);
    const res = await outboundFetch(request(s.url("/from"), { redirect: "manual" }), outboundEnv);
    expect([res.status, text(res.body)]).toEqual([302, "no location"]);
  });

  it("drops Authorization and Cookie (any case) on a hop to another origin, keeping the other headers", async () => {
    const target = await scenario({ "/to": [{ body: "ok" }] });
    const s = await scenario({ "/from": [{ status: 307, headers: { location: target.url("/to", "other") } }] });
    const res = await outboundFetch(
      request(s.url("/from"), { headers: { AUTHORIZATION: "Bearer secret", cookie: "sid=1", "Proxy-Authorization": "Basic x", "X-Keep": "k" } }),
      outboundEnv,
    );
    expect([res.status, res.url]).toEqual([200, target.url("/to", "other")]);
    const [first] = await s.requests();
    expect([first.headers.authorization, first.headers.cookie, first.headers["x-keep"]]).toEqual(["Bearer secret", "sid=1", "k"]);
    const [second] = await target.requests();
    expect([second.path, second.headers.authorization, second.headers.cookie, second.headers["proxy-authorization"], second.headers["x-keep"]]).toEqual([
      "/to",
      undefined,
      undefined,
      undefined,
      "k",
    ]);
  });

  it("keeps Authorization and Cookie on a same-origin hop", async () => {
    const target = await scenario({ "/to": [{ body: "ok" }] });
    const s = await scenario({ "/from": [{ status: 301, headers: { location: target.url("/to") } }] });
    await outboundFetch(request(s.url("/from"), { headers: { Authorization: "Bearer secret", Cookie: "sid=1" } }), outboundEnv);
    const [seen] = await target.requests();
    expect([seen.path, seen.headers.authorization, seen.headers.cookie]).toEqual(["/to", "Bearer secret", "sid=1"]);
  });

  it("refuses a hop to a private address: the first hop was sent, nothing after it", async () => {
    const port = new URL(outboundOrigin()).port;
    for (const location of [
      "http://10.0.0.1/x",
      `http://[::ffff:127.0.0.1]:${port}/s/x/to`,
      "http://169.254.169.254/latest/meta-data",
      "file:///etc/passwd",
      "http://u:p@example.com/",
    ]) {
      const s = await scenario({ "/from": [{ status: 302, headers: { location } }] });
      const e = await failure(request(s.url("/from")));
      expect([location, e.kind]).toEqual([location, "refused"]);
      expect((await s.requests()).map((r) => r.path)).toEqual(["/from"]);
    }
  });

  it("answers the 3xx itself under manual, with its Location as sent, and fetches nothing further", async () => {
    const s = await scenario({ "/from": [{ status: 301, headers: { location: "http://10.0.0.1/next" }, body: "moved" }], "/to": [{ body: "never" }] });
    const res = await outboundFetch(request(s.url("/from"), { redirect: "manual" }), outboundEnv);
    expect([res.status, res.headers.location, text(res.body), res.url]).toEqual([301, "http://10.0.0.1/next", "moved", s.url("/from")]);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/from"]);
  });
});

describe("outboundFetch: failures and limits", () => {
  it("fails with timeout when the answer comes after timeoutMs", async () => {
    const s = await scenario({ "/slow": [{ delayMs: 3_000, body: "late" }] });
    const e = await failure(request(s.url("/slow"), { timeoutMs: 300 }));
    expect([e.kind, e.reason]).toEqual(["timeout", "no complete answer within 300 ms"]);
  });

  it("counts the redirects in the timeout: two hops under it each, over it together", async () => {
    const s = await scenario({ "/a": [{ delayMs: 250, status: 302, headers: { location: "b" } }], "/b": [{ delayMs: 250, body: "late" }] });
    const e = await failure(request(s.url("/a"), { timeoutMs: 400 }));
    expect(e.kind).toBe("timeout");
  });

  it("fails with too-large past maxResponseBytes, and answers a body of exactly that size", async () => {
    const s = await scenario({ "/big": [{ body: "x".repeat(101) }], "/fits": [{ body: "y".repeat(100) }] });
    const e = await failure(request(s.url("/big"), { maxResponseBytes: 100 }));
    expect([e.kind, e.reason]).toEqual(["too-large", "the response body is larger than 100 bytes"]);
    const res = await outboundFetch(request(s.url("/fits"), { maxResponseBytes: 100 }), outboundEnv);
    expect(res.body.byteLength).toBe(100);
  });

  it("joins repeated response headers with ', ', set-cookie included", async () => {
    // The server writes an array header as one line per value.
    const headers = { "Set-Cookie": ["a=1", "b=2"], "X-Multi": ["one", "two"] } as unknown as Record<string, string>;
    const s = await scenario({ "/multi": [{ headers, body: "" }] });
    const res = await outboundFetch(request(s.url("/multi")), outboundEnv);
    expect([res.headers["set-cookie"], res.headers["x-multi"]]).toEqual(["a=1, b=2", "one, two"]);
  });

  it("answers HEAD with an empty body", async () => {
    const s = await scenario({ "/h": [{ body: "not sent for HEAD", headers: { "X-H": "1" } }] });
    const res = await outboundFetch(request(s.url("/h"), { method: "HEAD" }), outboundEnv);
    expect([res.status, res.headers["x-h"], res.body.byteLength]).toEqual([200, "1", 0]);
  });

  it("fails with connection when nothing listens on the port", async () => {
    const e = await failure(request("http://127.0.0.1:1/", {}), { ...outboundEnv, OUTBOUND_ALLOWLIST: "127.0.0.1:1" });
    expect([e.kind, e.reason]).toEqual(["connection", expect.stringContaining("the connection failed")]);
  });

  it("throws a TypeError, sending nothing, for a body on GET or an invalid header", async () => {
    const s = await scenario({ "/x": [{ body: "ok" }] });
    await expect(outboundFetch(request(s.url("/x"), { body: "b" }), outboundEnv)).rejects.toThrow(new TypeError("a GET request cannot carry a body"));
    await expect(outboundFetch(request(s.url("/x"), { headers: { "bad name": "v" } }), outboundEnv)).rejects.toThrow(TypeError);
    await expect(outboundFetch(request(s.url("/x"), { headers: { "x-h": "a\r\nInjected: 1" } }), outboundEnv)).rejects.toThrow(TypeError);
    expect(await s.requests()).toEqual([]);
  });

  it("fails with unresolved for a name without addresses, sending nothing", async () => {
    const e = await failure(request(`http://nowhere-${crypto.randomUUID()}.test/`));
    expect(e.kind).toBe("unresolved");
  });
});
