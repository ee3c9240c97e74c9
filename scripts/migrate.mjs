// `npm run migrate`: applies migrations/ to DATABASE_URL (or the dev database).
import { applyMigrations } from "./lib/db.mjs";
import { withDatabase } from "./lib/local-db.mjs";

await withDatabase(async (url) => {
  // startStack already migrated a local database; for DATABASE_URL this is the step that matters.
  await applyMigrations(url);
});
console.error("[migrate] up to date");
process.exit(0);
