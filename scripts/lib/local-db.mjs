// Finds the database a script should use: DATABASE_URL, else the running
// `npm run dev`'s database, else (for scripts that may) that same embedded
// Postgres started just for this script.
import { resolve } from "node:path";
import { startStack } from "./stack.mjs";
import { useWsProxy } from "./db.mjs";
import { devDataDir } from "./paths.mjs";
import { runningDev, servingDev } from "./dev-state.mjs";

async function withStack(fn) {
  const stack = await startStack({ dataDir: resolve(devDataDir, "pg"), persistent: true, databaseUrl: process.env.DATABASE_URL });
  try {
    return await fn(stack.databaseUrl);
  } finally {
    await stack.stop();
  }
}

/** For maintenance (migrations): any of the three, starting the embedded database when nothing else runs. */
export async function withDatabase(fn) {
  const dev = process.env.DATABASE_URL ? null : runningDev();
  if (dev) {
    useWsProxy(dev.wsProxy);
    return fn(dev.databaseUrl);
  }
  return withStack(fn);
}

/**
 * For data a user goes on to reach through the service (a tenant): DATABASE_URL
 * when set, as the caller chose it, else only the database of a dev server
 * that answers. Throws the reason when there is none.
 */
export async function withServedDatabase(fn) {
  if (process.env.DATABASE_URL) return withStack(fn);
  const dev = await servingDev();
  useWsProxy(dev.wsProxy);
  return fn(dev.databaseUrl);
}
