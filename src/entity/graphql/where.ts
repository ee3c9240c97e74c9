// The typed `where` argument compiled into the filter tree POST /entity/query
// takes (docs/query.md), so GraphQL filters go through the one filter
// compiler and mean exactly what REST filters mean:
//   { color: { eq: "red", neq: "x" } }  -> and of two particles on ["attributes","color"]
//   { and: [...] } / { or: [...] }      -> the composites of the compiled parts
//   { not: {...} }                      -> not of the compiled part
//   { related: { Maker: {...} } }       -> rel_exists on ["relationships","Maker"]
//   { x: { is_null: true / false } }    -> is null / not(is null)
import { Kind, type ValueNode } from "graphql";
import { validationFailed } from "../../lib/validate";
import type { FilterKind } from "./inputs";

/** A field `where` can test: the path REST filters name it by, and its operator input. */
export interface WhereField {
  path: string[];
  kind: FilterKind;
}

/** The `where` of one entity type: its testable fields by GraphQL name. */
export interface WhereShape {
  fields: Map<string, WhereField>;
}

export type Filter = Record<string, unknown>;

const bad = (at: string, reason: string) => validationFailed([`${at}: ${reason}`], "where is invalid");

const and = (parts: Filter[]): Filter => (parts.length === 1 ? parts[0] : { operator: "and", filters: parts });

/** Compiles a `where` value of `typeName` (as graphql-js coerced it) into one filter tree. */
export function whereToFilter(where: Record<string, unknown>, typeName: string, shapes: Map<string, WhereShape>, at = "where"): Filter {
  const shape = shapes.get(typeName)!;
  const parts: Filter[] = [];
  for (const [key, value] of Object.entries(where)) {
    const here = `${at}.${key}`;
    // GraphQL cannot tell "no condition" from a forgotten variable; refusing null keeps `eq: $x` with x unset from matching everything.
    if (value === null) throw bad(here, "must not be null (use is_null to match missing values)");
    if (key === "and" || key === "or") {
      const items = value as Record<string, unknown>[];
      parts.push({ operator: key, filters: items.map((w, i) => whereToFilter(w, typeName, shapes, `${here}[${i}]`)) });
    } else if (key === "not") {
      parts.push({ operator: "not", filters: [whereToFilter(value as Record<string, unknown>, typeName, shapes, here)] });
    } else if (key === "related") {
      for (const [related, sub] of Object.entries(value as Record<string, unknown>)) {
        if (sub === null) throw bad(`${here}.${related}`, "must not be null (use {} to ask for any related entity)");
        const inner = whereToFilter(sub as Record<string, unknown>, related, shapes, `${here}.${related}`);
        parts.push({ operator: "rel_exists", path: ["relationships", related], value: inner });
      }
    } else {
      parts.push(...particles(shape.fields.get(key)!.path, value as Record<string, unknown>, here));
    }
  }
  return and(parts);
}

/**
 * graphql-js leaves out an input field whose variable is unset, so
 * `{ name: { eq: $x } }` without x arrives as `{ name: {} }`, no condition at
 * all. Refused as an explicit null is, naming the place; only the argument
 * itself may be an unset variable (then it is absent, as an omitted REST filter).
 */
export function checkVariablesSet(node: ValueNode, variables: Record<string, unknown>, at: string): void {
  if (node.kind === Kind.OBJECT) for (const f of node.fields) checkSet(f.value, variables, `${at}.${f.name.value}`);
  else if (node.kind === Kind.LIST) node.values.forEach((v, i) => checkSet(v, variables, `${at}[${i}]`));
}

function checkSet(node: ValueNode, variables: Record<string, unknown>, at: string): void {
  if (node.kind === Kind.VARIABLE && !Object.hasOwn(variables, node.name.value))
    throw bad(at, `variable $${node.name.value} is not set (an unset variable would leave the condition out)`);
  checkVariablesSet(node, variables, at);
}

function particles(path: string[], ops: Record<string, unknown>, at: string): Filter[] {
  // `{}` would be no condition at all, which a client never means (an unset variable, a field emptied by mistake).
  if (!Object.keys(ops).length) throw bad(at, "must name at least one operator");
  const out: Filter[] = [];
  for (const [op, value] of Object.entries(ops)) {
    if (value === null) throw bad(`${at}.${op}`, "must not be null (use is_null to match missing values)");
    if (op === "fuzzy_threshold") {
      if (ops.fuzzy === undefined) throw bad(`${at}.${op}`, "applies only with fuzzy");
    } else if (op === "is_null") {
      const isNull = { operator: "is", path, value: null };
      out.push(value ? isNull : { operator: "not", filters: [isNull] });
    } else if (op === "fuzzy" && ops.fuzzy_threshold != null) {
      out.push({ operator: op, path, value, threshold: ops.fuzzy_threshold });
    } else {
      out.push({ operator: op, path, value });
    }
  }
  return out;
}
