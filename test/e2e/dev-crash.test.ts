// `npm run dev` dies whole: killed outright (SIGKILL to its process group, as
// an IDE's stop button or an OOM kill does) nothing it started survives, and
// a workerd that dies alone stops dev with a message instead of leaving it
// answering 502.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./ports";
import { alive, processes, processTree, sameProcess, userEnv, waitFor, workerdOf, type Proc } from "./processes";

const root = fileURLToPath(new URL("../..", import.meta.url));
const READY_TIMEOUT_MS = 150_000;

interface Dev {
  child: ChildProcess;
  dataDir: string;
  exited: Promise<{ code: number | null }>;
  output: () => string;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const clean of cleanups.splice(0)) clean();
});

/** dev in its own process group and data folder, once it answers /healthz. */
async function startDev(): Promise<Dev> {
  mkdirSync(join(root, ".data"), { recursive: true });
  const dataDir = mkdtempSync(join(root, ".data", "e2e-crash-"));
  const port = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["scripts/dev.mjs"], {
    cwd: root,
    env: userEnv({ PORT: String(port), INSPECTOR_PORT: String(await freePort()), DEV_DATA_DIR: dataDir }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString("utf8")).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<{ code: number | null }>((resolve) => child.once("exit", (code) => resolve({ code })));
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone already
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const ready = await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`npm run dev exited early:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
      return res.status === 200;
    } catch {
      return false;
    }
  }, READY_TIMEOUT_MS);
  if (!ready) throw new Error(`npm run dev did not answer /healthz:\n${output}`);
  return { child, dataDir, exited, output: () => output };
}

/** What of `tree` (and any Postgres on the data folder) is still alive after up to `ms`. */
async function survivorsAfter(tree: Proc[], dataDir: string, ms: number): Promise<string[]> {
  const left = async () => (await processes()).filter((p) => alive(p) && (tree.some((q) => sameProcess(p, q)) || p.args.includes(join(dataDir, "pg"))));
  await waitFor(async () => (await left()).length === 0, ms);
  return (await left()).map((p) => `${p.pid} ${p.args}`);
}

describe("npm run dev dies whole", () => {
  it("leaves no process running after SIGKILL to its process group: Postgres, wrangler's guard, wrangler, workerd", async () => {
    const dev = await startDev();
    const tree = await processTree(dev.child.pid!);
    expect(tree.some((p) => p.args.includes("postgres"))).toBe(true);
    expect(tree.some((p) => p.args.includes("worker-guard.mjs"))).toBe(true);
    expect(tree.some((p) => /workerd/.test(p.args))).toBe(true);
    process.kill(-dev.child.pid!, "SIGKILL");
    expect(await survivorsAfter(tree, dev.dataDir, 10_000), dev.output()).toEqual([]);
  });

  it("stops with a message and exit code 1 when workerd dies under it, and leaves nothing running", async () => {
    const dev = await startDev();
    const tree = await processTree(dev.child.pid!);
    const workerd = workerdOf(tree);
    expect(workerd.length).toBeGreaterThan(0);
    for (const p of workerd) process.kill(p.pid, "SIGKILL");
    const exited = await Promise.race([dev.exited, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    expect(exited, dev.output()).toEqual({ code: 1 });
    expect(dev.output()).toContain("[dev] workerd exited; stopping");
    expect(await survivorsAfter(tree, dev.dataDir, 10_000), dev.output()).toEqual([]);
  });
});
