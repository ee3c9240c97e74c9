// A scriptable HTTP server on 127.0.0.1 for the outbound tests (the only
// address OUTBOUND_ALLOWLIST lets through in tests), started once by the
// global setup. Tests talk to it from workerd over plain fetch:
//
//   PUT /__scenario/<id>  { "<path>": [response, ...], ... }
//       Requests to /s/<id><path> get the listed responses in order, the last
//       one repeated. A response is { status?, headers?, body?, json?, delayMs? }
//       (`json` is sent as application/json; `body` as written).
//   GET /__requests/<id>  -> [{ method, path, headers, body }] every request
//       that reached /s/<id>/..., in arrival order (path includes the query,
//       header names lowercase, body as text).
//   PUT /__dns            { "<name>": { "A": [...], "AAAA": [...] } } merged
//       into what /dns-query answers.
// Every path answers on two ports (two origins): `origin` and `otherOrigin`.
//   GET /dns-query?name=&type=  a DNS-over-HTTPS JSON answer (application/dns-json,
//       as cloudflare-dns.com answers): Status 0 with the addresses, or 3 (NXDOMAIN).
import { createServer, type IncomingMessage, type Server } from "node:http";

interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  json?: unknown;
  delayMs?: number;
}

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startOutboundServer(): Promise<{ origin: string; port: number; otherOrigin: string; otherPort: number; stop(): Promise<void> }> {
  const scenarios = new Map<string, Record<string, ScriptedResponse[]>>();
  const served = new Map<string, number>();
  const seen = new Map<string, Seen[]>();
  const dns = new Map<string, { A?: string[]; AAAA?: string[] }>();

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const send = (status: number, payload: unknown, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    const admin = url.pathname.match(/^\/__(scenario|requests)\/([^/]+)$/);
    if (admin && admin[1] === "scenario" && req.method === "PUT") {
      scenarios.set(admin[2], JSON.parse(body));
      return send(200, { ok: true });
    }
    if (admin && admin[1] === "requests") return send(200, seen.get(admin[2]) ?? []);
    if (url.pathname === "/__dns" && req.method === "PUT") {
      for (const [name, answers] of Object.entries(JSON.parse(body) as Record<string, { A?: string[]; AAAA?: string[] }>))
        dns.set(name.toLowerCase().replace(/\.$/, ""), answers);
      return send(200, { ok: true });
    }
    if (url.pathname === "/dns-query") {
      const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
      const type = url.searchParams.get("type") === "AAAA" ? "AAAA" : "A";
      const entry = dns.get(name);
      if (!entry) return send(200, { Status: 3, Answer: [] }, "application/dns-json");
      const answer = (entry[type] ?? []).map((data) => ({ name: `${name}.`, type: type === "A" ? 1 : 28, TTL: 60, data }));
      return send(200, { Status: 0, Answer: answer }, "application/dns-json");
    }
    const scripted = url.pathname.match(/^\/s\/([^/]+)(\/.*)?$/);
    if (!scripted) return send(404, { error: "unknown path" });
    const [, id, rest = "/"] = scripted;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : (v ?? "");
    seen.set(id, [...(seen.get(id) ?? []), { method: req.method ?? "GET", path: rest + url.search, headers, body }]);
    const responses = scenarios.get(id)?.[rest];
    if (!responses?.length) return send(404, { error: `no scripted response for ${rest}` });
    const key = `${id} ${rest}`;
    const n = served.get(key) ?? 0;
    served.set(key, n + 1);
    const r = responses[Math.min(n, responses.length - 1)];
    if (r.delayMs) await new Promise((done) => setTimeout(done, r.delayMs));
    if (res.destroyed) return;
    const out = r.json !== undefined ? JSON.stringify(r.json) : (r.body ?? "");
    res.writeHead(r.status ?? 200, { ...(r.json !== undefined ? { "content-type": "application/json" } : {}), ...r.headers });
    res.end(req.method === "HEAD" ? undefined : out);
  });
  // The same handler on a second port: a second origin, for what crosses origins (redirects).
  const second: Server = createServer((req, res) => server.emit("request", req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => second.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const otherPort = (second.address() as { port: number }).port;
  const close = (s: Server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    otherOrigin: `http://127.0.0.1:${otherPort}`,
    otherPort,
    stop: async () => {
      await close(second);
      await close(server);
    },
  };
}
