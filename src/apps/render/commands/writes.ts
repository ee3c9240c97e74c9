// The self-service writes (docs/apps.md, "Self-service writes"): a
// principal's config and the render principal's own secrets. Their values
// leave the answer, so they resolve as computed; what they change is in the
// render context, so it is reloaded after them.
import type { PrincipalOp } from "./services";
import { command } from "./command";
import { fail, type StepContext } from "./step";
import { isObject } from "../../../lib/is-object";
import type { CommandDocument } from "../../../definition/language/spec-schema";

/** The list operations with their values resolved, in order. */
async function resolvedOps(ops: NonNullable<CommandDocument<"setPrincipalConfig">["ops"]>, ctx: StepContext): Promise<PrincipalOp[]> {
  const resolved: PrincipalOp[] = [];
  for (const { op, path, value, by } of ops) resolved.push({ op, path, value: await ctx.written(value), ...(by !== undefined && { by }) });
  return resolved;
}

export const setPrincipalConfig = command({
  kind: "setPrincipalConfig",
  async run(step, ctx) {
    const principalId = step.principalId === undefined ? undefined : await ctx.written(step.principalId, "string");
    if (principalId !== undefined && (typeof principalId !== "string" || principalId === ""))
      throw fail("setPrincipalConfig.principalId must resolve to a non-empty string");
    const hasConfig = step.config !== undefined;
    if (hasConfig === (step.ops !== undefined)) throw fail("setPrincipalConfig takes either config or ops");
    const config = hasConfig ? await ctx.written(step.config) : undefined;
    if (hasConfig && !isObject(config)) throw fail("setPrincipalConfig.config must resolve to an object");
    const effective = await ctx.services.setPrincipalConfig({
      principalType: step.principalType,
      ...(typeof principalId === "string" && { principalId }),
      ...(isObject(config) ? { config } : { ops: await resolvedOps(step.ops ?? [], ctx) }),
    });
    await ctx.wrote(true);
    return effective;
  },
});

export const setSecret = command({
  kind: "setSecret",
  async run(step, ctx) {
    const value = await ctx.written(step.value, "string");
    if (typeof value !== "string" || value === "") throw fail("setSecret.value must resolve to a non-empty string");
    // The value is a secret from now on: nothing this render answers may show it.
    ctx.stage.run.secrets?.conceal(value);
    await ctx.services.setSecret(step.target, value);
    await ctx.wrote(true);
    return null;
  },
});

export const writeCommands = { setPrincipalConfig, setSecret };
