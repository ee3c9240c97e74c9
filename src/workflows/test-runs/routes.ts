// POST /definition/workflows/{id}/test-runs: a definition's current version
// run once as the caller (start.ts). It sits under /definition beside the
// document it runs, and is the engine's: definition/ knows nothing of runs.
import { route } from "../../gateway/route";
import { dataEnvelope } from "../../lib/schemas";
import { byId } from "../../definition/schemas";
import { handOverRuns } from "../runs/run-client";
import { testRunAnswer, testRunBody } from "./schemas";
import { startTestRun } from "./start";

export const testRunRoutes = [
  route({
    operation: "startTestRun",
    method: "post",
    path: "/definition/workflows/:id/test-runs",
    tag: "definitions",
    summary: "Run the definition's current version once, draft or active, as the caller, with the env and input given; listed with test: true",
    permission: ["workflow", "create"],
    idempotent: true,
    params: byId,
    bodyOptional: true,
    body: testRunBody,
    responses: {
      202: { description: "A pending test run was created", schema: dataEnvelope(testRunAnswer) },
      404: { description: "Unknown workflow" },
      422: {
        description:
          "An env value the definition leaves unset is missing (details.missing_env_vars), the env fails its schema, or the definition has no trigger trigger_id",
      },
    },
    handler: async (c, { params, body }) => {
      const tenant = c.var.ctx.tenant;
      const run = await startTestRun(tenant, c.var.ctx.principal, params.id, body ?? {});
      await handOverRuns(c.env, c.executionCtx, [{ tenantId: tenant.tenantId, runId: run.id }]);
      return c.json({ data: { workflow_run: { id: run.id } } }, 202);
    },
  }),
];
