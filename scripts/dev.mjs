// `npm run dev`: embedded Postgres (or DATABASE_URL), the WebSocket bridge,
// migrations, then `wrangler dev` on 127.0.0.1:8787 with every binding local.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { startStack } from "./lib/stack.mjs";
import { devDataDir, devStateFile, root } from "./lib/paths.mjs";

const port = process.env.PORT ?? "8787";
mkdirSync(devDataDir, { recursive: true });

// Local secrets are made once and kept, so tokens survive a restart.
const secretsFile = resolve(devDataDir, "secrets.json");
if (!existsSync(secretsFile)) {
  writeFileSync(secretsFile, JSON.stringify({ JWT_SECRET: randomBytes(32).toString("hex"), MASTER_KEY: randomBytes(32).toString("hex") }), { mode: 0o600 });
}
const secrets = JSON.parse(readFileSync(secretsFile, "utf8"));

const stack = await startStack({ dataDir: resolve(devDataDir, "pg"), persistent: true, databaseUrl: process.env.DATABASE_URL });
writeFileSync(devStateFile, JSON.stringify({ databaseUrl: stack.databaseUrl, wsProxy: stack.wsProxy, pid: process.pid }));
console.error(`[dev] database ready${process.env.DATABASE_URL ? " (DATABASE_URL)" : " (embedded, " + devDataDir + ")"}`);

const vars = { ...secrets, DATABASE_URL: stack.databaseUrl, NEON_WS_PROXY: stack.wsProxy };
const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", resolve(devDataDir, "wrangler"), "--test-scheduled", "--show-interactive-dev-session=false"];
for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);

const wrangler = spawn("npx", args, { cwd: root, stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });

let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  wrangler.kill("SIGTERM");
  rmSync(devStateFile, { force: true });
  await stack.stop().catch(() => {});
  process.exit(code);
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => shutdown(0));
wrangler.on("exit", (code) => shutdown(code ?? 0));
