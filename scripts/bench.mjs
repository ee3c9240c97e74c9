// `npm run bench -- <suite> [--json]`: starts what it needs (like `npm test`),
// runs the suite, prints its figures, stops everything.
// Each figure: { figure, value, unit, raw, ratio } where ratio is our cost
// divided by the baseline's cost for the same work (1.0 = as fast as the
// baseline): raw SQL on the same database, or where a suite's header says so
// another baseline (a direct fetch from a bare Worker, the REST import).
import { writeFileSync } from "node:fs";
import { startBenchEnv } from "./lib/bench-env.mjs";

const SUITES = {
  upsert: () => import("./bench/upsert.mjs"),
  query: () => import("./bench/query.mjs"),
  files: () => import("./bench/files.mjs"),
  triggers: () => import("./bench/triggers.mjs"),
  runs: () => import("./bench/runs.mjs"),
  http: () => import("./bench/http.mjs"),
  actions: () => import("./bench/actions.mjs"),
  apps: () => import("./bench/apps.mjs"),
  edge: () => import("./bench/edge.mjs"),
  host: () => import("./bench/host.mjs"),
};

const args = process.argv.slice(2);
const json = args.includes("--json");
const names = args.filter((a) => !a.startsWith("--"));
const selected = names.length ? names : Object.keys(SUITES);
for (const name of selected) {
  if (!SUITES[name]) {
    console.error(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(", ")}`);
    process.exit(2);
  }
}

const log = (msg) => process.stderr.write(`${msg}\n`);
const suites = [];
for (const name of selected) suites.push(await SUITES[name]());
// A suite may serve something the Worker calls (`vars()` starts it and
// answers the Worker vars it needs, such as OUTBOUND_ALLOWLIST).
const vars = {};
for (const suite of suites) Object.assign(vars, await suite.vars?.());
const env = await startBenchEnv({ vars });
// BENCH_CPU_PROFILE=<file>: a CPU profile of the Worker's isolate over the whole run (set-up included), for DevTools.
const profile = process.env.BENCH_CPU_PROFILE;
let failed = false;
try {
  if (profile) await env.heap.startCpuProfile();
  for (const suite of suites) {
    const figures = await suite.run(env, log);
    for (const f of figures) {
      if (json) process.stdout.write(JSON.stringify(f) + "\n");
      else {
        const { figure: n, value, unit, raw, ratio, ...rest } = f;
        const extra = Object.entries(rest)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ");
        console.log(
          `${n.padEnd(28)} ${String(value).padStart(12)} ${unit.padEnd(8)} raw ${String(raw ?? "-").padStart(10)}  ratio ${String(ratio ?? "-").padStart(5)}  ${extra}`,
        );
      }
    }
  }
  if (profile) writeFileSync(profile, JSON.stringify(await env.heap.stopCpuProfile()));
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await env.stop();
}
process.exit(failed ? 1 : 0);
