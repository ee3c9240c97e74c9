#!/usr/bin/env node
// Builds the host SDK (host/src, docs/hosts.md) into host/dist with esbuild:
// `index.js`, the ES module the npm package publishes, and `v1.txt`, the same
// bytes the Worker imports as a Text module (wrangler.toml `rules`) and serves
// at GET /apps/host/v1.js. Nothing built is committed (host/dist is ignored):
// wrangler runs this before `wrangler dev` and `wrangler deploy`
// (wrangler.toml `[build]`, so `npm run dev` and the deploy get it), and vitest
// runs it as a global setup before any test imports the Worker.
//
//   node scripts/build-host.mjs          build once, print the gzipped size
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
export const HOST_DIST = resolve(root, "host", "dist");

/** Builds host/dist/index.js and host/dist/v1.txt; answers the bundle's bytes and gzipped bytes. */
export async function buildHost() {
  mkdirSync(HOST_DIST, { recursive: true });
  const out = resolve(HOST_DIST, "index.js");
  await build({
    entryPoints: [resolve(root, "host", "src", "index.ts")],
    outfile: out,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "error",
    tsconfig: resolve(root, "host", "tsconfig.json"),
  });
  const code = readFileSync(out);
  writeFileSync(resolve(HOST_DIST, "v1.txt"), code);
  return { bytes: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

/** vitest's global setup: the Worker imports host/dist/v1.txt, so it must exist before any test loads it. */
export default async function setup() {
  await buildHost();
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { bytes, gzipped } = await buildHost();
  console.log(`[host] host/dist/index.js: ${(bytes / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
}
