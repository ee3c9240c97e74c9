// `npm run tenant:create -- --name <name>`: a tenant, its admin user and a PAT
// holding every permission. Prints exactly one JSON line on stdout.
import { parseArgs } from "node:util";
import { createTenant, openPool } from "./lib/db.mjs";
import { withDatabase } from "./lib/local-db.mjs";

const { values } = parseArgs({ options: { name: { type: "string" } } });
if (!values.name?.trim()) {
  console.error("usage: npm run tenant:create -- --name <name>");
  process.exit(2);
}

const created = await withDatabase(async (url) => {
  const pool = openPool(url, 1);
  try {
    return await createTenant(pool, values.name.trim());
  } finally {
    await pool.end();
  }
});
process.stdout.write(JSON.stringify(created) + "\n");
process.exit(0);
