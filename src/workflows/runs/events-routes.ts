// GET /workflows/runs/workflows/{id}/events: a run's progress as server-sent
// events, read from the run's object (runs/run-events.ts): what it already
// recorded, then each status change as it is kept, until the run's end.
import { streamSSE } from "hono/streaming";
import { ApiError } from "../../lib/errors";
import { route } from "../../gateway/route";
import { runClient } from "./run-client";
import { decodeEvents, MAX_FOLLOWERS } from "./run-events";
import { byId } from "./schemas";
import { selectRunRow } from "./store";

const KEEP_ALIVE = ": keep-alive\n\n";
const KEEP_ALIVE_MS = 30_000;

export const runEventsRoute = route({
  operation: "streamRunEvents",
  method: "get",
  path: "/workflows/runs/workflows/:id/events",
  tag: "workflows",
  summary: "Follow a run: its status changes and those of its jobs and actions as server-sent events, the recorded ones first, closing after the run's end",
  permission: ["workflow", "read"],
  params: byId,
  responses: {
    200: {
      description:
        "text/event-stream: each event is `event: <type>` and `data: <json>`, the JSON being { type: run | job | action, job_id?, step_id?, status, at }; the stream closes after the run's terminal `run` event",
      contentType: "text/event-stream",
      schema: { type: "string" },
    },
    404: { description: "No such run" },
    429: { description: `The run already serves ${MAX_FOLLOWERS} event streams (details.max_streams)` },
  },
  handler: async (c, { params }) => {
    const tenant = c.var.ctx.tenant;
    // Another tenant's run answers 404 here, before its object is asked anything.
    const row = await tenant.tx((sql) => selectRunRow(sql, params.id));
    const opened = await runClient(c.env).follow({ tenantId: tenant.tenantId, runId: params.id }, row);
    if ("refused" in opened) throw ApiError.of(opened.refused);
    const log = c.var.ctx.log;
    return streamSSE(c, async (stream) => {
      // The client went away: the object ends its stream, and the loop below with it.
      stream.onAbort(() => opened.subscription[Symbol.dispose]());
      // A proxy closes a response idle for about 100 s: a comment (which clients ignore, and writeSSE has no form for) keeps it open.
      const beat = setInterval(() => void stream.write(KEEP_ALIVE), KEEP_ALIVE_MS);
      try {
        for await (const event of decodeEvents(opened.events)) await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
      } catch (e) {
        // The object went away mid-stream (a deploy, an eviction): the stream ends, and a client that reconnects gets the history again.
        log.error("a run's event stream broke", { run_id: params.id, error: (e as Error).message });
      } finally {
        clearInterval(beat);
      }
    });
  },
});
