import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

export const root = fileURLToPath(new URL("../..", import.meta.url));
/** Where `npm run dev` keeps its database, secrets and local R2/DO state. */
export const devDataDir = resolve(root, process.env.DEV_DATA_DIR ?? ".data/dev");
export const devStateFile = resolve(devDataDir, "dev.json");
