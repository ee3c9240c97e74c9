// One action's declaration: its name and the JSON Schema of its config.
import type { JSONSchema } from "json-schema-to-ts";
import type { ActionName } from "../workflow-schema";

export interface ActionDeclaration<S extends JSONSchema = JSONSchema> {
  name: ActionName;
  configSchema: S;
}

/** A declaration with its schema's literal type kept, so the engine's module derives its config type from it. */
export function declareAction<const S extends JSONSchema>(declaration: ActionDeclaration<S>): ActionDeclaration<S> {
  return declaration;
}
