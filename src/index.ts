// The Worker's entry points: fetch (the gateway), scheduled (the cron tick),
// and the Durable Object classes.
import { createApp } from "./app";
import { runCronTick } from "./cron/tick";
import { Database } from "./db/client";
import { consumeEvents } from "./events/delivery";
import { kickRuns } from "./workflows/runs/run-client";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { TokenCache } from "../durable-objects/token-cache";
export { WorkflowRun } from "../durable-objects/workflow-run";

const app = createApp();

/** `/engine/*` is the deprecated alias of `/workflows/*` (docs/api.md, The `/engine` alias). */
function resolveAlias(request: Request): { request: Request; deprecated: boolean } {
  // A substring test first: parsing every request's URL costs more than routing it.
  if (!request.url.includes("/engine")) return { request, deprecated: false };
  const url = new URL(request.url);
  if (url.pathname !== "/engine" && !url.pathname.startsWith("/engine/")) return { request, deprecated: false };
  url.pathname = `/workflows${url.pathname.slice("/engine".length)}`;
  return { request: new Request(url, request), deprecated: true };
}

export default {
  async fetch(request, env, ctx) {
    const { request: routed, deprecated } = resolveAlias(request);
    const response = await app.fetch(routed, env, ctx);
    if (!deprecated) return response;
    const headers = new Headers(response.headers);
    headers.set("Deprecation", "true");
    headers.set("Link", '</workflows>; rel="successor-version"');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  },

  async queue(batch, env) {
    const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
    try {
      await kickRuns(env, await consumeEvents(batch, database));
    } finally {
      await database.close();
    }
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runCronTick(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Env>;
