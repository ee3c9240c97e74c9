// Webhook triggers: the public entry a sender calls, and the secret it signs with.
import { route, type Method, type RouteSpec } from "../../gateway/route";
import { dataEnvelope, freeFormObject, uuidSchema } from "../../lib/schemas";
import { rotateWebhookSecret } from "./webhook-secret";
import { startWebhookRun, webhookSignature } from "./webhook";

const runAccepted = dataEnvelope({
  type: "object",
  required: ["workflow_run"],
  properties: { workflow_run: { type: "object", required: ["id"], properties: { id: uuidSchema } } },
});

const hookResponses = {
  200: {
    description:
      "A challenge answered: the value of the challenge's query parameter, as text or as `{ <queryParam>: <value> }` for a JSON response type (the content type is the challenge's `responseType`)",
    contentType: "text/plain",
    schema: { type: "string" } as const,
  },
  202: { description: "Accepted: a run of the workflow is pending (or, for a repeated idempotency key, the run it already started)", schema: runAccepted },
  400: { description: "A JSON content type with a body that is not JSON" },
  401: { description: "The signature is missing or does not verify, or no secret has been minted for a trigger that verifies" },
  404: { description: "No enabled webhook trigger of an active workflow has this id" },
  405: { description: "The trigger does not accept this method; `Allow` lists those it does" },
  429: { description: "The trigger's own budget of calls is spent" },
};

/** Any body: parsed for a JSON content type, kept as text otherwise. */
const hookBody = {
  content: {
    "application/json": { schema: freeFormObject },
    "text/plain": { schema: { type: "string" } as const },
  },
};

/** GET answers challenges; each trigger declares which methods start runs, so every method is routed here. */
const HOOK_METHODS: Method[] = ["post", "get", "put", "patch", "delete"];

export const webhookRoutes: RouteSpec[] = [
  ...HOOK_METHODS.map((method) =>
    route({
      operation: `callWebhook${method[0].toUpperCase()}${method.slice(1)}`,
      method,
      path: "/workflows/hooks/:triggerId",
      tag: "workflows",
      summary: `Call a webhook trigger (${method.toUpperCase()})`,
      auth: webhookSignature,
      params: { triggerId: uuidSchema },
      ...(method === "get" ? {} : { documentedRequest: hookBody }),
      responses: hookResponses,
      handler: (c, { auth: call }) => ("handshake" in call ? call.handshake : startWebhookRun(c, call)),
    }),
  ),
  route({
    operation: "rotateWebhookSecret",
    method: "post",
    path: "/workflows/:id/triggers/:triggerId/secret",
    tag: "workflows",
    summary: "Mint a webhook trigger's signing secret, replacing any earlier one at once (answered only here, once)",
    permission: ["workflow", "update"],
    params: { id: uuidSchema, triggerId: { type: "string", minLength: 1, maxLength: 200, description: "The definition's trigger id or the trigger's uuid" } },
    responses: {
      201: {
        description: "The new secret",
        schema: dataEnvelope({
          type: "object",
          required: ["secret"],
          properties: { secret: { type: "string", pattern: "^whsec_", examples: ["whsec_3q2-7wEAAAAB9kd8Zx0qLw"] } },
        }),
      },
      404: { description: "No such trigger in the workflow, or it declares no verification" },
    },
    handler: async (c, { params }) => {
      const secret = await rotateWebhookSecret(c.var.ctx.tenant, c.var.ctx.secret, params.id, params.triggerId);
      return c.json({ data: { secret } }, 201);
    },
  }),
];
