// A TCP proxy that puts distance between the Worker and its database: every
// chunk is held `delayMs` in each direction (so a round trip costs twice
// that), and round trips are counted as the database sees them: a client
// write that follows an answer from the server (or opens the connection)
// starts one. Statements the client pipelines into one write, or writes back
// to back before the server answers, share a trip; a statement that waits
// for the answer to the one before pays another.
//
// The bench puts it in front of the WebSocket bridge (NEON_WS_PROXY), where
// the Neon driver's every message to Postgres passes, connection set-up
// included (the WebSocket upgrade and the startup handshake are trips too).
//
// LATENCY_PROXY_LOG=1 prints each trip to stderr as it starts: the
// connection's number and what the client sent (an HTTP request's SQL, a
// WebSocket's Postgres messages), to see where a request's trips go.
import net from "node:net";

const LOG = process.env.LATENCY_PROXY_LOG === "1";

/** Client-to-server WebSocket frames in `chunk`, unmasked (best effort: a frame split across chunks is cut short). */
function wsPayloads(chunk) {
  const out = [];
  for (let at = 0; at + 2 <= chunk.length; ) {
    let length = chunk[at + 1] & 0x7f;
    let head = 2;
    if (length === 126) [length, head] = [chunk.readUInt16BE(at + 2), 4];
    else if (length === 127) [length, head] = [Number(chunk.readBigUInt64BE(at + 2)), 10];
    const masked = (chunk[at + 1] & 0x80) !== 0;
    const mask = masked ? chunk.subarray(at + head, at + head + 4) : null;
    const start = at + head + (masked ? 4 : 0);
    const payload = Buffer.from(chunk.subarray(start, Math.min(start + length, chunk.length)));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
    if ((chunk[at] & 0x0f) === 0x8) out.push(Buffer.from("<close>"));
    else out.push(payload);
    at = start + length;
  }
  return out;
}

/** Postgres frontend messages in `payload`, as `type:text` (a Parse's or Query's SQL, cut short). */
function pgMessages(payload) {
  const out = [];
  for (let at = 0; at + 5 <= payload.length; ) {
    const type = String.fromCharCode(payload[at]);
    const length = payload.readInt32BE(at + 1);
    if (type === "P") out.push(`P:${payload.toString("utf8", at + 6, Math.min(at + 1 + length, at + 126)).split("\0")[0]}`);
    else if (type === "Q") out.push(`Q:${payload.toString("utf8", at + 5, Math.min(at + 1 + length, at + 125)).split("\0")[0]}`);
    else if (!"BEDH".includes(type)) out.push(type);
    at += 1 + length;
  }
  return out.length ? out.join(" | ") : `${payload.length} bytes (startup or handshake)`;
}

/** One line saying what a trip's first chunk carries. */
function describe(chunk, state) {
  const text = chunk.toString("latin1", 0, Math.min(chunk.length, 16));
  if (/^(GET|POST) /.test(text)) {
    const head = chunk.toString("utf8");
    if (/^GET .*Upgrade: websocket/is.test(head)) {
      state.ws = true;
      return "WebSocket upgrade";
    }
    const queries = [...head.matchAll(/"query":"((?:[^"\\]|\\.){0,110})/g)].map((m) => m[1].replace(/\s+/g, " "));
    return `HTTP ${queries.length} statement(s): ${queries.join(" | ")}`;
  }
  if (state.ws) return `WebSocket: ${wsPayloads(chunk).map(pgMessages).join(" || ")}`;
  return `${chunk.length} bytes`;
}

/**
 * @param {{ delayMs?: number }} [options]
 * @returns {Promise<{ port: number, setUpstream(host: string, port: number): void, setDelay(ms: number): void,
 *   counters(): { trips: number, httpTrips: number, connections: number, lastActivity: number }, stop(): Promise<void> }>}
 */
export async function startLatencyProxy({ delayMs = 0 } = {}) {
  let upstream;
  let delay = delayMs;
  // httpTrips: the trips that are requests to the driver's HTTP endpoint (POST /sql), not WebSocket traffic.
  const counts = { trips: 0, httpTrips: 0, connections: 0, lastActivity: 0 };
  const sockets = new Set();

  // Node fires timers of one duration in the order they were set, so each
  // direction keeps its byte order; a delay of 0 forwards at once.
  const forward = (to, chunk) => {
    counts.lastActivity = performance.now();
    if (delay === 0) to.write(chunk);
    else setTimeout(() => to.destroyed || to.write(chunk), delay);
  };
  const close = (socket) => (delay === 0 ? socket.end() : setTimeout(() => socket.end(), delay));

  const server = net.createServer((client) => {
    if (!upstream) {
      client.destroy();
      return;
    }
    counts.connections++;
    const server = net.connect(upstream.port, upstream.host);
    for (const s of [client, server]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    let serverSpoke = true;
    const connection = counts.connections;
    const state = { ws: false };
    client.on("data", (chunk) => {
      if (serverSpoke) {
        counts.trips++;
        if (chunk.toString("latin1", 0, 10) === "POST /sql ") counts.httpTrips++;
        if (LOG) process.stderr.write(`[proxy] trip ${counts.trips} on connection ${connection}: ${describe(chunk, state)}\n`);
      }
      serverSpoke = false;
      forward(server, chunk);
    });
    server.on("data", (chunk) => {
      serverSpoke = true;
      forward(client, chunk);
    });
    client.on("end", () => close(server));
    server.on("end", () => close(client));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    port: server.address().port,
    setUpstream(host, port) {
      upstream = { host, port };
    },
    setDelay(ms) {
      delay = ms;
    },
    counters: () => ({ ...counts }),
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
