// Finds the database a script should use: DATABASE_URL, else the running
// `npm run dev`'s embedded Postgres, else that same embedded Postgres started
// just for this script.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { startStack } from "./stack.mjs";
import { useWsProxy } from "./db.mjs";
import { devDataDir, devStateFile } from "./paths.mjs";

function runningDev() {
  if (!existsSync(devStateFile)) return null;
  const state = JSON.parse(readFileSync(devStateFile, "utf8"));
  try {
    process.kill(state.pid, 0);
    return state;
  } catch {
    return null;
  }
}

export async function withDatabase(fn) {
  const dev = process.env.DATABASE_URL ? null : runningDev();
  if (dev) {
    useWsProxy(dev.wsProxy);
    return fn(dev.databaseUrl);
  }
  const stack = await startStack({ dataDir: resolve(devDataDir, "pg"), persistent: true, databaseUrl: process.env.DATABASE_URL });
  try {
    return await fn(stack.databaseUrl);
  } finally {
    await stack.stop();
  }
}
