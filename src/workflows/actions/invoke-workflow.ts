// `invokeWorkflow`: starts a run of another activated workflow of the tenant
// through one of its triggers, exactly as `POST /workflows/wr` does, and goes
// on without waiting for it (fire-and-forget, SPEC.md 2.7): the child's row
// is committed and its object armed before the action ends, as the dispatch
// route does before it answers, and the child walks in its own object. The
// child carries the parent run's id (none when an app command runs the action
// inside its request: the child starts a chain of its own), and the attempt's
// idempotency key makes a replayed attempt answer the child it already
// started instead of starting a second one. Starting a run is what
// `workflow:create` allows over REST, so the run's policy must grant it.
import { dispatchRun } from "../dispatch";
import { withServices } from "../../access/confined-services";
import { action } from "./action";
import { coreDeclarations } from "../../definition/language/actions/core";

export const invokeWorkflow = action(coreDeclarations.invokeWorkflow, {
  permissions: ["workflow:create"],
  async execute(config, invocation, ctx) {
    // A refusal (unknown workflow, not activated, no such trigger, an event
    // trigger) is the action's error; anything else is the platform's and propagates.
    return withServices(ctx, async (services) => {
      const child = await dispatchRun(
        services.tenant,
        { workflow_id: config.workflowId, trigger_id: config.triggerId ?? "manual", input: config.input },
        { parentRunId: ctx.parentRunId ?? undefined, idempotencyKey: invocation.idempotencyKey },
      );
      // Handed over on a replay too: the first attempt may have stopped between commit and arming.
      await ctx.handOver([{ tenantId: ctx.tenantId, runId: child.id }]);
      return { kind: "success", result: { run_id: child.id }, detail: { child_run_id: child.id } };
    });
  },
});
