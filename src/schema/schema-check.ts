// What a JSON Schema must satisfy to be stored (registered, set inline on an
// entity type, or written in a workflow definition), so that validating
// against it later never fails on the schema itself: a `$schema` naming a
// draft the service speaks (draft-07, 2019-09 or 2020-12; none means 2020-12),
// valid against that draft's meta-schema, every `$ref` resolving inside the
// document or to a meta-schema the service holds, every pattern runnable by
// the linear-time regex engine.
import { DRAFT_URIS, draftNamed, draftOf, META_SCHEMA } from "../lib/json-schema/drafts";
import { patternProblem } from "../lib/linear-regexp";
import { capLines, check, lookupFor, renderPath, type Lookup } from "../lib/validate";

/** Values that are data, not schemas: nothing under them is ever evaluated. */
const DATA = new Set(["enum", "const", "default", "examples"]);

const SUPPORTED = Object.values(DRAFT_URIS).join(", ");

/** `<path>: <reason>` lines for everything that makes `schema` unusable; none when it is fine. */
export function schemaProblems(schema: unknown, base = "schema"): string[] {
  const declared = schema !== null && typeof schema === "object" ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof declared === "string" && !draftNamed(declared)) {
    return [`${renderPath("#/$schema", base)}: names no draft this service validates by (${SUPPORTED}, or none for 2020-12)`];
  }
  const draft = draftOf(schema);
  const invalid = check(META_SCHEMA[draft], schema, base);
  if (invalid.length || typeof schema === "boolean") return invalid;
  let lookup: Lookup;
  try {
    lookup = lookupFor(schema as object);
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
      if (key === "$dynamicRef" && draft === "2020-12") problem([key], "is not supported; use $ref");
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
