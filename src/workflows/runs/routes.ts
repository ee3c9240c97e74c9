// /workflows/runs/*: the run records (list, get, cancel, retry) and
// /workflows/schedules: the cron schedules of activated workflows.
import type { FromSchema } from "json-schema-to-ts";
import type { Context } from "hono";
import type { Sql, TenantDb } from "../../db/client";
import type { HonoEnv } from "../../gateway/env";
import { decodeCursor } from "../../lib/cursor";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/logger";
import { isUuid } from "../../lib/ids";
import { keysetPaging, offsetOf, pageOf, paginated, paginationOf } from "../../lib/pagination";
import { route, type RouteSpec } from "../../gateway/route";
import { dataEnvelope, listEnvelope, paginationQuery, paginationSchema, uuidSchema } from "../../lib/schemas";
import { validationFailed } from "../../lib/validate";
import { runEventsRoute } from "./events-routes";
import { runClient } from "./run-client";
import { runDetail, runItem, scheduleItem } from "./record";
import { cancelRun, retryRun, selectRun, selectRuns, selectSchedules, type RunFilter, type RunPosition } from "./store";
import { runListQuery, byId, retryBody } from "./schemas";

type RunListQuery = FromSchema<typeof runListQuery>;

/**
 * A cursor carries the last run's position and the number of the page it
 * opens, so a page reached by cursor reports the same `pagination` as the
 * page of that number. Its scope binds it to the filters and the limit.
 */
async function cursorPosition(secret: string, scope: string, cursor: string): Promise<{ after: RunPosition; page: number }> {
  const position = await decodeCursor(secret, scope, cursor);
  const [createdAt, id, page] = position;
  if (position.length !== 3 || typeof createdAt !== "string" || !isUuid(id) || !Number.isInteger(page) || (page as number) < 2) {
    throw validationFailed(["cursor: does not belong to this query"], "cursor does not belong to this query");
  }
  return { after: [createdAt, id], page: page as number };
}

/** Newest first: offset paging by `page`, keyset paging by `cursor`; both answer `pagination`, and `next_cursor` after a full page. */
async function listRuns(tenant: TenantDb, secret: string, query: RunListQuery) {
  if (query.cursor !== undefined && query.page !== undefined) throw validationFailed(["cursor: cannot be combined with page"]);
  const { limit, page: offsetPage } = pageOf(query);
  const filter: RunFilter = { workflow_id: query.workflow_id, status_in: query.status_in, entity_id: query.entity_id };
  const scope = `workflow-runs:${JSON.stringify([filter.workflow_id, filter.status_in, filter.entity_id, limit])}`;
  const { after, page } = query.cursor === undefined ? { after: null, page: offsetPage } : await cursorPosition(secret, scope, query.cursor);
  const { total, records, last } = await tenant.tx((sql) => selectRuns(sql, filter, after, limit, after ? 0 : offsetOf({ page, limit })));
  const next = await keysetPaging(secret, scope, records.length, limit, last ? [...last, page + 1] : null);
  return { data: records, pagination: paginationOf({ page, limit }, total), ...next };
}

function listRunsRoute(operation: "listRuns" | "listRunsAlias", path: "/workflows/runs/workflows" | "/workflows/runs"): RouteSpec {
  return route({
    operation,
    method: "get",
    path,
    tag: "workflows",
    summary: "List workflow runs, newest first, without their job runs; paged by page or by cursor",
    permission: ["workflow", "read"],
    query: runListQuery,
    responses: {
      200: {
        description: "Runs; next_cursor only when a full page came back",
        schema: {
          type: "object",
          required: ["data", "pagination"],
          properties: { data: { type: "array", items: runItem }, pagination: paginationSchema, next_cursor: { type: "string" } },
        },
      },
    },
    handler: async (c, { query }) => c.json(await listRuns(c.var.ctx.tenant, c.var.ctx.secret, query ?? {})),
  });
}

/**
 * Cancel and retry: the run's row moves first, in one conditional UPDATE
 * (so of two racing calls one wins), then its object is told and the record
 * is answered as it now is. An object that cannot be reached catches up on
 * its own: it adopts a cancel at its next walk, and the sweep kicks a
 * retried run still pending (the retry's options are kept on its row).
 */
async function moved(c: Context<HonoEnv>, id: string, action: "cancel" | "retry", move: (sql: Sql) => Promise<unknown>) {
  const tenant = c.var.ctx.tenant;
  await tenant.tx(move);
  try {
    await runClient(c.env)[action]({ tenantId: tenant.tenantId, runId: id });
  } catch (e) {
    log.error(`telling a workflow run's object to ${action} failed`, { run_id: id, error: (e as Error).message });
  }
  return c.json({ data: await tenant.tx((sql) => selectRun(sql, id)) });
}

