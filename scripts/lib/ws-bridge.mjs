// A WebSocket-to-TCP bridge so the Neon serverless driver (which speaks the
// Postgres wire protocol over WebSockets) can reach a plain Postgres locally.
// The driver is pointed at it with neonConfig.wsProxy = `${bridge}/v1?address=host:port`.
import { WebSocketServer } from "ws";
import net from "node:net";

/** @param {{ port?: number, host?: string }} [opts] */
export function startWsBridge({ port = 0, host = "127.0.0.1" } = {}) {
  return new Promise((resolve) => {
    const wss = new WebSocketServer({ port, host });
    wss.on("connection", (ws, req) => {
      const address = new URL(req.url ?? "/", "http://x").searchParams.get("address") ?? "";
      const [pgHost, pgPort] = address.split(":");
      // Only loopback targets: this bridge is a local development aid, never a general proxy.
      if (!["127.0.0.1", "localhost"].includes(pgHost) || !Number(pgPort)) {
        ws.close(1008, "bridge only reaches local postgres");
        return;
      }
      const tcp = net.connect(Number(pgPort), pgHost);
      tcp.setNoDelay(true);
      tcp.on("data", (chunk) => ws.readyState === ws.OPEN && ws.send(chunk));
      tcp.on("close", () => ws.close());
      tcp.on("error", () => ws.close());
      ws.on("message", (data) => tcp.write(data));
      ws.on("close", () => tcp.end());
      ws.on("error", () => tcp.destroy());
    });
    wss.on("listening", () => {
      const addr = wss.address();
      resolve({
        port: addr.port,
        proxy: `${host}:${addr.port}`,
        stop: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(() => r()); }),
      });
    });
  });
}
