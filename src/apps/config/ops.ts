// List operations on a config scope by dot-path (an app user's
// `setPrincipalConfig` with `ops`): each applied to the effective value in
// order, and the lists they touched answered as one merge patch, so the
// write goes through the scope rule as any other patch does.
import { ApiError } from "../../lib/errors";
import { isObject, valueAt, type ConfigObject } from "./merge";

export interface ConfigOp {
  op: "appendUnique" | "remove" | "moveItem";
  path: string;
  value: unknown;
  by?: 1 | -1;
}

/** JSON equality with object keys in any order. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key], b[key]));
  }
  return false;
}

function listAt(config: ConfigObject, path: string[], op: ConfigOp, index: number): unknown[] {
  const current = valueAt(config, path);
  if (current === undefined) return [];
  if (!Array.isArray(current)) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}]: ${op.path} holds ${current === null ? "null" : typeof current}, not a list`, { field: `ops[${index}].path` });
  }
  return current;
}

function applied(list: unknown[], op: ConfigOp): unknown[] {
  switch (op.op) {
    case "appendUnique":
      return list.some((item) => same(item, op.value)) ? list : [...list, op.value];
    case "remove":
      return list.filter((item) => !same(item, op.value));
    case "moveItem": {
      const from = list.findIndex((item) => same(item, op.value));
      const to = from + (op.by ?? 1);
      if (from < 0 || to < 0 || to >= list.length) return list;
      const moved = [...list];
      [moved[from], moved[to]] = [moved[to], moved[from]];
      return moved;
    }
  }
}

/** `config` with `key` set, defined rather than assigned (a key named `__proto__` stays a key). */
function withKey(config: ConfigObject, key: string, value: unknown): ConfigObject {
  return Object.defineProperty({ ...config }, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The merge patch the ops make of `effective`: every list they touched,
 * whole (a merge patch replaces arrays). A path through a value that is not
 * an object, or to one that is not a list, is 422.
 */
export function opsPatch(effective: ConfigObject, ops: readonly ConfigOp[]): ConfigObject {
  let working: ConfigObject = effective;
  const touched = new Map<string, string[]>();
  ops.forEach((op, index) => {
    const path = op.path.split(".");
    if (path.some((part) => part === "")) throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}].path ${JSON.stringify(op.path)} is not a dotted path`, { field: `ops[${index}].path` });
    for (let depth = 1; depth < path.length; depth++) {
      const parent = valueAt(working, path.slice(0, depth));
      if (parent !== undefined && !isObject(parent)) {
        throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}]: ${path.slice(0, depth).join(".")} is not an object, so ${op.path} cannot be a list`, { field: `ops[${index}].path` });
      }
    }
    const list = applied(listAt(working, path, op, index), op);
    working = mergeAt(working, path, list);
    touched.set(path.join("."), path);
  });
  let patch: ConfigObject = {};
  for (const path of touched.values()) patch = mergeAt(patch, path, valueAt(working, path) as unknown[]);
  return patch;
}

/** `config` with the list at `path` replaced; objects on the way copied, not changed. */
function mergeAt(config: ConfigObject, path: string[], list: unknown[]): ConfigObject {
  const [head, ...rest] = path;
  const below = Object.hasOwn(config, head) && isObject(config[head]) ? (config[head] as ConfigObject) : {};
  return withKey(config, head, rest.length ? mergeAt(below, rest, list) : list);
}
