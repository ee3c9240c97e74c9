// Runs the Worker under `wrangler dev` (workerd, every binding local) as a
// child process, for `npm run dev` (the benchmarks use runtime.mjs).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
 * only), not as --var arguments anyone can see in `ps`. wrangler runs under
 * worker-guard.mjs in a process group of its own (workerd and esbuild run
 * under it), so it can be killed whole, and the guard kills that group when
 * this process is gone however it ended.
 *
 * @param {{ port: number|string, dataDir: string, vars: Record<string,string>, extraArgs?: string[] }} opts
 */
export function spawnWorker({ port, dataDir, vars, extraArgs = [] }) {
  const varsFile = resolve(dataDir, ".dev.vars");
  // With an outside database (DATABASE_URL, BENCH_DATABASE_URL) nothing else has made the folder.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    varsFile,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${dotenvValue(k, v)}\n`)
      .join(""),
    { mode: 0o600 },
  );
  const wranglerBin = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  const args = [
    resolve(root, "scripts/lib/worker-guard.mjs"),
    String(process.pid),
    process.execPath,
    wranglerBin,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    resolve(dataDir, "wrangler"),
    "--env-file",
    varsFile,
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

/** Signals a worker's whole process group (the guard, wrangler, workerd, esbuild). */
export function signalGroup(child, signal) {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

/**
 * Calls `onExit` once the worker's workerd, having run, is gone while its
 * group lives on (wrangler would go on, and every request would get a 502).
 * Linux only (/proc); elsewhere it watches nothing.
 */
export function watchWorkerd(child, onExit, intervalMs = 1000) {
  if (!existsSync("/proc/self/stat") || !child?.pid) return () => {};
  let seen = false;
  const timer = setInterval(() => {
    const running = workerdIn(child.pid);
    if (running) seen = true;
    else if (seen) {
      clearInterval(timer);
      onExit();
    }
  }, intervalMs);
  return () => clearInterval(timer);
}

function workerdIn(group) {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // After the comm: state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (comm === "workerd" && Number(pgrp) === group && state !== "Z") return true;
    } catch {
      // gone while we looked
    }
  }
  return false;
}
