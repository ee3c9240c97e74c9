// `npm run dev` dies whole: killed outright (SIGKILL to its process group, as
// an IDE's stop button or an OOM kill does) nothing it started survives, and
// a workerd that dies alone stops dev with a message instead of leaving it
// answering 502.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startDev as start } from "./dev";
import { alive, processes, processTree, sameProcess, waitFor, workerdOf, type Proc } from "./processes";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const clean of cleanups.splice(0)) clean();
});

/** dev in its own process group and data folder, once it answers /healthz; killed after the test. */
async function startDev() {
  const dev = await start("e2e-crash");
  cleanups.push(dev.kill);
  return dev;
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
