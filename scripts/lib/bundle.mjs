// The bundle `wrangler deploy` would upload, built by `wrangler deploy
// --dry-run`: no Cloudflare account and no network. Metrics and error reports
// are off, and the hidden banner skips wrangler's update check, which would
// otherwise ask the npm registry.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { root } from "./paths.mjs";

/**
 * Writes the bundle and its source map into `outdir`; returns the main module's path.
 *
 * @param {{ outdir: string, logDir: string, env?: string }} opts
 *   `env`: a wrangler.toml environment (`staging`, `production`); the top level when absent.
 * @returns {string}
 */
export function bundleWorker({ outdir, logDir, env }) {
  const wranglerBin = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  const args = [wranglerBin, "deploy", "--dry-run", "--outdir", outdir, ...(env ? ["--env", env] : [])];
  const childEnv = {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    WRANGLER_LOG_PATH: logDir,
  };
  // Without a token, a wrangler that started asking Cloudflare's API during a
  // dry run fails here instead of passing on whoever's credentials are set.
  delete childEnv.CLOUDFLARE_API_TOKEN;
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", env: childEnv });
  if (run.status !== 0) throw new Error(`bundling the Worker${env ? ` (--env ${env})` : ""} failed:\n${run.stdout}\n${run.stderr}`);
  return resolve(outdir, "index.js");
}
