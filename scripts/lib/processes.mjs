// The machine's processes as `npm run dev`'s tests and the crash probe see
// them: who dev started, and what of it is still alive.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

/** @typedef {{ pid: number, ppid: number, state: string, args: string }} Proc */

/**
 * Every process on the machine, from /proc (Linux) or else `ps`.
 * @returns {Promise<Proc[]>}
 */
export async function processes() {
  if (existsSync("/proc/self/stat")) {
    const out = [];
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

/** @param {Proc} p */
export const alive = (p) => !p.state.startsWith("Z");

/** A process is the same one if pid and command line match (pids get reused). @param {Proc} a @param {Proc} b */
export const sameProcess = (a, b) => a.pid === b.pid && a.args === b.args;

/**
 * `root` and everything it started, transitively, that is alive now.
 * @param {number} root
 */
export async function processTree(root) {
  const all = (await processes()).filter(alive);
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i].pid));
  return tree;
}

/** The workerd processes among `tree` (by executable, not by an argument that mentions it). @param {Proc[]} tree */
export const workerdOf = (tree) => tree.filter((p) => /\bworkerd\b/.test(p.args.split(" ")[0]));
