// A self-contained benchmark environment: a fresh embedded Postgres (or
// BENCH_DATABASE_URL), the Worker in workerd (runtime.mjs), one tenant and
// its PAT (`apiAs` calls as another tenant), and a Node-side pool for the
// raw-SQL baselines on the same database. `vars` are merged over the
// Worker's own (a suite that serves something the Worker calls allowlists it).
//
// Neither store flushes to this machine's disk: Postgres runs without fsync
// (postgres.mjs), and the Durable Objects keep their SQLite files in a
// memory-backed folder (/dev/shm, where there is one). On disk, creating a
// run's object and committing its storage stall workerd's one thread for
// milliseconds per run (a CPU profile of the event -> first action figure:
// 440 ms of the isolate's 2.8 s of work in creating its 50 objects on disk,
// 143 ms on tmpfs), slowing every request in flight, which production objects (on
// other machines, their storage not this disk) never do. Miniflare's own
// in-memory object storage measured slower still. BENCH_OBJECTS=disk keeps
// them on disk, as before.
import { randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { startStack } from "./stack.mjs";
import { createTenant, openPool } from "./db.mjs";
import { freePort } from "./postgres.mjs";
import { startWorkerRuntime } from "./runtime.mjs";
import { openHeapProbe } from "./heap.mjs";
import { root } from "./paths.mjs";

export async function startBenchEnv({ vars = {} } = {}) {
  const dir = resolve(root, `.data/bench-${process.pid}`);
  const objectsDir =
    process.env.BENCH_OBJECTS !== "disk" && existsSync("/dev/shm") ? `/dev/shm/entity-platform-bench-${process.pid}` : resolve(dir, "state/do");
  const stack = await startStack({ dataDir: resolve(dir, "pg"), persistent: false, databaseUrl: process.env.BENCH_DATABASE_URL });
  const pool = openPool(stack.databaseUrl, 4);
  const tenant = await createTenant(pool, "bench");
  const port = await freePort();
  const inspectorPort = await freePort();
  const worker = await startWorkerRuntime({
    port,
    inspectorPort,
    dataDir: dir,
    objectsDir,
    vars: {
      DATABASE_URL: stack.databaseUrl,
      NEON_WS_PROXY: stack.wsProxy,
      JWT_SECRET: randomBytes(32).toString("hex"),
      MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_REQUESTS: "false",
      RATE_LIMIT_IP: "100000000",
      RATE_LIMIT_IDENTITY: "100000000",
      ...vars,
    },
  });
  const base = worker.url;
  const heap = await openHeapProbe(inspectorPort);
  const authOf = (t) => `Basic ${Buffer.from(`${t.client_id}:${t.client_secret}`).toString("base64")}`;
  const auth = authOf(tenant);

  /** Requests as `t` (a tenant from createTenant): the bench tenant's for `api`, another's for cross-tenant figures. */
  function apiAs(t) {
    const authorization = authOf(t);
    return async (method, path, body) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: authorization, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      const json = text ? JSON.parse(text) : undefined;
      if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status} ${text.slice(0, 500)}`);
      return json;
    };
  }

  return {
    base,
    auth,
    /** The WebSocket bridge the Worker reaches Postgres through (a suite may put a proxy in front of it). */
    wsProxy: stack.wsProxy,
    api: apiAs(tenant),
    apiAs,
    pool,
    tenant,
    heap,
    async stop() {
      heap.close();
      await worker.stop();
      await pool.end();
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
      rmSync(objectsDir, { recursive: true, force: true });
    },
  };
}

/** One figure line: `ratio` is our cost over raw SQL's cost for the same work (lower is better). */
export function figure(name, value, unit, raw = null, ratio = null, extra = {}) {
  return { figure: name, value, unit, raw, ratio, ...extra };
}

export const round = (n, digits = 2) => (n === null || n === undefined || Number.isNaN(n) ? null : Math.round(n * 10 ** digits) / 10 ** digits);
