// Starts what the service needs locally: embedded Postgres (unless DATABASE_URL
// is set), the WebSocket bridge, and the migrations. Used by dev, test and bench.
import { startPostgres } from "./postgres.mjs";
import { startWsBridge } from "./ws-bridge.mjs";
import { applyMigrations, useWsProxy } from "./db.mjs";

/**
 * @param {{ dataDir: string, persistent: boolean, databaseUrl?: string }} opts
 */
export async function startStack({ dataDir, persistent, databaseUrl }) {
  const pg = databaseUrl ? null : await startPostgres({ dir: dataDir, persistent });
  const url = databaseUrl ?? pg.url;
  const local = /@(127\.0\.0\.1|localhost)[:/]/.test(url);
  let bridge = null;
  try {
    bridge = local ? await startWsBridge() : null;
    useWsProxy(bridge?.proxy);
    await applyMigrations(url);
  } catch (e) {
    // A failed migration must not leave a Postgres running with nobody to stop it.
    await bridge?.stop();
    await pg?.stop();
    throw e;
  }
  return {
    databaseUrl: url,
    wsProxy: bridge?.proxy ?? "",
    stop: async () => {
      await bridge?.stop();
      await pg?.stop();
    },
  };
}
