// /workflows/*: activation, config, trigger toggles and direct dispatch.
import { route, type RouteSpec } from "../../gateway/route";
import { dataEnvelope } from "../../lib/schemas";
import { activateWorkflow, configureWorkflow, triggerView } from "./activate";
import { setTriggerEnabled } from "./triggers";
import { dispatchRun } from "../dispatch";
import { handOverRuns } from "../runs/run-client";
import { systemClock } from "../../lib/clock";
import { envPatch, bindingsPatch, triggerItem, activation, activationAnswer, idParams, triggerParams, activateBody, dispatchBody } from "./schemas";

function toggle(
  operation: "enableTrigger" | "disableTrigger",
  path: "/workflows/:id/triggers/:triggerId/enable" | "/workflows/:id/triggers/:triggerId/disable",
  enabled: boolean,
): RouteSpec {
  return route({
    operation,
    method: "put",
    path,
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
    operation: "dispatchRun",
    method: "post",
    path: "/workflows/wr",
    tag: "workflows",
    summary: "Dispatch a run directly through a webhook or cron trigger",
    permission: ["workflow", "create"],
    overHttp: true,
    idempotent: true,
    body: dispatchBody,
    responses: {
      202: {
        description: "A pending run was created (or, for a repeated idempotency key, the earlier run is answered)",
        schema: dataEnvelope({
          type: "object",
          required: ["workflow_run"],
          properties: { workflow_run: { type: "object", required: ["id", "status"], properties: { id: { type: "string" }, status: { type: "string" } } } },
        }),
      },
      404: { description: "Unknown workflow_id" },
    },
    handler: async (c, { body }) => {
      const run = await dispatchRun(c.var.ctx.tenant, body);
      if (run.created) await handOverRuns(c.env, c.executionCtx, [{ tenantId: c.var.ctx.tenant.tenantId, runId: run.id }]);
      return c.json({ data: { workflow_run: { id: run.id, status: run.status } } }, 202);
    },
  }),
  route({
    operation: "activateWorkflow",
    method: "post",
    path: "/workflows/:id/activate",
    tag: "workflows",
    summary:
      "Activate a workflow definition (idempotent): env merged, jobs and policy bound (without policy_id, the workflow's own provisioned with what its actions need), triggers and schedules reconciled",
    permission: ["workflow", "update"],
    params: idParams,
    bodyOptional: true,
    body: activateBody,
    responses: { 200: { description: "The activation", schema: dataEnvelope(activationAnswer) } },
    handler: async (c, { params, body }) =>
      c.json({ data: await activateWorkflow(c.var.ctx.tenant, c.var.ctx.principal, params.id, body, c.var.ctx.origin, new Date(systemClock.now())) }),
  }),
  route({
    operation: "configureWorkflow",
    method: "put",
    path: "/workflows/:id/config",
    tag: "workflows",
    summary: "Change an activated workflow's env and job bindings",
    permission: ["workflow", "update"],
    params: idParams,
    body: { type: "object", additionalProperties: false, minProperties: 1, properties: { env: envPatch, job_bindings: bindingsPatch } },
    responses: {
      200: { description: "The activation", schema: dataEnvelope(activation) },
      409: { description: "The workflow is not activated; activate it first" },
    },
    handler: async (c, { params, body }) => c.json({ data: await configureWorkflow(c.var.ctx.tenant, params.id, body, c.var.ctx.origin) }),
  }),
  toggle("enableTrigger", "/workflows/:id/triggers/:triggerId/enable", true),
  toggle("disableTrigger", "/workflows/:id/triggers/:triggerId/disable", false),
];
