// Writes an action's module from its declaration (its name and config schema,
// definition/language/actions/): the permissions it needs and its execution.
// The config `execute` receives is typed from the declared schema, so the
// schema publish and the catalog check and the type the module reads cannot
// drift apart; the permissions are what the catalog checks before `execute`
// runs and what activation provisions a workflow's policy with.
import type { JSONSchema } from "json-schema-to-ts";
import type { Accepted } from "../../lib/validate";
import type { ActionDeclaration } from "../../definition/language/actions/declare";
import type { ActionModule, Permissions } from "./types";

/** The config type of a declared action, for the modules that share it. */
export type ConfigOf<M> = M extends ActionModule<infer C> ? C : never;

type Declared<C> = Omit<ActionModule<C>, "name" | "configSchema" | "permissions"> & {
  /** A fixed list, or one read from the config (see `Permissions`). */
  permissions: readonly string[] | Permissions;
};

/** S is the declaration's schema; `execute` is typed from it. */
export function action<const S extends JSONSchema>(declaration: ActionDeclaration<S>, module: NoInfer<Declared<Accepted<S>>>): ActionModule<Accepted<S>> {
  const { permissions } = module;
  return {
    ...module,
    name: declaration.name,
    configSchema: declaration.configSchema,
    permissions: typeof permissions === "function" ? permissions : () => [...permissions],
  };
}

/** A type name the config gives as written: text without a `{{ }}` template. */
export function literalName(value: unknown): string | undefined {
  return typeof value === "string" && !value.includes("{{") ? value : undefined;
}

/**
 * `entity:<action>` on the types a config names: narrowed to each
 * (`entity:read:Order`) when every one is written literally, else the
 * unnarrowed permission, since the types are known only when the action runs.
 */
export function onTypes(action: string, typeNames: unknown[]): string[] {
  const names = typeNames.map(literalName);
  if (!names.length || names.some((n) => n === undefined)) return [`entity:${action}`];
  return [...new Set(names)].map((n) => `entity:${action}:${n}`);
}

/** The items of a list the config gives; anything else (a template in its place) as one item, which no type name reads literally. */
export function listed(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** `item.<key>` of a config list's item, or the item itself when it is no object (so it reads as not literal). */
export function fieldOf(item: unknown, key: string): unknown {
  return typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>)[key] : item;
}
