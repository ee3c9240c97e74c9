// `awaitInput`: the job stops until someone posts data for this action (the
// run's object resumes it: it checks the data with `inputProblems` and
// records the data as the result), or fails once `timeoutMs` has passed.
import { check } from "../../lib/validate";
import { schemaProblems } from "../../schema/schema-check";
import { action } from "./action";
import type { Accepted } from "../../lib/validate";
import { errorValue } from "../../lib/errors";
import { coreDeclarations } from "../../definition/language/actions/core";

/** The config of a waiting `awaitInput`, as the run's object checks posted data against it. */
export type AwaitInputConfig = Accepted<typeof coreDeclarations.awaitInput.configSchema>;

/** `data.<path>: <reason>` lines for data the action's schema refuses; none when it is accepted. */
export function inputProblems(config: AwaitInputConfig, data: unknown): string[] {
  return config.schema === undefined ? [] : check(config.schema, data, "data");
}

export const awaitInput = action(coreDeclarations.awaitInput, {
  permissions: [],
  async execute(config, { record }, ctx) {
    // Executed again only when the walker found `until` passed; it records the
    // action `running` for that execution and keeps `until`, so `until` alone tells.
    if (record.until !== undefined && record.until <= ctx.now()) {
      return {
        kind: "error",
        error: errorValue("UNPROCESSABLE_ENTITY", `No input arrived within ${config.timeoutMs} ms`, { timeout_ms: config.timeoutMs }),
      };
    }
    // A schema that cannot evaluate would refuse every input: fail now, not at the first post.
    const problems = config.schema === undefined ? [] : schemaProblems(config.schema, "config.schema");
    if (problems.length) {
      return {
        kind: "error",
        error: errorValue("VALIDATION_FAILED", "The config of action awaitInput does not satisfy its schema", {
          errors: problems,
          validation_errors: problems,
        }),
      };
    }
    const until = config.timeoutMs === undefined ? undefined : ctx.now() + config.timeoutMs;
    return { kind: "wait", until, detail: { schema: config.schema } };
  },
});
