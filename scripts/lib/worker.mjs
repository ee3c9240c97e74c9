// Runs the Worker under `wrangler dev` (workerd, every binding local) as a
// child process, for `npm run dev` (the benchmarks use runtime.mjs).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { root } from "./paths.mjs";

function dotenvValue(name, value) {
  const text = String(value ?? "");
  // Single quotes make dotenv take the value literally.
  if (/['\n\r]/.test(text)) throw new Error(`${name} cannot contain a quote or a line break`);
  return `'${text}'`;
}

/**
 * The Worker's secrets go to wrangler in an env file (readable by this user
 * only), not as --var arguments anyone can see in `ps`. wrangler gets a process
 * group of its own (workerd and esbuild run under it), so it can be killed whole.
 *
 * @param {{ port: number|string, dataDir: string, vars: Record<string,string>, extraArgs?: string[] }} opts
 */
export function spawnWorker({ port, dataDir, vars, extraArgs = [] }) {
  const varsFile = resolve(dataDir, ".dev.vars");
  // With an outside database (DATABASE_URL, BENCH_DATABASE_URL) nothing else has made the folder.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(varsFile, Object.entries(vars).map(([k, v]) => `${k}=${dotenvValue(k, v)}\n`).join(""), { mode: 0o600 });
  const wranglerBin = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  const args = [
    wranglerBin, "dev",
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--persist-to", resolve(dataDir, "wrangler"),
    "--env-file", varsFile,
    "--show-interactive-dev-session=false",
    ...extraArgs,
  ];
  return spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      // Non-interactive and offline: no telemetry or error reports (and so no
      // consent prompt), no update check (it comes with the banner), no fetch
      // of the Request.cf placeholder from workers.cloudflare.com.
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_SEND_ERROR_REPORTS: "false",
      WRANGLER_HIDE_BANNER: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      // wrangler's debug logs go beside the data instead of ~/.config/.wrangler.
      WRANGLER_LOG_PATH: resolve(dataDir, "logs"),
    },
  });
}

/** Signals a worker's whole process group (wrangler, workerd, esbuild). */
export function signalGroup(child, signal) {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}
