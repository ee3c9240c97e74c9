// Starts a throw-away embedded Postgres and the WebSocket bridge for the whole
// run, migrates it, and hands the addresses to the workerd test projects.
import type { TestProject } from "vitest/node";
import { resolve } from "node:path";
import { rmSync } from "node:fs";
// @ts-expect-error plain ESM script without types
import { startStack } from "../../scripts/lib/stack.mjs";
import { startOutboundServer } from "./outbound-server";

declare module "vitest" {
  interface ProvidedContext {
    databaseUrl: string;
    wsProxy: string;
    /** The scriptable outbound test server (test/support/outbound-server.ts). */
    outboundOrigin: string;
    outboundPort: string;
    /** The same server on a second port: another origin. */
    outboundOtherOrigin: string;
    outboundOtherPort: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = resolve(`.data/test-${process.pid}/pg`);
  const stack = await startStack({ dataDir, persistent: false, databaseUrl: process.env.TEST_DATABASE_URL });
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("wsProxy", stack.wsProxy);
  const outbound = await startOutboundServer();
  project.provide("outboundOrigin", outbound.origin);
  project.provide("outboundPort", String(outbound.port));
  project.provide("outboundOtherOrigin", outbound.otherOrigin);
  project.provide("outboundOtherPort", String(outbound.otherPort));
  return async () => {
    await outbound.stop();
    await stack.stop();
    rmSync(resolve(`.data/test-${process.pid}`), { recursive: true, force: true });
  };
}
