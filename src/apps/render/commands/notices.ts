// What a step adds to the answer beside the screens: `notify` a
// notification, `debug` a value in `debug[]`.
import { command } from "./command";

export const notify = command({
  kind: "notify",
  async run(step, ctx) {
    const message = await ctx.shown(step.message, "string");
    const text = typeof message === "string" ? message : JSON.stringify(message);
    const level = step.level === "WARN" ? "WARNING" : step.level === "ERROR" ? "ERROR" : "INFO";
    ctx.stage.notes.notify({ id: step.stepId ?? `notify-${ctx.key}`, level, message: text });
    return { message: text };
  },
});

export const debug = command({
  kind: "debug",
  async run(step, ctx) {
    const value = step.value === undefined ? structuredClone(ctx.outputs) : await ctx.shown(step.value);
    const secrets = ctx.stage.run.secrets;
    const masked = secrets?.size ? secrets.value(value) : value;
    ctx.stage.debug.push(masked);
    return masked;
  },
});

export const noticeCommands = { notify, debug };
