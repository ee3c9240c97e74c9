// Samples the Worker isolate's JS heap through the V8 inspector that
// `wrangler dev --inspector-port` exposes (Runtime.getHeapUsage), so a
// benchmark can report the peak heap while a request runs.
import WebSocket from "ws";

export async function openHeapProbe(inspectorPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const usedBytes = async () => (await send("Runtime.getHeapUsage")).result?.usedSize ?? NaN;

  let peak = 0;
  let timer = null;
  return {
    usedBytes,
    start(intervalMs = 20) {
      peak = 0;
      timer = setInterval(async () => {
        const used = await usedBytes();
        if (used > peak) peak = used;
      }, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      const used = await usedBytes();
      if (used > peak) peak = used;
      return peak;
    },
    close: () => ws.close(),
  };
}
