// `npm run tenant:create -- --name <name>`: a tenant, its admin user and a PAT
// holding every permission. Prints exactly one JSON line on stdout. Without
// DATABASE_URL it writes only into the database of a running `npm run dev`
// that answers: a tenant made anywhere else could not be used through it.
import { parseArgs } from "node:util";
import { createTenant, openPool } from "./lib/db.mjs";
import { withServedDatabase } from "./lib/local-db.mjs";
import { NoDevServer } from "./lib/dev-state.mjs";

const { values } = parseArgs({ options: { name: { type: "string" } } });
if (!values.name?.trim()) {
  console.error("usage: npm run tenant:create -- --name <name>");
  process.exit(2);
}

let created;
try {
  created = await withServedDatabase(async (url) => {
    const pool = openPool(url, 1);
    try {
      return await createTenant(pool, values.name.trim());
    } finally {
      await pool.end();
    }
  });
} catch (e) {
  if (!(e instanceof NoDevServer)) throw e;
  console.error(`tenant:create: no tenant created: ${e.message}.`);
  console.error(
    "Start `npm run dev` (with the same DEV_DATA_DIR) in another terminal and run this again once it serves, or set DATABASE_URL to create the tenant in that database.",
  );
  process.exit(1);
}
process.stdout.write(JSON.stringify(created) + "\n");
process.exit(0);
