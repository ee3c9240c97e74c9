// List operations on a config scope by dot-path (an app user's
// `setPrincipalConfig` with `ops`): each applied to the effective value in
// order, and the lists they touched answered as one merge patch, so the
// write goes through the scope rule as any other patch does.
import { ApiError } from "../../lib/errors";
import { mergePatch, patchAt, sameJson, valueAt, type ConfigObject } from "./merge";
import { isObject } from "../../lib/is-object";

export interface ConfigOp {
  op: "appendUnique" | "remove" | "moveItem";
  path: string;
  value: unknown;
  by?: 1 | -1;
}

function listAt(config: ConfigObject, path: string[], op: ConfigOp, index: number): unknown[] {
  const current = valueAt(config, path);
  if (current === undefined) return [];
  if (!Array.isArray(current)) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}]: ${op.path} holds ${current === null ? "null" : typeof current}, not a list`, {
      field: `ops[${index}].path`,
    });
  }
  return current;
}

function applied(list: unknown[], op: ConfigOp): unknown[] {
  switch (op.op) {
    case "appendUnique":
      return list.some((item) => sameJson(item, op.value)) ? list : [...list, op.value];
    case "remove":
      return list.filter((item) => !sameJson(item, op.value));
    case "moveItem": {
      const from = list.findIndex((item) => sameJson(item, op.value));
      const to = from + (op.by ?? 1);
      if (from < 0 || to < 0 || to >= list.length) return list;
      const moved = [...list];
      [moved[from], moved[to]] = [moved[to], moved[from]];
      return moved;
    }
  }
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
    if (path.some((part) => part === ""))
      throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}].path ${JSON.stringify(op.path)} is not a dotted path`, { field: `ops[${index}].path` });
    for (let depth = 1; depth < path.length; depth++) {
      const parent = valueAt(working, path.slice(0, depth));
      if (parent !== undefined && !isObject(parent)) {
        throw new ApiError("UNPROCESSABLE_ENTITY", `ops[${index}]: ${path.slice(0, depth).join(".")} is not an object, so ${op.path} cannot be a list`, {
          field: `ops[${index}].path`,
        });
      }
    }
    const list = applied(listAt(working, path, op, index), op);
    working = mergePatch(working, patchAt(path, list)) as ConfigObject;
    touched.set(path.join("."), path);
  });
  let patch: ConfigObject = {};
  for (const path of touched.values()) patch = mergePatch(patch, patchAt(path, valueAt(working, path))) as ConfigObject;
  return patch;
}
