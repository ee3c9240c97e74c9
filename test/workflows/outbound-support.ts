// Shared by the outbound action tests: a one-job workflow around some
// actions, run through the API, and what its record and the database hold.
import { call, systemQuery, type TenantCreds } from "../support/api";
import { activateWorkflow, createWorkflow } from "./fixture";
import { alarmOf, dispatched, fireAlarmAt, runRecord } from "./orchestrator-support";

export interface RunOf {
  runId: string;
  workflowId: string;
}

/** A workflow whose one job `call` runs `actions` (its input from `input`), activated with `env`, then dispatched with `runInput`. */
export async function runActions(
  t: TenantCreds,
  actions: object[],
  opts: { input?: object; env?: object; auth?: object; configEnv?: object; runInput?: unknown; policy_id?: string | null } = {},
): Promise<RunOf & { run: any }> {
  const definition = {
    ...(opts.auth ? { auth: opts.auth } : {}),
    ...(opts.configEnv ? { config: { env: opts.configEnv } } : {}),
    jobs: [{ id: "call", ...(opts.input ? { input: opts.input } : {}), actions }],
    triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
  };
  const { id } = await createWorkflow(t, definition);
  await activateWorkflow(t, id, { ...(opts.env ? { env: opts.env } : {}), ...(opts.policy_id !== undefined ? { policy_id: opts.policy_id } : {}) });
  const runId = await dispatched(t, id, opts.runInput ?? {});
  return { runId, workflowId: id, run: await runRecord(t, runId) };
}

/** The first action of the first job, as the runs API shows it, with its last log entry's error. */
export function firstAction(run: any) {
  const job = run.job_runs[0];
  return { ...job.action_runs[0], logError: job.action_log.at(-1)?.error ?? null, log: job.action_log };
}

/** Fires the run's alarm at the time it is set for; answers the record after. */
export async function fireDue(t: TenantCreds, runId: string): Promise<any> {
  const at = await alarmOf(runId);
  if (at === null) throw new Error(`run ${runId} has no alarm`);
  await fireAlarmAt(runId, at);
  return runRecord(t, runId);
}

export async function putTenantSecret(t: TenantCreds, name: string, value: string): Promise<void> {
  const res = await call("POST", "/access/secrets", { auth: t.auth, body: { scope: "tenant", name, value } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`secret: ${res.status} ${res.text}`);
}

/** Every stored row of the run (run, job runs, action runs, action log) whose text holds `needle`. */
export async function rowsHolding(runIds: string[], needle: string): Promise<string[]> {
  const like = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const found: string[] = [];
  for (const [table, column] of [
    ["workflow_runs", "id"],
    ["workflow_job_runs", "run_id"],
  ] as const) {
    const rows = await systemQuery(`SELECT id FROM ${table} r WHERE ${column} = ANY($1::uuid[]) AND r::text LIKE $2`, [runIds, like]);
    found.push(...rows.map((r) => `${table}:${r.id}`));
  }
  const actions = await systemQuery(
    `SELECT a.id FROM workflow_action_runs a JOIN workflow_job_runs j ON j.id = a.job_run_id WHERE j.run_id = ANY($1::uuid[]) AND a::text LIKE $2`,
    [runIds, like],
  );
  found.push(...actions.map((r) => `workflow_action_runs:${r.id}`));
  const log = await systemQuery(
    `SELECT l.id FROM workflow_action_log l JOIN workflow_job_runs j ON j.id = l.job_run_id WHERE j.run_id = ANY($1::uuid[]) AND l::text LIKE $2`,
    [runIds, like],
  );
  found.push(...log.map((r) => `workflow_action_log:${r.id}`));
  return found;
}
