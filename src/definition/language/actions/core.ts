// The actions of the language itself: `pipe`, `awaitInput`, `invokeWorkflow`.
import { uuidSchema } from "../../../lib/schemas";
import { declareAction } from "./declare";

const MIN_TIMEOUT_MS = 1000;
const MAX_TIMEOUT_MS = 30 * 24 * 60 * 60 * 1000;

export const coreDeclarations = {
  pipe: declareAction({
    name: "pipe",
    configSchema: {
      type: "object",
      properties: { value: true },
      additionalProperties: false,
    },
  }),
  awaitInput: declareAction({
    name: "awaitInput",
    configSchema: {
      type: "object",
      properties: {
        /** What the posted data must satisfy; any data when absent. */
        schema: { type: ["object", "boolean"] },
        /** How long to wait; forever when absent. */
        timeoutMs: { type: "integer", minimum: MIN_TIMEOUT_MS, maximum: MAX_TIMEOUT_MS },
      },
      additionalProperties: false,
    },
  }),
  invokeWorkflow: declareAction({
    name: "invokeWorkflow",
    configSchema: {
      type: "object",
      required: ["workflowId"],
      properties: {
        workflowId: uuidSchema,
        /** The child's definition trigger id; `manual` when absent. */
        triggerId: { type: "string", minLength: 1, maxLength: 200 },
        /** The child's `context.input`; `{}` when absent. */
        input: true,
      },
      additionalProperties: false,
    },
  }),
};
