// `npm run dev` as the end-to-end tests start it: the real scripts/dev.mjs
// in its own process group, with a free port and its own data folder.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "./ports";
import { sleep, userEnv, waitFor } from "./processes";

export const root = fileURLToPath(new URL("../..", import.meta.url));
const READY_TIMEOUT_MS = 150_000;
const STOP_TIMEOUT_MS = 30_000;

export interface Dev {
  child: ChildProcess;
  port: number;
  base: string;
  /** Where dev serves the example host page (host/example, HOST_EXAMPLE_PORT). */
  exampleOrigin: string;
  dataDir: string;
  /** The environment dev runs with: what `npm run tenant:create` needs to reach it. */
  env: NodeJS.ProcessEnv;
  exited: Promise<{ code: number | null }>;
  output: () => string;
  /** SIGKILL to the whole group, as an IDE's stop button does, and the data folder removed. */
  kill: () => void;
  /** SIGTERM to the group (a terminal's Ctrl-C), SIGKILL if it has not exited in 30 s, and the data folder removed. */
  stop: () => Promise<void>;
}

/** dev once it answers /healthz; killed again when it does not come up. */
export async function startDev(prefix: string): Promise<Dev> {
  mkdirSync(join(root, ".data"), { recursive: true });
  const dataDir = mkdtempSync(join(root, ".data", `${prefix}-`));
  const port = await freePort();
  const examplePort = await freePort();
  const env = userEnv({ PORT: String(port), HOST_EXAMPLE_PORT: String(examplePort), INSPECTOR_PORT: String(await freePort()), DEV_DATA_DIR: dataDir });
  let output = "";
  const child = spawn(process.execPath, ["scripts/dev.mjs"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString("utf8")).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null }>((resolve) => child.once("exit", (code) => resolve({ code })));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // gone already
    }
  };
  const kill = () => {
    signal("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  const stop = async () => {
    signal("SIGTERM");
    if (!(await Promise.race([exited, sleep(STOP_TIMEOUT_MS).then(() => null)]))) signal("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    const ready = await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`npm run dev exited early:\n${output}`);
      try {
        return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) })).status === 200;
      } catch {
        return false;
      }
    }, READY_TIMEOUT_MS);
    if (!ready) throw new Error(`npm run dev did not answer /healthz:\n${output}`);
  } catch (e) {
    kill();
    throw e;
  }
  return { child, port, base, exampleOrigin: `http://127.0.0.1:${examplePort}`, dataDir, env, exited, output: () => output, kill, stop };
}

export interface TenantCredentials {
  tenant_id: string;
  user_id: string;
  client_id: string;
  client_secret: string;
}

/** `npm run tenant:create` against dev: a new tenant and its admin PAT. */
export async function createTenant(dev: Dev, name: string): Promise<TenantCredentials> {
  const { stdout } = await promisify(execFile)(process.execPath, ["scripts/tenant-create.mjs", "--name", name], { cwd: root, env: dev.env, timeout: 60_000 });
  return JSON.parse(stdout);
}
