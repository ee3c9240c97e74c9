import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Limits large enough that no ordinary test meets them; the rate-limit tests
// run in their own project with small ones.
const bindings = (
  inject: (key: "databaseUrl" | "wsProxy" | "outboundOrigin" | "outboundPort" | "outboundOtherOrigin" | "outboundOtherPort") => string,
  limits: { ip: string; identity: string },
) => ({
  DATABASE_URL: inject("databaseUrl"),
  NEON_WS_PROXY: inject("wsProxy"),
  JWT_SECRET: "test-jwt-secret-0123456789abcdef",
  MASTER_KEY: "test-master-key-0123456789abcdef",
  RATE_LIMIT_IP: limits.ip,
  RATE_LIMIT_IDENTITY: limits.identity,
  LOG_REQUESTS: "false",
  // The outbound guard lets the tests' own scripted server through (and port
  // 1, where nothing listens: a failed connection), and names resolve through
  // its DNS-over-HTTPS endpoint (test/support/outbound-server.ts).
  OUTBOUND_ALLOWLIST: `127.0.0.1:${inject("outboundPort")},127.0.0.1:${inject("outboundOtherPort")},127.0.0.1:1`,
  OUTBOUND_DNS_URL: `${inject("outboundOrigin")}/dns-query`,
  OUTBOUND_TEST_ORIGIN: inject("outboundOrigin"),
  OUTBOUND_TEST_OTHER_ORIGIN: inject("outboundOtherOrigin"),
  // test/hardening/fuzz.test.ts: `npm run fuzz` raises the request count and may pick the seed.
  FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
  FUZZ_SEED: process.env.FUZZ_SEED ?? "",
});

/** The runtime dependencies the Worker imports (package.json), as the optimizer pre-bundles them. */
const DEPENDENCIES = [
  "hono",
  "hono/streaming",
  "drizzle-orm",
  "drizzle-orm/pg-core",
  "drizzle-orm/neon-serverless",
  "@neondatabase/serverless",
  "jsonata",
  "@cfworker/json-schema",
  "graphql",
  "yaml",
  "re2js",
  "jose",
  "fflate",
  "modern-tar",
  "@cantoo/pdf-lib",
];

const workers = (
  name: string,
  include: string[],
  exclude: string[],
  limits: { ip: string; identity: string },
  options: { extra?: Record<string, string>; isolate?: boolean } = {},
) => ({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { ...bindings(inject as never, limits), ...options.extra },
        // Every write through the gateway still sends to the real events queue; a 50 ms batch
        // timeout (wrangler.toml: 1 s) has its consumer done within the test that wrote. The
        // entry replaces wrangler.toml's whole consumer, so it repeats the other settings.
        queueConsumers: { "entity-events": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 10 } },
      },
    })),
  ],
  test: {
    name,
    include,
    exclude,
    isolate: options.isolate ?? true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each isolated file loads the Worker's whole module graph again; the
    // dependencies pre-bundled load as one module each instead of hundreds,
    // which halves that import time (docs/performance.md, Test suite).
    // csv-parse/stream is left out: it imports node's `stream`, which only
    // workerd's node compatibility provides.
    deps: { optimizer: { ssr: { enabled: true, include: DEPENDENCIES } } },
  },
});

// Files that test pure modules: no database, no request through the Worker,
// no Durable Object, no queue. An isolated file starts its own workerd (a
// Miniflare instance, the Worker bundled and loaded), about 2 s of CPU, which
// is more than most of these files' tests take; they share one instead
// (docs/performance.md, Test suite). The files that do I/O stay isolated:
// sharing one workerd slowed them file after file (what an earlier file
// started, such as run alarms and queue retries, would keep running in it).
const UNITS = [
  "test/access/app-access.test.ts",
  "test/apps/scope.test.ts",
  "test/apps/command-registry.test.ts",
  "test/apps/config-ops.test.ts",
  "test/apps/consent-widenings.test.ts",
  "test/apps/render-pages.test.ts",
  "test/apps/render-pages-state.test.ts",
  "test/apps/render-pages-errors.test.ts",
  "test/apps/render-pages-sources.test.ts",
  "test/apps/sources-paging.test.ts",
  "test/db/timestamps.test.ts",
  "test/definition/checks-generic.test.ts",
  "test/definition/language.test.ts",
  "test/definition/language-hostile.test.ts",
  "test/definition/language-yaml.test.ts",
  "test/definition/spec-checks.test.ts",
  "test/definition/spec-checks-docs.test.ts",
  "test/entity/csv-formula.test.ts",
  "test/entity/entity-type-config.test.ts",
  "test/entity/schema-paths.test.ts",
  "test/graphql/batch.test.ts",
  "test/lib/backoff.test.ts",
  "test/lib/errors.test.ts",
  "test/lib/input-guard.test.ts",
  "test/lib/json-schema-drafts.test.ts",
  "test/lib/multipart.test.ts",
  "test/lib/oauth2.test.ts",
  "test/lib/outbound-address.test.ts",
  "test/lib/outbound-errors.test.ts",
  "test/lib/outbound-retry.test.ts",
  "test/lib/pagination.test.ts",
  "test/lib/raw-json.test.ts",
  "test/lib/redact.test.ts",
  "test/lib/regex.test.ts",
  "test/lib/sequence.test.ts",
  "test/lib/smart-values-pipe.test.ts",
  "test/lib/smart-values-registry.test.ts",
  "test/lib/smart-values.test.ts",
  "test/lib/validate.test.ts",
  "test/openapi/document.test.ts",
  "test/query/filter.test.ts",
  "test/workflows/action-types.test.ts",
  "test/workflows/cron-expression.test.ts",
  "test/workflows/engine-retry.test.ts",
  "test/workflows/run-admission.test.ts",
  "test/workflows/upsert-result.test.ts",
  "test/workflows/webhook-signature.test.ts",
];

export default defineConfig({
  test: {
    // scripts/build-host.mjs first: the Worker imports the built host SDK (host/dist/v1.txt).
    globalSetup: ["./scripts/build-host.mjs", "./test/support/global-setup.ts"],
    // vitest's default is one file at a time on a 2-core machine (cores - 1),
    // but a file mostly waits (Postgres, its Worker, alarms): two at once cut
    // the run by a third there; three made timing-bound tests fail.
    maxWorkers: 2,
    projects: [
      workers("units", UNITS, [], { ip: "1000000", identity: "1000000" }, { isolate: false }),
      workers(
        "workers",
        ["test/**/*.test.ts"],
        ["test/e2e/**", "test/gateway/rate-limit.test.ts", "test/workflows/webhook-rate-limit.test.ts", "test/db/statement-timeout.test.ts", ...UNITS],
        { ip: "1000000", identity: "1000000" },
      ),
      workers("rate-limits", ["test/gateway/rate-limit.test.ts", "test/workflows/webhook-rate-limit.test.ts"], [], { ip: "8", identity: "3" }),
      // A statement_timeout short enough to hit without slowing the run.
      workers(
        "statement-limits",
        ["test/db/statement-timeout.test.ts"],
        [],
        { ip: "1000000", identity: "1000000" },
        { extra: { STATEMENT_TIMEOUT_MS: "300" } },
      ),
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 180_000, hookTimeout: 180_000 } },
    ],
  },
});
