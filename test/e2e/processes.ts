// What the e2e tests of `npm run dev` see of the machine's processes, and
// the environment a user's shell gives dev.
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

export { alive, processes, processTree, sameProcess, workerdOf } from "../../scripts/lib/processes.mjs";
export type { Proc } from "../../scripts/lib/processes.mjs";

/** Polls until `check` is true or the time is up. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, intervalMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(intervalMs);
  }
  return check();
}
