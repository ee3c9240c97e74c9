// Samples the Worker isolate's JS heap through the V8 inspector that workerd
// exposes (runtime.mjs's inspectorPort) (Runtime.getHeapUsage), so a
// benchmark can report the peak heap while a request runs, both as found and
// live (right after a forced full collection). Durable Objects of the Worker
// run in the same isolate, so a run's actions are sampled too. The
// `*Buffers` peaks add the ArrayBuffer backing stores, which live outside
// the JS heap but count toward the isolate's memory limit.
import WebSocket from "ws";

export async function openHeapProbe(inspectorPort) {
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  // workerd lists its internal services too; the Worker is `core:user:<name>`.
  const target = targets.find((t) => t.id?.startsWith("core:user:")) ?? targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
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
  const usage = async () => {
    const result = (await send("Runtime.getHeapUsage")).result;
    return { used: result?.usedSize ?? NaN, buffers: result?.backingStorageSize ?? 0 };
  };
  const usedBytes = async () => (await usage()).used;

  // HeapProfiler.collectGarbage is answered only once the isolate runs its
  // task queue, which a request in flight does; idle, it waits for one.
  const collect = () => send("HeapProfiler.collectGarbage");

  let running = null;
  return {
    usedBytes,
    /**
     * Samples the heap until stop(): `used` as found (garbage included) and
     * `live` right after a full collection, every `intervalMs`; the same with
     * the ArrayBuffer backing stores added as `usedWithBuffers` and `liveWithBuffers`.
     */
    start(intervalMs = 250) {
      const peaks = { used: 0, live: 0, usedWithBuffers: 0, liveWithBuffers: 0 };
      let stopped = false;
      (async () => {
        while (!stopped) {
          const found = await usage();
          peaks.used = Math.max(peaks.used, found.used);
          peaks.usedWithBuffers = Math.max(peaks.usedWithBuffers, found.used + found.buffers);
          await collect();
          const live = await usage();
          peaks.live = Math.max(peaks.live, live.used);
          peaks.liveWithBuffers = Math.max(peaks.liveWithBuffers, live.used + live.buffers);
          await new Promise((r) => setTimeout(r, intervalMs));
        }
      })();
      running = { peaks, stop: () => (stopped = true) };
    },
    /**
     * Ends sampling and returns the peaks in bytes. A collection still
     * pending is left to finish with the next request; it records nothing.
     */
    stop() {
      running.stop();
      return running.peaks;
    },
    /** Starts the V8 CPU profiler (samples every 100 µs) in the Worker's isolate, its Durable Objects included. */
    async startCpuProfile() {
      await send("Profiler.enable");
      await send("Profiler.setSamplingInterval", { interval: 100 });
      await send("Profiler.start");
    },
    /** Stops it; answers the profile (a .cpuprofile document, as Chrome's DevTools open). */
    async stopCpuProfile() {
      return (await send("Profiler.stop")).result.profile;
    },
    close: () => ws.close(),
  };
}
