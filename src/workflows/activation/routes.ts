// /workflows/*: activation, config, trigger toggles and direct dispatch.
import { route, type RouteSpec } from "../../lib/route";
import { dataEnvelope, uuidSchema } from "../../lib/schemas";
import { activateWorkflow, configureWorkflow, triggerView } from "./activate";
import { setTriggerEnabled } from "./triggers";
import { dispatchRun } from "../dispatch";
import { kickRuns } from "../runs/run-client";
import { systemClock } from "../../lib/clock";

const ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]*$";
const STEP_ID = "^[^\\u0000]{1,200}$";

const envPatch = {
  type: "object",
  description: "Merged into the stored env: a key set sets, null unsets, unmentioned keys keep their value",
  propertyNames: { pattern: ENV_NAME, maxLength: 200 },
  additionalProperties: true,
  maxProperties: 200,
} as const;

const bindingsPatch = {
  type: "object",
  description: "Job step id → job definition id; merged like env (null unbinds)",
  propertyNames: { pattern: STEP_ID },
  additionalProperties: { anyOf: [uuidSchema, { type: "null" }] },
  maxProperties: 200,
} as const;

const triggerItem = {
  type: "object",
  required: ["id", "trigger_id", "type", "enabled", "config_status"],
  properties: {
    id: { type: "string", description: "The definition's trigger id" },
    trigger_id: { type: "string", description: "The trigger row's uuid, stable across re-activations" },
    type: { enum: ["event", "cron", "webhook"] },
    enabled: { type: "boolean" },
    webhook_url: { type: "string", description: "Webhook triggers: the absolute URL senders call" },
    config_status: { enum: ["ready", "secret_missing"], description: "secret_missing: a verified webhook without a minted secret" },
  },
} as const;

const activation = {
  type: "object",
  required: ["workflow_id", "status", "version", "env", "job_bindings", "policy_id", "triggers"],
  properties: {
    workflow_id: { type: "string" },
    status: { const: "active" },
    version: { type: "integer", description: "The definition version runs follow" },
    env: { type: "object", additionalProperties: true, description: "Effective env: the definition's defaults with the stored values over them; secret references as written" },
    job_bindings: { type: "object", additionalProperties: { type: "string" }, description: "Job step id → job definition id" },
    policy_id: { type: ["string", "null"] },
    triggers: { type: "array", items: triggerItem },
  },
} as const;

const idParams = { id: uuidSchema } as const;
const triggerParams = { id: uuidSchema, triggerId: { type: "string", minLength: 1, maxLength: 200 } } as const;

function toggle(enabled: boolean): RouteSpec {
  return route({
    method: "put",
    path: `/workflows/:id/triggers/:triggerId/${enabled ? "enable" : "disable"}`,
    tag: "workflows",
    summary: `${enabled ? "Enable" : "Disable"} a trigger (by its definition id or uuid); no re-activation needed`,
    permission: ["workflow", "update"],
    params: triggerParams,
    responses: { 200: { description: "The trigger", schema: dataEnvelope(triggerItem) } },
    handler: async (c, { params }) => {
      const row = await c.var.ctx.tenant.tx((sql) => setTriggerEnabled(sql, params.id, params.triggerId, enabled, new Date(systemClock.now())));
      return c.json({ data: triggerView(row, c.var.ctx.origin) });
    },
  });
}

export const activationRoutes: RouteSpec[] = [
  route({
    method: "post",
    path: "/workflows/wr",
    tag: "workflows",
    summary: "Dispatch a run directly through a webhook or cron trigger",
    permission: ["workflow", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["workflow_id", "trigger_id"],
      properties: {
        workflow_id: uuidSchema,
        trigger_id: { type: "string", minLength: 1, maxLength: 200, description: "The definition's trigger id (for example `manual`)" },
        input: { description: "The run's `context.input`; `{}` when left out" },
      },
    },
    responses: {
      202: {
        description: "A pending run was created (or, for a repeated idempotency key, the earlier run is answered)",
        schema: dataEnvelope({
          type: "object",
          required: ["workflow_run"],
          properties: { workflow_run: { type: "object", required: ["id", "status"], properties: { id: { type: "string" }, status: { type: "string" } } } },
        }),
      },
    },
    handler: async (c, { body }) => {
      const run = await dispatchRun(c.var.ctx.tenant, body);
      // Committed: its object starts it once the caller has its answer (a lost kick is the sweep's).
      if (run.created) c.executionCtx.waitUntil(kickRuns(c.env, [{ tenantId: c.var.ctx.tenant.tenantId, runId: run.id }]));
      return c.json({ data: { workflow_run: { id: run.id, status: run.status } } }, 202);
    },
  }),
  route({
    method: "post",
    path: "/workflows/:id/activate",
    tag: "workflows",
    summary: "Activate a workflow definition (idempotent): env merged, jobs and policy bound, triggers and schedules reconciled",
    permission: ["workflow", "update"],
    params: idParams,
    bodyOptional: true,
    body: {
      type: "object",
      additionalProperties: false,
      properties: {
        env: envPatch,
        job_bindings: bindingsPatch,
        policy_id: { anyOf: [uuidSchema, { type: "null" }], description: "The access policy every run acts with; null unbinds; left out keeps the bound one" },
      },
    },
    responses: { 200: { description: "The activation", schema: dataEnvelope(activation) } },
    handler: async (c, { params, body }) =>
      c.json({ data: await activateWorkflow(c.var.ctx.tenant, c.var.ctx.principal, params.id, body, c.var.ctx.origin, new Date(systemClock.now())) }),
  }),
  route({
    method: "put",
    path: "/workflows/:id/config",
    tag: "workflows",
    summary: "Change an activated workflow's env and job bindings",
    permission: ["workflow", "update"],
    params: idParams,
    body: { type: "object", additionalProperties: false, minProperties: 1, properties: { env: envPatch, job_bindings: bindingsPatch } },
    responses: { 200: { description: "The activation", schema: dataEnvelope(activation) } },
    handler: async (c, { params, body }) => c.json({ data: await configureWorkflow(c.var.ctx.tenant, params.id, body, c.var.ctx.origin) }),
  }),
  toggle(true),
  toggle(false),
];
