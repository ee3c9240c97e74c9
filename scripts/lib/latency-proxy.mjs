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
import net from "node:net";

/**
 * @param {{ delayMs?: number }} [options]
 * @returns {Promise<{ port: number, setUpstream(host: string, port: number): void, setDelay(ms: number): void,
 *   counters(): { trips: number, connections: number, lastActivity: number }, stop(): Promise<void> }>}
 */
export async function startLatencyProxy({ delayMs = 0 } = {}) {
  let upstream;
  let delay = delayMs;
  const counts = { trips: 0, connections: 0, lastActivity: 0 };
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
    client.on("data", (chunk) => {
      if (serverSpoke) counts.trips++;
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
