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
//
// It also answers Neon's SQL-over-HTTP protocol (POST /sql), the driver's
// HTTP mode (`neon()`, neonConfig.fetchEndpoint = `http://${bridge}/sql`):
// one statement, or a batch run as one transaction, on a warm backend of the
// same pool, answered in Neon's JSON (raw text values and the fields' type
// ids) so the driver's own type parsing runs as it does against Neon.
import { WebSocketServer } from "ws";
import http from "node:http";
import net from "node:net";
import { createHash } from "node:crypto";

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

/** Only loopback targets: this bridge is a local development aid, never a general proxy. */
const isLocal = (host) => ["127.0.0.1", "localhost"].includes(host);

/** A typed protocol message: type byte, int32 length, body. */
function message(type, ...parts) {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const cstring = (text) => Buffer.from(`${text}\0`);
const int16 = (n) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/**
 * One statement in the extended protocol, as Neon's proxy sends it: unnamed,
 * parameters as text (null as SQL NULL), every column answered as text.
 * `describe` asks for its columns.
 */
function extended(text, params = [], describe = true) {
  const values = params.map((v) =>
    v === null || v === undefined
      ? int32(-1)
      : ((b) => Buffer.concat([int32(b.length), b]))(Buffer.from(typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v))),
  );
  return [
    message("P", cstring(""), cstring(text), int16(0)),
    message("B", cstring(""), cstring(""), int16(0), int16(values.length), ...values, int16(0)),
    ...(describe ? [message("D", Buffer.from("P"), cstring(""))] : []),
    message("E", cstring(""), int32(0)),
  ];
}

/** ErrorResponse fields, named as the driver reads them from Neon's 400 answer. */
const ERROR_FIELDS = {
  S: "severity",
  C: "code",
  M: "message",
  D: "detail",
  H: "hint",
  P: "position",
  p: "internalPosition",
  q: "internalQuery",
  W: "where",
  s: "schema",
  t: "table",
  c: "column",
  d: "dataType",
  n: "constraint",
  F: "file",
  L: "line",
  R: "routine",
};

function errorOf(msg) {
  const error = {};
  for (let at = 5; at < msg.length && msg[at] !== 0; ) {
    const end = msg.indexOf(0, at + 1);
    const name = ERROR_FIELDS[String.fromCharCode(msg[at])];
    if (name) error[name] = msg.toString("utf8", at + 1, end);
    at = end + 1;
  }
  return error;
}

function fieldsOf(msg) {
  const fields = [];
  let at = 7;
  for (let i = msg.readInt16BE(5); i > 0; i--) {
    const end = msg.indexOf(0, at);
    const name = msg.toString("utf8", at, end);
    at = end + 1;
    fields.push({
      name,
      tableID: msg.readInt32BE(at),
      columnID: msg.readInt16BE(at + 4),
      dataTypeID: msg.readInt32BE(at + 6),
      dataTypeSize: msg.readInt16BE(at + 10),
      dataTypeModifier: msg.readInt32BE(at + 12),
      format: "text",
    });
    at += 18;
  }
  return fields;
}

function rowOf(msg) {
  const row = [];
  let at = 7;
  for (let i = msg.readInt16BE(5); i > 0; i--) {
    const length = msg.readInt32BE(at);
    at += 4;
    if (length < 0) row.push(null);
    else {
      row.push(msg.toString("utf8", at, at + length));
      at += length;
    }
  }
  return row;
}

const ISOLATION = { Serializable: "SERIALIZABLE", RepeatableRead: "REPEATABLE READ", ReadCommitted: "READ COMMITTED", ReadUncommitted: "READ UNCOMMITTED" };

class HttpError extends Error {
  constructor(status, body) {
    super(typeof body === "string" ? body : body.message);
    this.status = status;
    this.body = body;
  }
}

