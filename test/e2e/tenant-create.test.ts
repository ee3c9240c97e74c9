// `npm run tenant:create` without DATABASE_URL refuses, with the reason on
// stderr and exit code 1, whenever no dev server answers for its DEV_DATA_DIR:
// a tenant created then would sit in a database nobody reaches through the
// service. Its success against a running dev is in dev-server.test.ts.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freePort } from "./ports";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ADVICE =
  "Start `npm run dev` (with the same DEV_DATA_DIR) in another terminal and run this again once it serves, or set DATABASE_URL to create the tenant in that database.";

let dataDir = "";

beforeEach(() => {
  mkdirSync(join(root, ".data"), { recursive: true });
  dataDir = mkdtempSync(join(root, ".data", "tenant-create-"));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the script as a user's shell would: no DATABASE_URL, DEV_DATA_DIR pointing at this test's folder. */
function tenantCreate(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("VITEST") && k !== "DATABASE_URL" && k !== "TEST_DATABASE_URL") env[k] = v;
  env.DEV_DATA_DIR = dataDir;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/tenant-create.mjs", "--name", "acme"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A pid that belonged to a process which has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", () => resolve(child.pid!));
  });
}

function writeDevJson(state: Record<string, unknown>) {
  writeFileSync(join(dataDir, "dev.json"), JSON.stringify({ databaseUrl: "postgresql://nobody@127.0.0.1:1/none", wsProxy: "127.0.0.1:1", ...state }));
}

describe("npm run tenant:create refuses when no dev server answers", () => {
  it("with no dev running, names the data folder and starts no database of its own", async () => {
    const res = await tenantCreate();
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(`tenant:create: no tenant created: no \`npm run dev\` is running with its data in ${dataDir} (DEV_DATA_DIR).\n${ADVICE}\n`);
    // Before, it started the embedded Postgres here and created the tenant in it.
    expect(existsSync(join(dataDir, "pg"))).toBe(false);
  });

  it("with a dev.json left by a dev that was killed, names its pid", async () => {
    const pid = await deadPid();
    writeDevJson({ pid, port: await freePort() });
    const res = await tenantCreate();
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(
      `tenant:create: no tenant created: the \`npm run dev\` recorded in ${join(dataDir, "dev.json")} (pid ${pid}) is no longer running.\n${ADVICE}\n`,
    );
  });

  it("with a live pid whose server does not answer (a reused pid, or wrangler not up yet), says so", async () => {
    const port = await freePort();
    writeDevJson({ pid: process.pid, port });
    const res = await tenantCreate();
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(
      `tenant:create: no tenant created: \`npm run dev\` (pid ${process.pid}) does not answer http://127.0.0.1:${port}/healthz (ECONNREFUSED); if it is still starting, wait for wrangler's "Ready" line.\n${ADVICE}\n`,
    );
  });
});
