// Contracts of any document kind: one contract each for input and output,
// embedded (`inputSchema`) or named (`inputSchemaName`), and an embedded
// schema must be a usable JSON Schema whose `$ref`s stay within it.
import { schemaProblems } from "../../schema/schema-check";
import { child, has, isObject, type Collector, type Obj } from "./collector";

/** `$ref`s other than `#...`, under an embedded schema (data keywords skipped, as evaluation skips them). */
function outsideRefs(schema: unknown, path: string, out: string[]): void {
  const stack: [unknown, string][] = [[schema, path]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (Array.isArray(node)) node.forEach((v, i) => stack.push([v, child(at, i)]));
    if (!isObject(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) out.push(`${child(at, key)}: ${JSON.stringify(value)} must point within the same schema (#...)`);
      if (!["enum", "const", "default", "examples"].includes(key)) stack.push([value, child(at, key)]);
    }
  }
}

/** The input and output contracts of `owner`. */
export function checkContracts(found: Collector, owner: Obj, path: string): void {
  for (const side of ["input", "output"]) {
    const embedded = `${side}Schema`;
    const named = `${side}SchemaName`;
    if (has(owner, embedded) && has(owner, named)) found.add(child(path, named), `cannot be set together with ${embedded}; use one form for the ${side} contract`);
    const schema = owner[embedded];
    if (!isObject(schema) && typeof schema !== "boolean") continue;
    const refs: string[] = [];
    outsideRefs(schema, child(path, embedded), refs);
    for (const line of refs.length ? refs : schemaProblems(schema, child(path, embedded))) found.lines.push(line);
  }
}
