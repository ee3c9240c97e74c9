// Runs the Worker in workerd through Miniflare directly, as `npm test` does,
// for the benchmarks. `wrangler dev` puts a second workerd process in front
// of the Worker (its proxy that holds requests during reloads), which costs
// every request a few milliseconds that production does not pay. The bundle
// is the one `wrangler deploy` would upload, and the bindings are
// wrangler.toml's, read by wrangler itself.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { bundleWorker } from "./bundle.mjs";
import { root } from "./paths.mjs";

/**
 * @param {{ port: number, inspectorPort?: number, dataDir: string, objectsDir?: string, vars: Record<string, string> }} opts
 *   `objectsDir`: where the Durable Objects keep their storage (default: under `dataDir`).
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startWorkerRuntime({ port, inspectorPort, dataDir, objectsDir, vars }) {
  const outdir = resolve(dataDir, "bundle");
  mkdirSync(outdir, { recursive: true });
  const scriptPath = bundleWorker({ outdir, logDir: resolve(dataDir, "logs") });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(resolve(root, "wrangler.toml"));
  const mf = new Miniflare({
    ...workerOptions,
    name: "entity-platform",
    modules: true,
    modulesRoot: outdir,
    // The bundle's modules sit flat in outdir, where wrangler.toml's Text rule (`**/host/dist/*.txt`,
    // fallthrough = false, so the default `**/*.txt` is dropped) matches nothing: the host SDK, which
    // the dry run writes there as `<hash>-v1.txt`, is found by this rule instead.
    modulesRules: [{ type: "Text", include: ["**/*.txt"] }, ...(workerOptions.modulesRules ?? [])],
    scriptPath,
    bindings: { ...workerOptions.bindings, ...vars },
    host: "127.0.0.1",
    port,
    ...(inspectorPort ? { inspectorPort } : {}),
    durableObjectsPersist: objectsDir ?? resolve(dataDir, "state/do"),
    r2Persist: resolve(dataDir, "state/r2"),
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  return { url, stop: () => mf.dispose() };
}
