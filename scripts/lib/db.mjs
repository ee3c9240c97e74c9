// Node-side database access for scripts, through the same Neon driver the Worker uses.
import { Pool, neonConfig } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-serverless";
import { migrate } from "drizzle-orm/neon-serverless/migrator";
import { createHash, randomBytes } from "node:crypto";
import ws from "ws";
import { fileURLToPath } from "node:url";

neonConfig.webSocketConstructor = ws;
// As in the Worker (src/db/client.ts): no timer tick before each write, so
// raw-SQL baselines and the service pay the same transport.
neonConfig.coalesceWrites = false;

/** Points the driver at a local WebSocket bridge; without one it talks to Neon directly. */
export function useWsProxy(proxy) {
  if (!proxy) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

export function openPool(url, max = 4) {
  return new Pool({ connectionString: url, max });
}

export async function applyMigrations(url) {
  const pool = openPool(url, 1);
  try {
    await migrate(drizzle({ client: pool }), {
      migrationsFolder: fileURLToPath(new URL("../../migrations", import.meta.url)),
    });
  } finally {
    await pool.end();
  }
}

/** The same PAT shape the Worker mints (src/access/token-format.ts). */
export function newPat() {
  const clientId = `pat_${randomBytes(12).toString("hex")}`;
  const clientSecret = `sk_${randomBytes(32).toString("base64url")}`;
  const secretHash = createHash("sha256").update(clientSecret).digest();
  return { clientId, clientSecret, secretHash };
}

export async function createTenant(pool, name) {
  const { clientId, clientSecret, secretHash } = newPat();
  const { rows } = await pool.query("SELECT * FROM platform_create_tenant($1, $2, $3)", [name, clientId, secretHash]);
  return { tenant_id: rows[0].tenant_id, user_id: rows[0].user_id, client_id: clientId, client_secret: clientSecret };
}
