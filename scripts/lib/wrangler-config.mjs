import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { root } from "./paths.mjs";

const run = promisify(execFile);

/**
 * wrangler.toml as wrangler resolves it for `env` (the top level when absent):
 * an environment's own keys, the inherited ones, the defaults. wrangler reads
 * it in a child process: imported here it would install SIGINT/SIGTERM
 * handlers that exit at once, leaving Postgres running.
 *
 * @param {string} [env]
 */
export async function readWranglerConfig(env) {
  const options = JSON.stringify({ config: resolve(root, "wrangler.toml"), ...(env ? { env } : {}) });
  const script = `import { unstable_readConfig } from "wrangler";
    console.log(JSON.stringify(unstable_readConfig(${options})));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    maxBuffer: 16 * 1024 * 1024,
  });
  // Anything wrangler prints comes first: the answer is the last line.
  return JSON.parse(stdout.trim().split("\n").pop());
}
