// What `npm run dev` listens with, in front of `wrangler dev`: it sets
// CF-Connecting-IP to the address of the client's socket, as Cloudflare's edge
// does in production. wrangler dev fills that header in only when the client
// sent none, so without this any local client could name its own per-IP
// rate-limit bucket.
import http from "node:http";

/**
 * @param {{ host: string, port: number, target: { host: string, port: number } }} opts
 * @returns {Promise<{ close: () => Promise<void> }>}
 */
export function startFrontProxy({ host, port, target }) {
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        agent,
        host: target.host,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "cf-connecting-ip": req.socket.remoteAddress ?? "" },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", (e) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { "Content-Type": "text/plain; charset=utf-8" });
      res.end(`wrangler dev did not answer: ${e.message}\n`);
    });
    // A client that goes away mid-request takes its request to the Worker with it.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  // As wrangler dev itself: no limit on how long a request (a large import or export) may take.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () =>
      resolve({
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
            agent.destroy();
          }),
      }),
    );
  });
}