const moveResponses = {
  200: { description: "The run as it now is", schema: dataEnvelope(runDetail) },
  404: { description: "No such run" },
  409: { description: "The run's status does not allow it (details.run_status)" },
} as const;

const cancelRoute = route({
  operation: "cancelRun",
  method: "post",
  path: "/workflows/runs/workflows/:id/cancel",
  tag: "workflows",
  summary: "Cancel a pending or running run",
  permission: ["workflow", "update"],
  params: byId,
  responses: moveResponses,
  handler: (c, { params }) => moved(c, params.id, "cancel", (sql) => cancelRun(sql, params.id)),
});

const retryRoute = route({
  operation: "retryRun",
  method: "post",
  path: "/workflows/runs/workflows/:id/retry",
  tag: "workflows",
  summary:
    "Retry a finished run in place, one attempt more: each step's rerunPolicy decides what runs again, or from_step redrives that step and its dependents; config: current runs with the activation's env and job bindings as they are now. Answers the run as its retry left it",
  permission: ["workflow", "update"],
  params: byId,
  bodyOptional: true,
  body: retryBody,
  responses: { ...moveResponses, 422: { description: "from_step is no job of the version the run follows" } },
  handler: (c, { params, body }) => moved(c, params.id, "retry", (sql) => retryRun(sql, params.id, Object.keys(body).length ? body : null)),
});

const inputRoute = route({
  operation: "answerRunInput",
  method: "post",
  path: "/workflows/runs/workflows/:id/input",
  tag: "workflows",
  summary: "Answer a run's waiting awaitInput action with data, and let the run go on",
  permission: ["workflow", "update"],
  params: byId,
  body: {
    type: "object",
    required: ["step_id", "data"],
    additionalProperties: false,
    properties: {
      step_id: { type: "string", minLength: 1, maxLength: 128, description: "The awaitInput action's stepId" },
      data: { description: "The action's result; checked against its config.schema" },
    },
  },
  responses: {
    200: { description: "The run as it is once it went on as far as it could", schema: dataEnvelope(runDetail) },
    404: { description: "No such run, or no awaitInput action with that stepId" },
    409: { description: "The action is not waiting (details.step_status)" },
    422: { description: "data does not satisfy the action's schema (details.errors)" },
  },
  handler: async (c, { params, body }) => {
    const tenant = c.var.ctx.tenant;
    // Another tenant's run answers 404 here, before its object is asked anything.
    await tenant.tx((sql) => selectRun(sql, params.id));
    const refused = await runClient(c.env).input({ tenantId: tenant.tenantId, runId: params.id }, body.step_id, body.data);
    if (refused) throw ApiError.of(refused);
    return c.json({ data: await tenant.tx((sql) => selectRun(sql, params.id)) });
  },
});

export const runRoutes: RouteSpec[] = [
  listRunsRoute("listRuns", "/workflows/runs/workflows"),
  listRunsRoute("listRunsAlias", "/workflows/runs"),
  route({
    operation: "getRun",
    method: "get",
    path: "/workflows/runs/workflows/:id",
    tag: "workflows",
    summary: "A workflow run with its job runs, action runs and action log",
    permission: ["workflow", "read"],
    params: byId,
    responses: { 200: { description: "The run", schema: dataEnvelope(runDetail) }, 404: { description: "No such run" } },
    handler: async (c, { params }) => c.json({ data: await c.var.ctx.tenant.tx((sql) => selectRun(sql, params.id)) }),
  }),
  cancelRoute,
  retryRoute,
  inputRoute,
  runEventsRoute,
  route({
    operation: "listSchedules",
    method: "get",
    path: "/workflows/schedules",
    tag: "workflows",
    summary: "List the cron schedules of activated workflows",
    permission: ["workflow", "read"],
    query: { type: "object", additionalProperties: false, properties: { workflow_id: uuidSchema, ...paginationQuery } },
    responses: { 200: { description: "Schedules, oldest first", schema: listEnvelope(scheduleItem) } },
    handler: async (c, { query }) => {
      const page = pageOf(query);
      const { total, rows } = await c.var.ctx.tenant.tx((sql) => selectSchedules(sql, query?.workflow_id, page.limit, offsetOf(page)));
      return c.json(paginated(rows, page, total));
    },
  }),
];
