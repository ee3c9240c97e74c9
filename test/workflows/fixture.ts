// Workflow test fixtures: definitions and activations made through the API.
import { call, type TenantCreds } from "../support/api";

/** A definition with one inline job and a manual (unverified webhook) trigger. */
export function minimalDefinition(extra: Record<string, unknown> = {}) {
  return {
    jobs: [{ id: "a", actions: [{ name: "pipe", config: {} }] }],
    triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
    ...extra,
  };
}

export async function createWorkflow(creds: TenantCreds, definition_json: object, name = `wf-${crypto.randomUUID().slice(0, 8)}`): Promise<{ id: string }> {
  const res = await call("POST", "/definition/workflows", { auth: creds.auth, body: { name, definition_json } });
  if (res.status !== 201) throw new Error(`creating workflow ${name}: ${res.status} ${res.text}`);
  return res.json.data;
}

export interface ActivationAnswer {
  workflow_id: string;
  status: "active";
  version: number;
  env: Record<string, unknown>;
  job_bindings: Record<string, string>;
  policy_id: string | null;
  required_permissions: string[];
  warnings: string[];
  triggers: { id: string; trigger_id: string; type: "event" | "cron" | "webhook"; enabled: boolean; webhook_url?: string; config_status: string }[];
}

export async function activateWorkflow(
  creds: TenantCreds,
  workflowId: string,
  body: { env?: object; job_bindings?: object; policy_id?: string | null } = {},
): Promise<ActivationAnswer> {
  const res = await call("POST", `/workflows/${workflowId}/activate`, { auth: creds.auth, body });
  if (res.status !== 200) throw new Error(`activating workflow ${workflowId}: ${res.status} ${res.text}`);
  return res.json.data;
}

/** Creates and activates a definition; answers the workflow id and the activation. */
export async function activeWorkflow(creds: TenantCreds, definition_json: object, body?: Parameters<typeof activateWorkflow>[2]) {
  const { id } = await createWorkflow(creds, definition_json);
  return { id, activation: await activateWorkflow(creds, id, body) };
}
