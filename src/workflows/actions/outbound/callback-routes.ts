// `POST /workflows/callbacks/{token}`: where an `httpCallback`'s target
// answers. The signed token is the only credential: it names the tenant, the
// run, the action and its attempt. The body (parsed JSON for a JSON content
// type, else text) and the headers are handed to the run's object, which
// executes the waiting action again with them.
import { route } from "../../../gateway/route";
import { dataEnvelope, freeFormObject } from "../../../lib/schemas";
import { ApiError } from "../../../lib/errors";
import { guardJson } from "../../../lib/input-guard";
import { runClient } from "../../runs/run-client";
import { parsedBody } from "../../triggers/webhook";
import { callbackToken } from "./callback-link";
import type { CallbackDelivery } from "./http-callback";

export const callbackRoutes = [
  route({
    operation: "answerCallback",
    method: "post",
    path: "/workflows/callbacks/:token",
    tag: "workflows",
    summary: "Answer an httpCallback action: the signed URL it sent as X-Callback-Url",
    auth: callbackToken,
    params: { token: { type: "string", minLength: 1, maxLength: 2000, description: "The signed token of the callback URL" } },
    documentedRequest: {
      content: { "application/json": { schema: freeFormObject }, "text/plain": { schema: { type: "string" } as const } },
    },
    responses: {
      202: {
        description: "Accepted: the waiting action has its callback and the run goes on",
        schema: dataEnvelope({ type: "object", required: ["accepted"], properties: { accepted: { const: true } } }),
      },
      400: { description: "A JSON content type with a body that is not JSON" },
      401: { description: "The URL is malformed, wrongly signed or expired" },
      404: { description: "The run or its action is unknown" },
      409: { description: "The action is not waiting for this callback (already answered, superseded by a later attempt, or the run finished)" },
    },
    handler: async (c, { auth: claim }) => {
      const body = parsedBody(c.req.header("Content-Type"), new Uint8Array(await c.req.arrayBuffer()));
      const headers = Object.fromEntries(c.req.raw.headers);
      guardJson(headers, { message: "The callback's headers cannot be stored" });
      const delivery: CallbackDelivery = { body, headers };
      const refused = await runClient(c.env).deliver({ tenantId: claim.tenantId, runId: claim.runId }, claim.key, claim.attempt, delivery);
      if (refused) throw ApiError.of(refused);
      return c.json({ data: { accepted: true } }, 202);
    },
  }),
];
