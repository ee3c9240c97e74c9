// The deployed environments of wrangler.toml (SPEC.md 1: production, staging,
// local development at the top level): each builds as `wrangler deploy --env
// <name>` would upload it, offline and without an account, under the bundle
// budget, and binds every name local development binds, to resources of its own.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../../scripts/lib/bundle.mjs";
import { readWranglerConfig } from "../../scripts/lib/wrangler-config.mjs";

const ENVIRONMENTS = ["staging", "production"] as const;

// Cloudflare takes up to 3 MiB gzipped (10 MiB on a paid plan), but every cold
// isolate parses the whole script before its first request, so the bundle is
// held well below that. Counted as wrangler's "Total Upload … gzip:" figure
// is: every uploaded module gzipped together, source map left out.
const BUDGET_BYTES = 1024 * 1024;

const root = mkdtempSync(path.join(tmpdir(), "deploy-dry-run-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function gzippedUpload(outdir: string): number {
  const modules = readdirSync(outdir).filter((name) => !name.endsWith(".map") && name !== "README.md");
  return gzipSync(Buffer.concat(modules.map((name) => readFileSync(path.join(outdir, name))))).byteLength;
}

describe.each(ENVIRONMENTS)("wrangler deploy --env %s", (env) => {
  it("builds offline, under the gzipped budget", () => {
    const outdir = path.join(root, env);
    bundleWorker({ outdir, logDir: path.join(root, "logs"), env });
    const size = gzippedUpload(outdir);
    const kib = (size / 1024).toFixed(1);
    console.log(`${env}: ${kib} KiB gzipped (budget ${BUDGET_BYTES / 1024} KiB)`);
    expect(size, `${env}: the bundle is ${kib} KiB gzipped`).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});

/** The part of wrangler's resolved config these tests read. */
interface Config {
  vars: Record<string, string>;
  durable_objects: { bindings: { name: string; class_name: string }[] };
  r2_buckets: { binding: string; bucket_name: string }[];
  queues: { producers: { binding: string; queue: string }[]; consumers: { queue: string }[] };
  triggers: { crons: string[] };
  placement?: { mode: string };
}

describe("environments", () => {
  let local: Config;
  const deployed = {} as Record<(typeof ENVIRONMENTS)[number], Config>;
  beforeAll(async () => {
    const [top, ...envs] = await Promise.all([readWranglerConfig(), ...ENVIRONMENTS.map((env) => readWranglerConfig(env))]);
    local = top;
    ENVIRONMENTS.forEach((env, i) => (deployed[env] = envs[i]));
  });

  // Wrangler inherits no binding into a named environment: one left out
  // there would be undefined in the deployed Worker only.
  const names = (config: Config) => ({
    vars: Object.keys(config.vars).sort(),
    durableObjects: config.durable_objects.bindings,
    buckets: config.r2_buckets.map((bucket) => bucket.binding),
    producers: config.queues.producers.map((producer) => producer.binding),
    consumers: config.queues.consumers.map(({ queue: _, ...settings }) => settings),
    crons: config.triggers.crons,
  });

  it.each(ENVIRONMENTS)("%s binds every name local development binds, with the same queue settings and crons", (env) => {
    expect(names(deployed[env])).toEqual(names(local));
  });

  it("gives each environment a bucket and a queue of its own, consumed where it is produced", () => {
    const resources = (config: Config) => [
      ...config.r2_buckets.map((bucket) => bucket.bucket_name),
      ...config.queues.producers.map((producer) => producer.queue),
    ];
    const all = [local, ...Object.values(deployed)].flatMap(resources);
    expect(new Set(all).size).toBe(all.length);
    for (const config of Object.values(deployed)) {
      expect(config.queues.consumers.map((consumer) => consumer.queue)).toEqual(config.queues.producers.map((producer) => producer.queue));
      expect(config.vars.OUTBOUND_ALLOWLIST).toBe("");
      expect(config.vars.PUBLIC_URL).toMatch(/^https:\/\//);
    }
  });

  it("runs production, and only production, with Smart Placement", () => {
    expect(deployed.production.placement).toEqual({ mode: "smart" });
    expect(deployed.staging.placement).toBeUndefined();
    expect(local.placement).toBeUndefined();
  });
});
