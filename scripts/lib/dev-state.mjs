// dev.json under DEV_DATA_DIR: what a running `npm run dev` serves (its pid,
// port, database and bridge), written once it listens and removed when it
// stops. A dev killed outright (SIGKILL, a crash) leaves the file behind, so a
// reader checks the pid; a script about to write data someone will look at
// through the server also asks the server itself.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { devDataDir, devStateFile } from "./paths.mjs";

const HEALTH_TIMEOUT_MS = 5_000;

/** No dev server answers for DEV_DATA_DIR; the message says why. */
export class NoDevServer extends Error {}

/** @param {{ pid: number, port: number, databaseUrl: string, wsProxy: string }} state */
export function writeDevState(state) {
  writeFileSync(devStateFile, JSON.stringify(state));
}

export function removeDevState() {
  rmSync(devStateFile, { force: true });
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, owned by someone else.
    return e?.code === "EPERM";
  }
}

/** The file's contents; null when it is absent or unreadable (a write cut short reads as no dev). */
function readDevState() {
  try {
    return existsSync(devStateFile) ? JSON.parse(readFileSync(devStateFile, "utf8")) : null;
  } catch {
    return null;
  }
}

/** The state of the dev running on DEV_DATA_DIR, or null when none is. */
export function runningDev() {
  const state = readDevState();
  return state && isAlive(state.pid) ? state : null;
}

/**
 * The running dev, once its server has answered GET /healthz with the database
 * reachable; otherwise throws NoDevServer saying why not. The pid alone would take
 * a stale file whose pid was reused, or a dev whose wrangler has not come up,
 * for a server the user can reach.
 */
export async function servingDev() {
  const state = readDevState();
  if (!state) throw new NoDevServer(`no \`npm run dev\` is running with its data in ${devDataDir} (DEV_DATA_DIR)`);
  if (!isAlive(state.pid)) throw new NoDevServer(`the \`npm run dev\` recorded in ${devStateFile} (pid ${state.pid}) is no longer running`);
  const url = `http://127.0.0.1:${state.port}/healthz`;
  let reason;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    const body = await res.json().catch(() => null);
    if (res.status !== 200 || body?.data?.database !== "reachable") reason = `answered ${res.status} ${JSON.stringify(body)}`;
  } catch (e) {
    reason = e?.cause?.code ?? e?.message ?? String(e);
  }
  if (reason)
    throw new NoDevServer(`\`npm run dev\` (pid ${state.pid}) does not answer ${url} (${reason}); if it is still starting, wait for wrangler's "Ready" line`);
  return state;
}
