// Request and answer schemas of POST /definition/workflows/{id}/test-runs.
import { uuidSchema } from "../../lib/schemas";
import { envPatch } from "../activation/schemas";

export const testRunBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    trigger_id: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description:
        'A trigger of the definition (any type) the run simulates: its id and type become `context.trigger`, its `contextData` is evaluated; left out: `{ id: null, type: "test" }`',
    },
    input: { description: "The run's `context.input`; `{}` when left out" },
    env: { ...envPatch, description: "Env values over the definition's `config.env` defaults (null leaves a key unset); the activation's env is not used" },
  },
} as const;

export const testRunAnswer = {
  type: "object",
  required: ["workflow_run"],
  properties: { workflow_run: { type: "object", required: ["id"], properties: { id: uuidSchema } } },
} as const;
