// A call to a webhook trigger's URL: find the trigger, answer a challenge,
// check the method and the signature, then start the run. The caller holds no
// credentials, so the trigger's row (with its tenant, its workflow's activated
// version and its sealed secret) is found by one statement outside any
// tenant, and the run is written by one statement after it: each over HTTP,
// one round trip, with no connection to open (db/client.ts).
import type { Context } from "hono";
import type { HonoEnv } from "../../gateway/env";
import { enforce } from "../../gateway/rate-limit";
import { parseJsonBody } from "../../lib/body";
import { ApiError } from "../../lib/errors";
import { guardJson } from "../../lib/input-guard";
import { handOverRuns } from "../runs/run-client";
import { startRun } from "../runs/start";
import { runFor, workflowReachable, type FiringTrigger, type TriggerBlock } from "./fire";
import { verifySignature, type Verification } from "./webhook-signature";
import { openWebhookSecret } from "./webhook-secret";
import type { AuthStrategy } from "../../gateway/route-auth";

/** What a trigger's `webhook` block asks for, read from the activated definition. */
interface WebhookConfig {
  /** Upper case; POST when the block names none. */
  methods: string[];
  verification?: Verification;
  challenge?: { queryParam: string; responseType: string };
}

function webhookConfig(block: TriggerBlock): WebhookConfig {
  const webhook = block.webhook ?? {};
  const methods = Array.isArray(webhook.methods) && webhook.methods.length ? webhook.methods.map((m) => String(m).toUpperCase()) : ["POST"];
  const challenge = webhook.challenge as { enabled?: unknown; queryParam?: unknown; responseType?: unknown } | undefined;
  return {
    methods,
    verification: webhook.verification as Verification | undefined,
    challenge:
      challenge?.enabled === true && typeof challenge.queryParam === "string"
        ? {
            queryParam: challenge.queryParam,
            responseType: typeof challenge.responseType === "string" && MEDIA_TYPE.test(challenge.responseType) ? challenge.responseType : "text/plain",
          }
        : undefined,
  };
}

/** `type/subtype` with optional parameters: what a Content-Type header may carry. */
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/;
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

interface HookRow extends Record<string, unknown> {
  tenant_id: string;
  workflow_id: string;
  key: string;
  definition: TriggerBlock;
  secret_ciphertext: Uint8Array | null;
  version: number;
}

/**
 * An enabled webhook trigger of an activated workflow its tenant may still
 * fire (a revoked share's trigger may not), or undefined: an
 * unknown id, another type of trigger and a disabled one look alike to the caller.
 */
async function findHook(c: Context<HonoEnv>, triggerId: string): Promise<HookRow | undefined> {
  return c.var.ctx.database.lookup(async (sql) => {
    const { rows } = await sql.query<HookRow>(
      `SELECT t.tenant_id, t.workflow_id, t.key, t.definition, t.secret_ciphertext, a.version
         FROM workflow_triggers t
         JOIN workflow_activations a ON a.workflow_id = t.workflow_id AND a.tenant_id = t.tenant_id
        WHERE t.id = $1 AND t.type = 'webhook' AND t.enabled AND ${workflowReachable("t.workflow_id", "t.tenant_id")}`,
      [triggerId],
    );
    return rows[0];
  });
}

/** Header names in lower case, repeated values joined by `, ` (as Headers keeps them). */
function headerRecord(headers: Headers): Record<string, string> {
  return Object.fromEntries(headers);
}

