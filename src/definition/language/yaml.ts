// `source_yaml` to the JSON document the checks read. Only what JSON can
// hold comes through: the YAML 1.2 core schema, no custom or 1.1 tags
// (`!!binary`, `!!set`, `!!timestamp`), string keys, no merge keys, one
// document, and anchors expanded within a bounded alias count (a
// "billion laughs" text fails instead of growing).
import { LineCounter, parseDocument, type YAMLError } from "yaml";
import { jsonProblems, MAX_JSON_DEPTH, problemLines } from "../../lib/input-guard";

/** Alias expansions one document may make. */
export const MAX_ALIAS_COUNT = 100;

export type YamlResult = { value: Record<string, unknown>; problems?: undefined } | { value?: undefined; problems: string[] };

function line(error: YAMLError, lines: LineCounter): string {
  const { line: l, col } = lines.linePos(error.pos[0]);
  return `source_yaml: ${error.message} (line ${l}, column ${col})`;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The first value that JSON cannot hold: a node containing itself (an alias
 * to its own anchor) or a non-JSON object. Depth beyond the input guard's
 * bound is left to the guard, which reports it.
 */
function notJson(value: unknown, path: string, ancestors: Set<object>): string | null {
  if (value === null || typeof value !== "object") return null;
  if (ancestors.has(value)) return `${path}: an alias refers to a node that contains it`;
  if (!Array.isArray(value) && !isPlainObject(value)) return `${path}: is not a JSON value`;
  if (ancestors.size >= MAX_JSON_DEPTH) return null;
  ancestors.add(value);
  try {
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value).map(([k, v]) => [`.${k}`, v]);
    for (const [key, child] of entries) {
      const problem = notJson(child, path + key, ancestors);
      if (problem) return problem;
    }
    return null;
  } finally {
    ancestors.delete(value);
  }
}

/** Parses `source_yaml`; problems are `source_yaml: <reason> (line L, column C)` lines, or paths under `definition_json`. */
export function parseWorkflowYaml(text: string): YamlResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    schema: "core",
    merge: false,
    uniqueKeys: true,
    stringKeys: true,
    resolveKnownTags: false,
    strict: true,
    prettyErrors: false,
    // "silent" would drop errors too (a second document among them); "error" only keeps warnings off the console.
    logLevel: "error",
    lineCounter: lines,
  });
  // An unresolved tag is only a warning to the parser, which then reads the value as plain text.
  const problems = [...doc.errors, ...doc.warnings].map((e) => line(e, lines));
  if (problems.length) return { problems };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    return { problems: [`source_yaml: ${(e as Error).message}`] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { problems: ["source_yaml: must be a mapping at the top level"] };
  const shape = notJson(value, "definition_json", new Set());
  if (shape) return { problems: [shape] };
  const guard = jsonProblems(value, { base: "definition_json" });
  if (guard.length) return { problems: problemLines(guard) };
  return { value: value as Record<string, unknown> };
}
