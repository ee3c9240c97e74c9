// Runs a command (wrangler dev) for `npm run dev` and ties its life to dev's:
// the command and everything under it (workerd, esbuild) share this
// process's group, and when dev is gone, however it ended (kill -9 of its
// group included, which this group does not get), the whole group is
// killed within half a second. Signals dev sends are passed on.
//
//   node worker-guard.mjs <dev pid> <command> [args...]
import { spawn } from "node:child_process";

const [watched, command, ...args] = process.argv.slice(2);
const devPid = Number(watched);
const POLL_MS = 500;

const child = spawn(command, args, { stdio: "inherit", env: process.env });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

function devGone() {
  // Orphaned, this process is adopted by another: its parent is no longer dev.
  if (process.ppid !== devPid) return true;
  try {
    process.kill(devPid, 0);
    return false;
  } catch {
    return true;
  }
}

setInterval(() => {
  if (devGone()) process.kill(-process.pid, "SIGKILL");
}, POLL_MS);
