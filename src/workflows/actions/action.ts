// Declares an action once: its name, config schema and execution. The config
// `execute` receives is typed from the literal schema, so the schema the
// catalog checks and the type the module reads cannot drift apart.
import type { JSONSchema } from "json-schema-to-ts";
import type { Accepted } from "../../lib/validate";
import type { ActionModule } from "./types";

/** The config type of a declared action, for the modules that share it. */
export type ConfigOf<M> = M extends ActionModule<infer C> ? C : never;

/** S is inferred from `configSchema` alone; `execute` is typed from it. */
export function action<const S extends JSONSchema>(module: { configSchema: S } & NoInfer<ActionModule<Accepted<S>>>): ActionModule<Accepted<S>> {
  return module;
}
