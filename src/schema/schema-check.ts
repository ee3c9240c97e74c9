// What a JSON Schema must satisfy to be stored (registered, or set inline on an
// entity type), so that validating against it later never fails on the schema
// itself: valid against the 2020-12 meta-schema, every `$ref` resolving inside
// the document, every pattern runnable by the linear-time regex engine.
import { dereference } from "@cfworker/json-schema";
import { patternProblem } from "../lib/linear-regexp";
import { capLines, check, renderPath } from "../lib/validate";
import { META_SCHEMAS } from "./meta-schema";

const META_URI = "https://json-schema.org/draft/2020-12/schema";

/**
 * The validator implements no `$dynamicRef`. With the standard meta-schema as
 * the only dynamic scope, its `"$dynamicRef": "#meta"` always lands on the
 * meta-schema itself, so a plain `$ref` to it means the same.
 */
function staticRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(staticRefs);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => (k === "$dynamicRef" ? ["$ref", META_URI] : [k, staticRefs(v)])));
}

/** The meta-schema with its vocabularies embedded as `$defs` resources (a compound document, 2020-12 section 9.3). */
const [root, ...vocabularies] = META_SCHEMAS.map(staticRefs) as Record<string, unknown>[];
const META = { ...root, $defs: Object.fromEntries(vocabularies.map((v) => [String(v.$id).split("/").pop(), v])) };

/** Values that are data, not schemas: nothing under them is ever evaluated. */
const DATA = new Set(["enum", "const", "default", "examples"]);

/** `<path>: <reason>` lines for everything that makes `schema` unusable; none when it is fine. */
export function schemaProblems(schema: unknown, base = "schema"): string[] {
  const invalid = check(META, schema, base);
  if (invalid.length || typeof schema === "boolean") return invalid;
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(schema as object);
  } catch (e) {
    return [`${base}: ${(e as Error).message}`];
  }
  const problems: string[] = [];
  const at = (segments: string[]) => renderPath(`#/${segments.map((seg) => seg.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`, base);
  const walk = (node: unknown, segments: string[]) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...segments, String(i)]));
    if (node === null || typeof node !== "object") return;
    const s = node as Record<string, unknown> & { __absolute_ref__?: string };
    const problem = (keys: string[], reason: string | undefined) => reason && problems.push(`${at([...segments, ...keys])}: ${reason}`);
    for (const [key, value] of Object.entries(s)) {
      // dereference() stamped each `$ref` it met with the absolute URI the validator will look up.
      if (key === "$ref" && s.__absolute_ref__ !== undefined && lookup[s.__absolute_ref__] === undefined) {
        problem([key], `${JSON.stringify(value)} does not resolve to a schema in this document`);
      }
      if (key === "$dynamicRef") problem([key], "is not supported; use $ref");
      if (key === "pattern" && typeof value === "string") problem([key], patternProblem(value));
      if (key === "patternProperties" && value && typeof value === "object") {
        for (const p of Object.keys(value)) problem([key, p], patternProblem(p));
      }
      if (!DATA.has(key)) walk(value, [...segments, key]);
    }
  };
  walk(schema, []);
  return capLines(problems);
}
