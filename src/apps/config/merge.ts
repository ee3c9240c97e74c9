// RFC 7396 merge patches: how every app config scope is written and how the
// definition's values sit under the stored ones. A key sent sets, null
// unsets, an object merges key by key into an object, anything else
// (arrays included) replaces.
import { isObject } from "../../lib/is-object";

export type ConfigObject = Record<string, unknown>;

/** Defined, not assigned: a key named `__proto__` stays a plain key. */
function put(target: ConfigObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `patch` applied to `target` (RFC 7396 MergePatch); neither is changed. An object patch gives an object. */
export function mergePatch(target: unknown, patch: ConfigObject): ConfigObject;
export function mergePatch(target: unknown, patch: unknown): unknown;
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: ConfigObject = {};
  if (isObject(target)) for (const [key, value] of Object.entries(target)) put(result, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else put(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** What readers see of a scope: the definition's `config.<scope>` with the stored value merged over it. */
export function effectiveConfig(definition: ConfigObject | undefined, stored: ConfigObject): ConfigObject {
  return mergePatch(definition ?? {}, stored) as ConfigObject;
}

export function valueAt(value: unknown, path: string[]): unknown {
  let node = value;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** A patch setting `path` to `value`. */
export function patchAt(path: string[], value: unknown): ConfigObject {
  const root: ConfigObject = {};
  let node = root;
  path.forEach((key, i) => {
    const next = i === path.length - 1 ? value : {};
    put(node, key, next);
    node = next as ConfigObject;
  });
  return root;
}

/** Structural equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}
