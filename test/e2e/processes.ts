// What the e2e tests of `npm run dev` see of the machine's processes, and
// the environment a user's shell gives dev.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The environment a user's shell would have: no test-runner variables, no DATABASE_URL (so the embedded database is used). */
export function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("VITEST") || k === "NODE_ENV" || k === "DATABASE_URL" || k === "TEST_DATABASE_URL") continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export interface Proc {
  pid: number;
  ppid: number;
  state: string;
  args: string;
}

/** Every process on the machine, from /proc (Linux) or else `ps`. */
export async function processes(): Promise<Proc[]> {
  if (existsSync("/proc/self/stat")) {
    const out: Proc[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        // pid (comm) state ppid ...; comm may hold spaces and parentheses.
        const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
        out.push({ pid: Number(entry), ppid: Number(ppid), state, args });
      } catch {
        // gone while we looked
      }
    }
    return out;
  }
  const { stdout } = await run("ps", ["-eo", "pid=,ppid=,stat=,args="]);
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const [pid, ppid, state, ...args] = l.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), state, args: args.join(" ") };
    });
}

export const alive = (p: Proc) => !p.state.startsWith("Z");
/** A process is the same one if pid and command line match (pids get reused). */
export const sameProcess = (a: Proc, b: Proc) => a.pid === b.pid && a.args === b.args;

/** `root` and everything it started, transitively, that is alive now. */
export async function processTree(root: number): Promise<Proc[]> {
  const all = (await processes()).filter(alive);
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i].pid));
  return tree;
}

/** Polls until `check` is true or the time is up. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, intervalMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(intervalMs);
  }
  return check();
}