/** One string per parameter; an array where the parameter repeats. */
function queryRecord(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** The body as a run sees it: parsed JSON for a JSON content type (nothing sent reads as null), else the text. */
export function parsedBody(contentType: string | undefined, raw: Uint8Array): unknown {
  const text = new TextDecoder().decode(raw);
  if (contentType && JSON_TYPE.test(contentType)) return text.trim() === "" ? null : parseJsonBody(text);
  guardJson(text, { base: "body" });
  return text;
}

function challengeAnswer(challenge: NonNullable<WebhookConfig["challenge"]>, value: string): Response {
  const body = JSON_TYPE.test(challenge.responseType) ? JSON.stringify({ [challenge.queryParam]: value }) : value;
  return new Response(body, { status: 200, headers: { "Content-Type": challenge.responseType } });
}

function unauthorized(message: string): ApiError {
  return new ApiError("UNAUTHORIZED", message);
}

/** A call that proved itself: the trigger it reached and what it sent; or a handshake, answered before any signature. */
export type WebhookCall =
  | { handshake: Response }
  | { triggerId: string; hook: HookRow; input: { body: unknown; headers: Record<string, string>; query: Record<string, string | string[]>; method: string } };

/**
 * The route authorisation of `/workflows/hooks/{triggerId}`: the trigger's
 * own rate budget, its challenge, its methods and, when it declares
 * verification, the signature over what was sent; its tenant is bound.
 */
export const webhookSignature: AuthStrategy<WebhookCall> = {
  scheme: "signature",
  authenticate: (c, { params }) => verifyWebhookCall(c, params.triggerId),
};

async function verifyWebhookCall(c: Context<HonoEnv>, triggerId: string): Promise<WebhookCall> {
  // Each trigger is its own caller, with its own budget; spent while the trigger is looked up.
  const [found, budget, bytes] = await Promise.allSettled([
    findHook(c, triggerId),
    enforce(c, "identity", `webhook:${triggerId}`, c.var.ctx.config.rateLimitIdentity),
    c.req.arrayBuffer(),
  ]);
  if (found.status === "rejected") throw found.reason;
  const hook = found.value;
  if (!hook) throw new ApiError("NOT_FOUND", `Webhook trigger ${triggerId} not found`, { trigger_id: triggerId });
  if (budget.status === "rejected") throw budget.reason;
  if (bytes.status === "rejected") throw bytes.reason;

  const method = c.req.method;
  const config = webhookConfig(hook.definition);
  const url = new URL(c.req.url);
  // A handshake proves the URL to the sender before any signed call, so it is answered before verification.
  const { challenge } = config;
  const handshake = challenge ? url.searchParams.get(challenge.queryParam) : null;
  if (challenge && handshake !== null && (method === "GET" || method === "POST")) return { handshake: challengeAnswer(challenge, handshake) };
  if (!config.methods.includes(method)) {
    const allowed = [...new Set([...config.methods, ...(challenge ? ["GET"] : [])])];
    throw new ApiError("METHOD_NOT_ALLOWED", `Webhook trigger ${triggerId} does not accept ${method}`, { allowed }, { Allow: allowed.join(", ") });
  }

  const raw = new Uint8Array(bytes.value);
  const body = parsedBody(c.req.header("Content-Type"), raw);
  const headers = headerRecord(c.req.raw.headers);
  const query = queryRecord(url.searchParams);
  guardJson({ headers, query }, { message: "The call's headers or query parameters cannot be stored" });

  if (config.verification) {
    if (!hook.secret_ciphertext) throw unauthorized(`Webhook trigger ${triggerId} has no secret yet, so no signature can be checked`);
    const secret = await openWebhookSecret(c.var.ctx.secret, hook.tenant_id, triggerId, new Uint8Array(hook.secret_ciphertext));
    // Bytes this service did not seal for this trigger (tampered, or copied from another row): a server fault.
    if (secret === null) throw new Error(`the webhook secret of trigger ${triggerId} does not open`);
    const verdict = await verifySignature(config.verification, secret, { headers: c.req.raw.headers, query: url.searchParams, body, raw });
    if (!verdict.ok) throw unauthorized(verdict.reason);
  }
  c.set("ctx", c.var.ctx.forTenant(hook.tenant_id));
  return { triggerId, hook, input: { body, headers, query, method } };
}

/** The run a verified call starts, written and kicked. */
export async function startWebhookRun(c: Context<HonoEnv>, call: Exclude<WebhookCall, { handshake: Response }>): Promise<Response> {
  const { triggerId, hook } = call;
  const trigger: FiringTrigger = {
    id: triggerId,
    key: hook.key,
    type: "webhook",
    workflowId: hook.workflow_id,
    workflowVersion: hook.version,
    definition: hook.definition,
  };
  // A condition gates event triggers only, so a webhook firing always yields a run.
  const run = (await runFor(trigger, { input: call.input }))!;
  // One autocommitted INSERT as the connecting role, over HTTP: one round
  // trip on the path every sender waits on. The tenant comes from the trigger
  // row the lookup read, and the insert names it on the row, as the cron
  // tick's inserts do.
  const started = await c.var.ctx.database.lookup((sql) => startRun(sql, hook.tenant_id, run));
  if (started.created) await handOverRuns(c.env, c.executionCtx, [{ tenantId: hook.tenant_id, runId: started.id }]);
  return c.json({ data: { workflow_run: { id: started.id } } }, 202);
}
