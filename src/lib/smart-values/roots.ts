// What an expression reads from its scope, found on the compiled syntax tree,
// so a definition can be checked at save time against the names its field
// will see (an action's `config` reading `context` is refused there).
import type jsonata from "jsonata";

/** The fields of JSONata's tree nodes read here; its declared ExprNode type lists fewer. */
interface Node {
  type: string;
  value?: unknown;
  steps?: Node[];
  lhs?: Node | [Node, Node][];
  rhs?: Node;
  arguments?: Node[];
  procedure?: Node;
  expressions?: Node[];
  condition?: Node;
  then?: Node;
  else?: Node;
  body?: Node;
  pattern?: Node;
  update?: Node;
  delete?: Node;
  expression?: Node;
  predicate?: { expr: Node }[];
  stages?: { expr: Node }[];
  group?: { lhs: [Node, Node][] };
  terms?: { expression: Node }[];
}

/**
 * Adds to `names` each scope key `node` reads, where `atRoot` says whether
 * the node is evaluated against the scope itself (top level, arguments,
 * lambda bodies) or against items reached from it (later path steps,
 * predicates, sort keys), whose names are relative.
 */
function visit(node: Node | undefined, atRoot: boolean, names: Set<string>): void {
  if (!node || typeof node !== "object") return;
  const children = (list: (Node | undefined)[] | undefined, root: boolean) => list?.forEach((child) => visit(child, root, names));
  switch (node.type) {
    case "path": {
      const [first, second, ...rest] = node.steps as Node[];
      // `$.a` and `$$.a` read `a` from the scope just as `a` does.
      const anchored = first.type === "variable" && (first.value === "$" || (first.value === "" && atRoot)) && second?.type === "name";
      if (anchored) {
        names.add(second.value as string);
        visitRelatives(second, names);
      } else {
        visit(first, atRoot, names);
        if (second) visit(second, false, names);
      }
      children(rest, false);
      node.group?.lhs.forEach(([key, value]) => (visit(key, false, names), visit(value, false, names)));
      break;
    }
    case "name":
      if (atRoot) names.add(node.value as string);
      break;
    case "variable":
      if (node.value === "$") names.add("$$");
      else if (node.value === "" && atRoot) names.add("$");
      break;
    case "wildcard":
    case "descendant":
      if (atRoot) names.add("$");
      break;
    case "binary":
    case "apply":
      visit(node.lhs as Node, atRoot, names);
      visit(node.rhs, atRoot, names);
      break;
    case "bind":
      visit(node.rhs, atRoot, names);
      break;
    case "unary":
      visit(node.expression, atRoot, names);
      children(node.expressions, atRoot);
      if (node.value === "{") (node.lhs as [Node, Node][]).forEach(([key, value]) => (visit(key, atRoot, names), visit(value, atRoot, names)));
      break;
    case "function":
    case "partial":
      visit(node.procedure, atRoot, names);
      children(node.arguments, atRoot);
      break;
    case "lambda":
      // A lambda's body runs against the input where the lambda was written.
      visit(node.body, atRoot, names);
      break;
    case "condition":
      children([node.condition, node.then, node.else], atRoot);
      break;
    case "block":
      children(node.expressions, atRoot);
      break;
    case "transform":
      // A transform is applied to the value piped into it, never to the scope directly.
      children([node.pattern, node.update, node.delete], false);
      break;
    case "sort":
      children(
        node.terms?.map((term) => term.expression),
        false,
      );
      break;
  }
  visitRelatives(node, names);
}

/** Predicates, filter stages and grouping read the items they apply to, never the scope. */
function visitRelatives(node: Node, names: Set<string>): void {
  for (const stage of [...(node.predicate ?? []), ...(node.stages ?? [])]) visit(stage.expr, false, names);
  if (node.type !== "path") node.group?.lhs.forEach(([key, value]) => (visit(key, false, names), visit(value, false, names)));
}

/** The scope keys an expression tree reads, in order of appearance; `$` and `$$` stand for reads of the whole scope. */
export function rootNames(ast: jsonata.ExprNode): string[] {
  const names = new Set<string>();
  visit(ast as unknown as Node, true, names);
  return [...names];
}

/** What `pick` finds in a tree, in tree order; a found node is not searched further. */
function collect<T>(ast: jsonata.ExprNode, pick: (node: { type?: unknown; value?: unknown; position?: number }) => T | undefined): T[] {
  const found: T[] = [];
  const seen = new WeakSet<object>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== "object" || value instanceof RegExp || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) value.forEach(walk);
    else {
      const hit = pick(value as { type?: unknown; value?: unknown; position?: number });
      if (hit !== undefined) found.push(hit);
      else Object.values(value).forEach(walk);
    }
  };
  walk(ast);
  return found;
}

/** Every regex literal in a tree with its position, for the compile-time check that RE2 can run it. */
export function regexLiterals(ast: jsonata.ExprNode): { re: RegExp; position: number }[] {
  return collect(ast, (node) => (node.type === "regex" && node.value instanceof RegExp ? { re: node.value, position: node.position ?? 0 } : undefined));
}

/** Every use of a variable named in `names` (`$eval` is the variable `eval`), called or not, with its position. */
export function variablesNamed(ast: jsonata.ExprNode, names: ReadonlySet<string>): { name: string; position: number }[] {
  return collect(ast, (node) =>
    node.type === "variable" && typeof node.value === "string" && names.has(node.value) ? { name: node.value, position: node.position ?? 0 } : undefined,
  );
}
