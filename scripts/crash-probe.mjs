// `npm run crash-probe -- [--kill workerd|group] [--runs 150] [--actions 5] [--delay-ms 2000]`:
// what an operator sees when the service dies with runs in flight. Starts
// `npm run dev` on a free port with its own data folder and a slow local
// target (OUTBOUND_ALLOWLIST), dispatches runs of sequential `http` POSTs,
// kills the service while requests are open (workerd alone, or dev's whole
// process group with Postgres), checks that nothing dev started survives,
// starts dev again on the same data and waits until every run ended. Prints
// the figures as JSON: runs caught mid-action, the time from the restart
// until every run ended, deliveries per action and their keys, the final
// statuses, and the attempts the records show for what was sent twice.
import { execFile, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { freePort } from "./lib/postgres.mjs";
import { root } from "./lib/paths.mjs";
import { alive, processes, processTree, sameProcess, workerdOf } from "./lib/processes.mjs";

const { values: opts } = parseArgs({
  options: {
    kill: { type: "string", default: "workerd" },
    runs: { type: "string", default: "150" },
    actions: { type: "string", default: "5" },
    "delay-ms": { type: "string", default: "2000" },
  },
});
if (!["workerd", "group"].includes(opts.kill)) throw new Error(`--kill is workerd or group, got ${opts.kill}`);
const RUNS = Number(opts.runs);
const ACTIONS = Number(opts.actions);
const DELAY_MS = Number(opts["delay-ms"]);
const END_TIMEOUT_MS = 15 * 60_000;
const log = (msg) => process.stderr.write(`[probe] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check, timeoutMs, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(intervalMs);
  }
  return check();
}

/** The slow target: each POST is answered DELAY_MS after it arrived; every delivery is kept. */
const deliveries = [];
let open = 0;
const target = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    let parsed = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      // counted under an empty run id
    }
    deliveries.push({ run: parsed.run ?? "", step: parsed.step ?? 0, key: req.headers["idempotency-key"] ?? null, at: Date.now() });
    open++;
    setTimeout(() => {
      open--;
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
    }, DELAY_MS);
  });
});
await new Promise((r) => target.listen(0, "127.0.0.1", r));
const targetPort = target.address().port;

mkdirSync(join(root, ".data"), { recursive: true });
const dataDir = mkdtempSync(join(root, ".data", "probe-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  INSPECTOR_PORT: String(await freePort()),
  DEV_DATA_DIR: dataDir,
  OUTBOUND_ALLOWLIST: `127.0.0.1:${targetPort}`,
};
delete env.DATABASE_URL;

let output = "";
// dev's whole output, both starts, kept beside the data for a look afterwards (the data folder goes).
const logFile = join(root, ".data", `${dataDir.split("/").pop()}.log`);
function startDev() {
  const child = spawn(process.execPath, ["scripts/dev.mjs"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk) => {
    appendFileSync(logFile, chunk);
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  return child;
}
async function ready(child) {
  const ok = await waitFor(async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm run dev exited early:\n${output}`);
    try {
      return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) })).status === 200;
    } catch {
      return false;
    }
  }, 180_000);
  if (!ok) throw new Error(`npm run dev did not answer /healthz:\n${output}`);
}

