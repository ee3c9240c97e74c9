// `pipe`: answers its resolved `value`, so a job can shape data between
// actions. A config without `value` answers null: the result is always a
// JSON value, and `outputs.<stepId>` then says "nothing" explicitly.
import { action } from "./action";
import { coreDeclarations } from "../../definition/language/actions/core";

export const pipe = action(coreDeclarations.pipe, {
  permissions: [],
  async execute(config) {
    return { kind: "success", result: config.value === undefined ? null : config.value };
  },
});
