// What the archive and PDF action tests share: temp files uploaded and
// downloaded through the REST API, and one action run for real (dispatched,
// walked by its object, read back through the runs API).
import { expect } from "vitest";
import { BASE, call, systemQuery, type TenantCreds } from "../support/api";
import { fetchUrl } from "../entity/files-support";
import { policyGranting } from "./actions-support";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

/** What the temp-file actions need: reading and making temp files. */
export const TEMP_FILES = ["entity:read", "entity:create"];

export async function upload(t: TenantCreds, name: string, bytes: Uint8Array, contentType = "application/octet-stream"): Promise<string> {
  const res = await call("POST", "/entity/temp-files", { auth: t.auth, rawBody: bytes, headers: { "X-Temp-File-Name": name, "Content-Type": contentType } });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id;
}

export async function download(t: TenantCreds, id: string): Promise<Uint8Array> {
  const res = await fetchUrl(`${BASE}/entity/temp-files/${id}`, { headers: { Authorization: t.auth } });
  expect(res.status).toBe(200);
  return res.bytes;
}

export const tempFileCount = async (t: TenantCreds) =>
  Number((await systemQuery("SELECT count(*) AS n FROM temp_files WHERE tenant_id = $1", [t.tenantId]))[0].n);

/**
 * Runs one action `name` with `config` under a policy granting `permissions`;
 * answers the finished run, the action's run record and the step's output.
 */
export async function runStep(t: TenantCreds, name: string, config: unknown, permissions = TEMP_FILES) {
  const policy = await policyGranting(t, permissions);
  const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "s", name, config }] }], {}, { policy_id: policy });
  const run = await runRecord(t, await dispatched(t, id));
  return { run, action: run.job_runs[0].action_runs[0], result: run.outputs?.a?.s };
}

/** The step's result, failing with the run record when the run did not succeed. */
export async function succeeded(t: TenantCreds, name: string, config: unknown): Promise<any> {
  const { run, result } = await runStep(t, name, config);
  expect(run.status, JSON.stringify(run.job_runs?.[0]?.action_runs)).toBe("success");
  return result;
}

/** The action's error, failing when the run did not end in error. */
export async function failed(
  t: TenantCreds,
  name: string,
  config: unknown,
  permissions = TEMP_FILES,
): Promise<{ status: number; code: string; message: string; details: any }> {
  const { run, action } = await runStep(t, name, config, permissions);
  expect([run.status, action.status], JSON.stringify(run.outputs)).toEqual(["error", "error"]);
  return action.error;
}
