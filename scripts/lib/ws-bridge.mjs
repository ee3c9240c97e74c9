// A WebSocket-to-TCP bridge so the Neon serverless driver (which speaks the
// Postgres wire protocol over WebSockets) can reach a plain Postgres locally.
// The driver is pointed at it with neonConfig.wsProxy = `${bridge}/v1?address=host:port`.
//
// The Worker opens a connection per request. Like Neon's pooler in
// production, the bridge keeps Postgres backends warm between them: when a
// client leaves with its session idle, the backend is reset (DISCARD ALL) and
// handed to the next client whose startup message is the same, replaying the
// server's handshake to it. Only backends the server let in without a
// password (trust) are reused, so no client skips an authentication the
// server would have asked of it.
import { WebSocketServer } from "ws";
import net from "node:net";

const MAX_IDLE = 32;
const SSL_REQUEST = 80877103;

/** Splits a stream of typed protocol messages (type byte, int32 length) into whole messages. */
class Framer {
  constructor(onMessage) {
    this.buffer = Buffer.alloc(0);
    this.onMessage = onMessage;
  }
  push(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= 5) {
      const length = this.buffer.readInt32BE(1) + 1;
      if (this.buffer.length < length) return;
      this.onMessage(this.buffer.subarray(0, length));
      this.buffer = this.buffer.subarray(length);
    }
  }
}

/** A backend: its socket, the handshake it answered with, and the state of the session on it. */
class Backend {
  constructor(tcp, startupKey) {
    this.tcp = tcp;
    this.startupKey = startupKey;
    this.handshake = [];
    this.ready = false;
    this.trusted = false;
    this.pending = 0;
    this.status = "I";
    this.client = null;
    /** Called when the socket goes away while a client holds the backend. */
    this.onGone = null;
    this.framer = new Framer((msg) => this.fromServer(msg));
    tcp.setNoDelay(true);
    tcp.on("data", (chunk) => this.framer.push(chunk));
  }
  fromServer(msg) {
    const type = String.fromCharCode(msg[0]);
    if (!this.ready) {
      if (!this.handshake.length) this.trusted = type === "R" && msg.readInt32BE(5) === 0;
      this.handshake.push(msg);
      if (type === "Z") this.ready = true;
    } else if (type === "Z") {
      this.pending--;
      this.status = String.fromCharCode(msg[5]);
    }
    this.client?.(msg);
  }
}

/** @param {{ port?: number, host?: string }} [opts] */
export function startWsBridge({ port = 0, host = "127.0.0.1" } = {}) {
  const idle = [];
  const all = new Set();

  function release(backend) {
    backend.client = null;
    backend.onGone = null;
    if (backend.tcp.destroyed || !backend.ready || !backend.trusted || backend.pending !== 0 || backend.status !== "I" || idle.length >= MAX_IDLE) return backend.tcp.destroy();
    // DISCARD ALL resets everything a session can carry; the backend rejoins the pool when it answers.
    backend.pending++;
    backend.client = (msg) => {
      if (msg[0] !== 0x5a) return;
      backend.client = null;
      if (backend.status === "I") idle.push(backend);
      else backend.tcp.destroy();
    };
    const text = Buffer.from("DISCARD ALL\0");
    const query = Buffer.alloc(5 + text.length);
    query.write("Q", 0);
    query.writeInt32BE(4 + text.length, 1);
    text.copy(query, 5);
    backend.tcp.write(query);
  }

  function open(pgHost, pgPort, startup, key) {
    const backend = new Backend(net.connect(Number(pgPort), pgHost), key);
    all.add(backend);
    const forget = () => {
      all.delete(backend);
      const at = idle.indexOf(backend);
      if (at >= 0) idle.splice(at, 1);
    };
    backend.tcp.on("close", () => {
      forget();
      backend.onGone?.();
    });
    backend.tcp.on("error", forget);
    backend.tcp.write(startup);
    return backend;
  }

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
      let backend = null;
      let early = Buffer.alloc(0);
      const toClient = (msg) => ws.readyState === ws.OPEN && ws.send(msg);
      const clientFramer = new Framer((msg) => {
        const type = String.fromCharCode(msg[0]);
        // The client's goodbye ends its use of the backend, not the backend:
        // released at once, not when the socket's closing handshake ends, which
        // a client in a long-lived context (a Durable Object) may never finish.
        if (type === "X") {
          const done = backend;
          backend = null;
          release(done);
          return ws.close();
        }
        if (type === "S" || type === "Q") backend.pending++;
        backend.tcp.write(msg);
      });
      const attach = (b, replay) => {
        backend = b;
        backend.client = toClient;
        backend.onGone = () => ws.close();
        if (replay) for (const msg of backend.handshake) toClient(msg);
      };
      ws.on("message", (data) => {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data);
        if (backend) return backend.ready ? clientFramer.push(chunk) : backend.tcp.write(chunk);
        early = Buffer.concat([early, chunk]);
        if (early.length < 8 || early.length < early.readInt32BE(0)) return;
        const length = early.readInt32BE(0);
        const startup = early.subarray(0, length);
        const rest = early.subarray(length);
        if (early.readInt32BE(4) === SSL_REQUEST) {
          ws.close(1008, "bridge speaks plain TCP to local postgres");
          return;
        }
        const key = startup.toString("hex");
        const reuse = idle.findIndex((b) => b.startupKey === key);
        if (reuse >= 0) {
          attach(idle.splice(reuse, 1)[0], true);
          if (rest.length) clientFramer.push(rest);
          return;
        }
        // Until the handshake ends, bytes pass through as they are (authentication exchanges).
        attach(open(pgHost, pgPort, startup, key), false);
        if (rest.length) backend.tcp.write(rest);
      });
      ws.on("close", () => {
        if (backend) release(backend);
      });
      ws.on("error", () => backend?.tcp.destroy());
    });
    wss.on("listening", () => {
      const addr = wss.address();
      resolve({
        port: addr.port,
        proxy: `${host}:${addr.port}`,
        stop: () =>
          new Promise((r) => {
            for (const c of wss.clients) c.terminate();
            for (const b of all) b.tcp.destroy();
            wss.close(() => r());
          }),
      });
    });
  });
}