/** @param {{ port?: number, host?: string }} [opts] */
export function startWsBridge({ port = 0, host = "127.0.0.1" } = {}) {
  const idle = [];
  const all = new Set();

  function release(backend) {
    backend.client = null;
    backend.onGone = null;
    if (backend.tcp.destroyed || !backend.ready || !backend.trusted || backend.pending !== 0 || backend.status !== "I" || idle.length >= MAX_IDLE)
      return backend.tcp.destroy();
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

  /**
   * A ready backend for an HTTP request: a warm one whose startup was the
   * same, or a new one. Password authentication (cleartext, md5) is answered
   * here; such backends are closed after use, as the WebSocket side does.
   */
  function acquire(target) {
    const startup = (() => {
      const params = Buffer.concat([
        cstring("user"),
        cstring(target.user),
        cstring("database"),
        cstring(target.database),
        cstring("client_encoding"),
        cstring("UTF8"),
        cstring("application_name"),
        cstring("ws-bridge-http"),
        Buffer.from([0]),
      ]);
      return Buffer.concat([int32(8 + params.length), int32(196608), params]);
    })();
    const key = startup.toString("hex");
    const reuse = idle.findIndex((b) => b.startupKey === key);
    if (reuse >= 0) return Promise.resolve(idle.splice(reuse, 1)[0]);
    return new Promise((resolve, reject) => {
      const backend = open(target.host, target.port, startup, key);
      backend.onGone = () => reject(new HttpError(502, "the local postgres closed the connection"));
      backend.tcp.on("error", (e) => reject(new HttpError(502, `cannot reach the local postgres: ${e.message}`)));
      backend.client = (msg) => {
        const type = String.fromCharCode(msg[0]);
        if (type === "R") {
          const code = msg.readInt32BE(5);
          if (code === 3) backend.tcp.write(message("p", cstring(target.password)));
          else if (code === 5) {
            const md5 = (x) => createHash("md5").update(x).digest("hex");
            backend.tcp.write(message("p", cstring(`md5${md5(Buffer.concat([Buffer.from(md5(target.password + target.user)), msg.subarray(9, 13)]))}`)));
          } else if (code !== 0) {
            backend.tcp.destroy();
            reject(new HttpError(400, { message: `the bridge's HTTP side answers only trust, password and md5 authentication (asked for method ${code})` }));
          }
        } else if (type === "E") {
          backend.tcp.destroy();
          reject(new HttpError(400, errorOf(msg)));
        } else if (type === "Z") {
          backend.client = null;
          backend.onGone = null;
          resolve(backend);
        }
      };
    });
  }

  /**
   * Sends `messages` closed by one Sync and collects the answers of its
   * statements up to ReadyForQuery: per statement its fields, rows and
   * command tag; the first error, after which Postgres skips to the Sync.
   */
  function exchange(backend, messages) {
    return new Promise((resolve, reject) => {
      const results = [];
      let current = { fields: [], rows: [] };
      let error = null;
      backend.onGone = () => reject(new HttpError(502, "the local postgres closed the connection"));
      backend.client = (msg) => {
        switch (String.fromCharCode(msg[0])) {
          case "T":
            current.fields = fieldsOf(msg);
            break;
          case "D":
            current.rows.push(rowOf(msg));
            break;
          case "C":
          case "I": {
            const tag = msg[0] === 0x43 ? msg.toString("utf8", 5, msg.length - 1) : "";
            const words = tag.split(" ");
            const count = Number(words[words.length - 1]);
            results.push({ ...current, command: words[0], rowCount: words.length > 1 && Number.isInteger(count) ? count : null });
            current = { fields: [], rows: [] };
            break;
          }
          case "E":
            error ??= errorOf(msg);
            break;
          case "Z":
            backend.client = null;
            backend.onGone = null;
            resolve({ results, error });
        }
      };
      backend.pending++;
      backend.tcp.write(Buffer.concat([...messages, message("S")]));
    });
  }

  /** POST /sql: Neon's single statement ({query, params}) or batch ({queries}, one transaction). */
  async function answerSql(req, body) {
    let target;
    try {
      const url = new URL(req.headers["neon-connection-string"] ?? "");
      target = {
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username),
      };
    } catch {
      throw new HttpError(400, { message: "Neon-Connection-String must be a postgres:// URL" });
    }
    if (!isLocal(target.host) || !target.port) throw new HttpError(403, { message: "bridge only reaches local postgres" });
    if (req.headers["neon-raw-text-output"] !== "true")
      throw new HttpError(400, { message: "the bridge answers raw text output only (Neon-Raw-Text-Output: true), as the driver asks" });
    const arrayMode = req.headers["neon-array-mode"] === "true";
    const batch = Array.isArray(body.queries);
    const queries = batch ? body.queries : [body];
    if (!queries.every((q) => q && typeof q.query === "string" && (q.params === undefined || Array.isArray(q.params))))
      throw new HttpError(400, { message: "expected {query, params} or {queries: [{query, params}]}" });

    const statements = queries.flatMap((q) => extended(q.query, q.params ?? []));
    if (batch) {
      const isolation = req.headers["neon-batch-isolation-level"];
      if (isolation !== undefined && !ISOLATION[isolation]) throw new HttpError(400, { message: `unknown Neon-Batch-Isolation-Level ${isolation}` });
      const readOnly = req.headers["neon-batch-read-only"] === "true";
      const deferrable = req.headers["neon-batch-deferrable"] === "true";
      const begin = `BEGIN${isolation ? ` ISOLATION LEVEL ${ISOLATION[isolation]}` : ""}${readOnly ? " READ ONLY" : ""}${deferrable ? " DEFERRABLE" : ""}`;
      statements.unshift(...extended(begin, [], false));
      statements.push(...extended("COMMIT", [], false));
    }

    const backend = await acquire(target);
    let answer;
    try {
      answer = await exchange(backend, statements);
      // A failed batch leaves its transaction open and aborted: end it before the backend goes back.
      if (backend.status !== "I") await exchange(backend, [message("Q", cstring("ROLLBACK"))]);
    } finally {
      release(backend);
    }
    if (answer.error) throw new HttpError(400, answer.error);
    const present = ({ fields, rows, command, rowCount }) => ({
      fields,
      command,
      rowCount,
      rows: arrayMode ? rows : rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i]]))),
      rowAsArray: arrayMode,
    });
    const results = (batch ? answer.results.slice(1, -1) : answer.results).map(present);
    return batch ? { results } : results[0];
  }

  function onRequest(req, res) {
    const reply = (status, body) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/sql")
      return reply(404, { message: "the bridge answers POST /sql and WebSocket upgrades only" });
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      try {
        let body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          throw new HttpError(400, { message: "the body is not JSON" });
        }
        reply(200, await answerSql(req, body));
      } catch (e) {
        if (e instanceof HttpError) reply(e.status, typeof e.body === "string" ? { message: e.body } : e.body);
        else reply(500, { message: String(e?.message ?? e) });
      }
    });
  }

  return new Promise((resolve) => {
    const server = http.createServer(onRequest);
    server.keepAliveTimeout = 60_000;
    const wss = new WebSocketServer({ server });
    wss.on("connection", (ws, req) => {
      const address = new URL(req.url ?? "/", "http://x").searchParams.get("address") ?? "";
      const [pgHost, pgPort] = address.split(":");
      if (!isLocal(pgHost) || !Number(pgPort)) {
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
    server.listen(port, host, () => {
      const addr = server.address();
      resolve({
        port: addr.port,
        proxy: `${host}:${addr.port}`,
        stop: () =>
          new Promise((r) => {
            for (const c of wss.clients) c.terminate();
            for (const b of all) b.tcp.destroy();
            wss.close();
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}
