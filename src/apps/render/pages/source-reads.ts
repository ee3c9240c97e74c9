// Which of a page's data sources an expression reads. A source resolves only
// when read, and JSONata reads its input synchronously, so the sources are
// fetched before an expression runs: those its syntax tree names as
// `page.dataSources.<name>` (or `$$.page.dataSources.<name>`). Any other way
// to reach them (the whole scope `$` or `$$`, `page` or `page.dataSources`
// on its own, a computed step, a focus or index binding, the parent
// operator) reads every source of the page, so the answer never misses one
// the expression may reach: it can only fetch more than it needs.
import type jsonata from "jsonata";
import { compileExpression, rootNamesOf } from "../../../lib/smart-values";

/** Every source of the page. */
export const ALL_SOURCES = "*";

export type SourceReads = ReadonlySet<string>;

interface Node {
  type?: string;
  value?: unknown;
  steps?: Node[];
}

/** Keys a step node carries besides what names it; any of them makes the step more than a plain name. */
const PLAIN_STEP_KEYS = new Set(["type", "value", "position"]);
const plainName = (node: Node | undefined, value?: string): node is Node =>
  node?.type === "name" && (value === undefined || node.value === value) && Object.keys(node).every((key) => PLAIN_STEP_KEYS.has(key));

/** The sources `text` reads, or ALL_SOURCES among them; throws ExpressionSyntaxError. */
function readsOf(text: string): Set<string> {
  const roots = rootNamesOf(text);
  if (roots.includes("$") || roots.includes("$$")) return new Set([ALL_SOURCES]);
  if (!roots.includes("page")) return new Set();
  const found = new Set<string>();
  const consumed = new WeakSet<object>();
  const seen = new WeakSet<object>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== "object" || value instanceof RegExp || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) return value.forEach(walk);
    const node = value as Node;
    if (node.type === "parent") found.add(ALL_SOURCES);
    if (node.type === "path" && node.steps) classify(node.steps);
    if (node.type === "name" && node.value === "page" && !consumed.has(node)) found.add(ALL_SOURCES);
    Object.values(node).forEach(walk);
  };
  /** A path: its later steps read what the earlier ones selected, so only a first `page` (or `$$.page`) can read the scope. */
  const classify = (steps: Node[]): void => {
    const start = steps[0]?.type === "variable" && (steps[0].value === "$" || steps[0].value === "") ? 1 : 0;
    steps.forEach((step, i) => i !== start && consumed.add(step));
    const [page, second, third] = steps.slice(start);
    if (!plainName(page, "page") || !second) return;
    if (plainName(second) && second.value !== "dataSources") return void consumed.add(page);
    // `page.dataSources.<name>`, whatever follows the name.
    if (plainName(second, "dataSources") && third?.type === "name" && typeof third.value === "string") {
      consumed.add(page);
      found.add(third.value);
    }
  };
  walk(compileExpression(text).ast as jsonata.ExprNode);
  return found;
}

const cache = new Map<string, Set<string>>();
const MAX_CACHED = 2000;

/** The sources the expressions read together; ALL_SOURCES among them when any may reach every source. */
export function sourceReads(texts: readonly string[]): SourceReads {
  const all = new Set<string>();
  for (const text of texts) {
    let reads = cache.get(text);
    if (!reads) {
      reads = readsOf(text);
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
      cache.set(text, reads);
    }
    for (const name of reads) all.add(name);
  }
  return all;
}
