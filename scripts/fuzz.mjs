// `npm run fuzz [-- --runs N] [--seed S]`: the hostile-input test of `npm test`
// (test/hardening/fuzz.test.ts) with many more requests, 3000 by default, and
// optionally another seed. FUZZ_RUNS and FUZZ_SEED reach the test's Worker as
// bindings (vitest.config.ts).
//
// The runs go in batches of at most 1000, each a vitest run of its own with
// its own seed: @cloudflare/vitest-pool-workers wraps an entrypoint's
// prototype in one more Proxy for every instance it constructs, so after
// about 1,700 requests in one isolate every SELF.fetch fails with "Maximum
// call stack size exceeded" whatever the Worker does. Exits non-zero if any
// batch failed.
import { spawnSync } from "node:child_process";

const BATCH = 1000;

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};

const runs = option("runs") ?? process.env.FUZZ_RUNS ?? "3000";
const seed = option("seed") ?? process.env.FUZZ_SEED ?? "20260101";
for (const [name, value] of [
  ["runs", runs],
  ["seed", seed],
]) {
  if (!/^\d+$/.test(value)) {
    console.error(`--${name} must be a whole number, got ${value}`);
    process.exit(2);
  }
}

let failed = false;
const batches = Math.ceil(Number(runs) / BATCH);
for (let i = 0; i < batches; i++) {
  const batchRuns = Math.min(BATCH, Number(runs) - i * BATCH);
  // Each operation's test uses seed + its index, so batches step well past the operation count.
  const batchSeed = Number(seed) + i * 1000;
  console.log(`fuzz batch ${i + 1}/${batches}: FUZZ_RUNS=${batchRuns} FUZZ_SEED=${batchSeed}`);
  const { status } = spawnSync("npx", ["vitest", "run", "--project", "workers", "test/hardening/fuzz.test.ts"], {
    stdio: "inherit",
    env: { ...process.env, FUZZ_RUNS: String(batchRuns), FUZZ_SEED: String(batchSeed) },
  });
  if (status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
