// Workflow actions while the render waits (docs/apps.md, "Actions inside a
// request"): an `actions` list or a spec's `job`, run by the world's inline
// runner with the command scope as what their templates read. A writing
// action has later reads of sources fetch again.
import { command } from "./command";
import type { InlineOutcome } from "./services";
import { StepFailed, type StepContext } from "./step";

async function settled(outcome: InlineOutcome, ctx: StepContext): Promise<unknown> {
  if (outcome.wrote) await ctx.wrote(false);
  if (outcome.status === "error") throw new StepFailed(outcome.error);
  return outcome.output;
}

export const actions = command({
  kind: "actions",
  async run(step, ctx) {
    const scope = await ctx.scopeFor(step);
    const outcome = await ctx.services.actions(
      {
        actions: Array.isArray(step.actions) ? step.actions : [],
        input: step.input,
        output: step.output,
        permissionSet: step.permissionSet === "dataMutation" ? "dataMutation" : "readonly",
        additionalAllowed: step.additionalAllowed ?? [],
        denied: step.denied ?? [],
      },
      scope,
    );
    return settled(outcome, ctx);
  },
});

export const job = command({
  kind: "job",
  async run(step, ctx) {
    const scope = await ctx.scopeFor(step);
    const outcome = await ctx.services.job(
      { job: step.job, input: step.input, additionalAllowed: step.additionalAllowed ?? [], denied: step.denied ?? [] },
      scope,
    );
    return settled(outcome, ctx);
  },
});

export const inlineCommands = { actions, job };
