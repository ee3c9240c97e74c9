import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Limits large enough that no ordinary test meets them; the rate-limit tests
// run in their own project with small ones.
const bindings = (inject: (key: "databaseUrl" | "wsProxy" | "outboundOrigin" | "outboundPort" | "outboundOtherOrigin" | "outboundOtherPort") => string, limits: { ip: string; identity: string }) => ({
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

const workers = (name: string, include: string[], exclude: string[], limits: { ip: string; identity: string }, extra: Record<string, string> = {}) => ({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { ...bindings(inject as never, limits), ...extra },
        // Every write through the gateway still sends to the real events queue; a 50 ms batch
        // timeout (wrangler.toml: 1 s) has its consumer done within the test that wrote. The
        // entry replaces wrangler.toml's whole consumer, so it repeats the other settings.
        queueConsumers: { "entity-events": { maxBatchSize: 10, maxBatchTimeout: 0.05, maxRetries: 10 } },
      },
    })),
  ],
  test: { name, include, exclude, testTimeout: 30_000, hookTimeout: 60_000 },
});

export default defineConfig({
  test: {
    globalSetup: ["./test/support/global-setup.ts"],
    projects: [
      workers("workers", ["test/**/*.test.ts"], ["test/e2e/**", "test/gateway/rate-limit.test.ts", "test/workflows/webhook-rate-limit.test.ts", "test/db/statement-timeout.test.ts"], { ip: "1000000", identity: "1000000" }),
      workers("rate-limits", ["test/gateway/rate-limit.test.ts", "test/workflows/webhook-rate-limit.test.ts"], [], { ip: "8", identity: "3" }),
      // A statement_timeout short enough to hit without slowing the run.
      workers("statement-limits", ["test/db/statement-timeout.test.ts"], [], { ip: "1000000", identity: "1000000" }, { STATEMENT_TIMEOUT_MS: "300" }),
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 180_000, hookTimeout: 180_000 } },
    ],
  },
});