let dev = startDev();
try {
  await ready(dev);
  const { stdout } = await promisify(execFile)(process.execPath, ["scripts/tenant-create.mjs", "--name", "probe"], { cwd: root, env, timeout: 60_000 });
  const creds = JSON.parse(stdout);
  const headers = { Authorization: `Basic ${Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString("base64")}`, "Content-Type": "application/json" };
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };

  const workflow = await call("POST", "/definition/workflows", {
    name: "crash-probe",
    definition_json: {
      triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
      jobs: [
        {
          id: "calls",
          input: { run: "{{ context.run.id }}" },
          actions: Array.from({ length: ACTIONS }, (_, i) => ({
            stepId: `a${i + 1}`,
            name: "http",
            config: {
              url: `http://127.0.0.1:${targetPort}/a${i + 1}`,
              method: "POST",
              body: { run: "{{ input.run }}", step: i + 1 },
              timeoutMs: DELAY_MS * 10,
            },
          })),
        },
      ],
    },
  });
  await call("POST", `/workflows/${workflow.id}/activate`, {});
  const runIds = [];
  for (let i = 0; i < RUNS; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, RUNS - i) }, () => call("POST", "/workflows/wr", { workflow_id: workflow.id, trigger_id: "manual", input: {} })),
    );
    runIds.push(...batch.map((d) => d.workflow_run.id));
  }
  log(`dispatched ${runIds.length} runs of ${ACTIONS} POSTs (${DELAY_MS} ms each)`);

  // Kill once most runs have a request open, half way through the run.
  await waitFor(() => open >= RUNS * 0.5 && deliveries.length >= (RUNS * ACTIONS) / 2, 120_000, 50);
  const inFlight = new Set(deliveries.filter((d) => Date.now() - d.at < DELAY_MS).map((d) => d.run));
  const finishedBefore = new Set(deliveries.filter((d) => d.step === ACTIONS && Date.now() - d.at >= DELAY_MS).map((d) => d.run)).size;
  const tree = await processTree(dev.pid);
  const killedAt = Date.now();
  if (opts.kill === "workerd") for (const p of workerdOf(tree)) process.kill(p.pid, "SIGKILL");
  else process.kill(-dev.pid, "SIGKILL");
  log(`killed ${opts.kill} with ${inFlight.size} runs mid-action (${deliveries.length} deliveries so far)`);
  const exit = await Promise.race([dev.exited, sleep(30_000).then(() => null)]);
  const survivorsOf = async () => (await processes()).filter((p) => alive(p) && (tree.some((q) => sameProcess(p, q)) || p.args.includes(join(dataDir, "pg"))));
  await waitFor(async () => (await survivorsOf()).length === 0, 15_000);
  const survivors = (await survivorsOf()).map((p) => `${p.pid} ${p.args}`);
  for (const p of await survivorsOf()) process.kill(p.pid, "SIGKILL");
  const deliveredWhileDown = deliveries.filter((d) => d.at > killedAt).length;

  const restartAt = Date.now();
  dev = startDev();
  await ready(dev);
  const readyAt = Date.now();
  let statuses = {};
  let runs = [];
  const ended = await waitFor(
    async () => {
      statuses = {};
      runs = await call("GET", `/workflows/runs/workflows?workflow_id=${workflow.id}&limit=1000`).catch(() => []);
      for (const r of runs) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      return runs.length === RUNS && !runs.some((r) => r.status === "pending" || r.status === "running");
    },
    END_TIMEOUT_MS,
    500,
  );
  const endedAt = Date.now();
  // When the runs caught by the kill ended, and when the target heard from the restarted service first.
  const afterRestart = (ms) => (ms === undefined ? null : Math.round(ms - restartAt));
  const finished = runs
    .map((r) => Date.parse(r.finished_at))
    .filter((t) => t > restartAt)
    .sort((a, b) => a - b);
  const quantile = (q) => afterRestart(finished[Math.min(finished.length - 1, Math.floor(q * finished.length))]);
  const firstResend = deliveries.find((d) => d.at > restartAt)?.at;

  const perAction = new Map();
  for (const d of deliveries) {
    const k = `${d.run}/${d.step}`;
    perAction.set(k, [...(perAction.get(k) ?? []), d]);
  }
  const counts = {};
  for (const list of perAction.values()) counts[list.length] = (counts[list.length] ?? 0) + 1;
  const duplicated = [...perAction.entries()].filter(([, list]) => list.length > 1);
  const oneKey = duplicated.filter(([, list]) => list.every((d) => d.key && d.key === list[0].key)).length;
  // What the records say of the first few actions sent twice.
  const attempts = {};
  for (const [k] of duplicated.slice(0, 20)) {
    const [run, step] = k.split("/");
    const record = await call("GET", `/workflows/runs/workflows/${run}`);
    const action = record.job_runs.flatMap((j) => j.action_runs).find((a) => a.step_id === `a${step}`);
    attempts[action?.attempts ?? "missing"] = (attempts[action?.attempts ?? "missing"] ?? 0) + 1;
  }
  // The run that ended last, as its record tells it: each status an action reached, ms after the restart.
  const last = runs.reduce((a, r) => (a === undefined || Date.parse(r.finished_at) > Date.parse(a.finished_at) ? r : a), undefined);
  const lastRecord = last && (await call("GET", `/workflows/runs/workflows/${last.id}`));
  const lastRunLog = lastRecord?.job_runs.flatMap((j) => j.action_log.map((l) => `${l.step_id} ${l.status} ${Date.parse(l.at) - restartAt}`));
  const missing = [...Array(ACTIONS).keys()].flatMap((i) => runIds.filter((id) => !perAction.has(`${id}/${i + 1}`)).map((id) => `${id}/${i + 1}`));

  console.log(
    JSON.stringify(
      {
        kill: opts.kill,
        runs: RUNS,
        actions_per_run: ACTIONS,
        delay_ms: DELAY_MS,
        runs_mid_action_at_kill: inFlight.size,
        runs_finished_before_kill: finishedBefore,
        dev_exit_after_kill: exit,
        survivors_after_kill: survivors,
        deliveries_while_down: deliveredWhileDown,
        restart_to_ready_ms: readyAt - restartAt,
        restart_to_all_ended_ms: ended ? endedAt - restartAt : null,
        restart_to_first_delivery_ms: afterRestart(firstResend),
        runs_ended_after_restart: finished.length,
        runs_ended_over_60s_after_restart: finished.filter((t) => t - restartAt > 60_000).length,
        restart_to_run_end_ms: { p50: quantile(0.5), p90: quantile(0.9), max: afterRestart(finished.at(-1)) },
        final_statuses: statuses,
        deliveries_per_action: counts,
        actions_never_delivered: missing.length,
        duplicated_actions: duplicated.length,
        duplicated_with_one_key: oneKey,
        recorded_attempts_of_duplicated: attempts,
        last_run_action_log_ms_after_restart: lastRunLog,
        last_run_deliveries_ms_after_restart: last ? deliveries.filter((d) => d.run === last.id).map((d) => `a${d.step} ${d.at - restartAt}`) : [],
        dev_log: logFile,
      },
      null,
      2,
    ),
  );
  if (!ended) process.exitCode = 1;
} catch (e) {
  console.error(e);
  console.error(`--- npm run dev output ---\n${output}`);
  process.exitCode = 1;
} finally {
  try {
    process.kill(-dev.pid, "SIGTERM");
    await Promise.race([dev.exited, sleep(30_000)]);
  } catch {
    // gone already
  }
  target.close();
  target.closeAllConnections();
  rmSync(dataDir, { recursive: true, force: true });
}
