// Request and response schemas of workflows/activation: the routes validate with them and
// document them, and service input types are derived from them.
import { uuidSchema } from "../../lib/schemas";

const ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]*$";
const STEP_ID = "^[^\\u0000]{1,200}$";

export const envPatch = {
  type: "object",
  description: "Merged into the stored env: a key set sets, null unsets, unmentioned keys keep their value",
  propertyNames: { pattern: ENV_NAME, maxLength: 200 },
  additionalProperties: true,
  maxProperties: 200,
} as const;

export const bindingsPatch = {
  type: "object",
  description: "Job step id → job definition id; merged like env (null unbinds)",
  propertyNames: { pattern: STEP_ID },
  additionalProperties: { anyOf: [uuidSchema, { type: "null" }] },
  maxProperties: 200,
} as const;

export const triggerItem = {
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

export const activation = {
  type: "object",
  required: ["workflow_id", "status", "version", "env", "job_bindings", "policy_id", "triggers"],
  properties: {
    workflow_id: { type: "string" },
    status: { const: "active" },
    version: { type: "integer", description: "The definition version runs follow" },
    env: {
      type: "object",
      additionalProperties: true,
      description: "Effective env: the definition's defaults with the stored values over them; secret references as written",
    },
    job_bindings: { type: "object", additionalProperties: { type: "string" }, description: "Job step id → job definition id" },
    policy_id: { type: ["string", "null"] },
    triggers: { type: "array", items: triggerItem },
  },
} as const;

/** What activation answers: the activation, and what its runs need of their policy. */
export const activationAnswer = {
  ...activation,
  required: [...activation.required, "required_permissions", "warnings"],
  properties: {
    ...activation.properties,
    required_permissions: {
      type: "array",
      items: { type: "string" },
      description: "What the definition's actions need, as GET /access/me/permissions writes permissions (`entity:update:Order`, `workflow:create`)",
    },
    warnings: {
      type: "array",
      items: { type: "string" },
      description:
        "Each needed permission the bound policy lacks (runs fail that action with 403), and each reference step bound to no published job (runs fail it with JOB_UNBOUND)",
    },
  },
} as const;

export const idParams = { id: uuidSchema } as const;

export const triggerParams = { id: uuidSchema, triggerId: { type: "string", minLength: 1, maxLength: 200 } } as const;

export const activateBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    env: envPatch,
    job_bindings: bindingsPatch,
    policy_id: {
      anyOf: [uuidSchema, { type: "null" }],
      description:
        "The access policy every run acts with; null unbinds (runs then may do nothing); left out keeps a bound policy, or provisions and reconciles the workflow's own (`workflow:<name>`)",
    },
  },
} as const;

export const dispatchBody = {
  type: "object",
  additionalProperties: false,
  required: ["workflow_id", "trigger_id"],
  properties: {
    workflow_id: uuidSchema,
    trigger_id: { type: "string", minLength: 1, maxLength: 200, description: "The definition's trigger id (for example `manual`)" },
    input: { description: "The run's `context.input`; `{}` when left out" },
  },
} as const;
