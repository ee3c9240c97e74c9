// An example value for a schema of the document, built from the schema itself:
// its own `examples`, `const`, `default` or first `enum` value where it gives
// one, else the smallest value of its type that its bounds and formats allow.
// A route declares its own example where a built one would say too little or
// cannot satisfy the schema (a pattern, a dependency between fields);
// test/openapi/document.test.ts holds every example to its schema.
import { linearRegExp } from "../lib/linear-regexp";
import { check, type JsonSchema } from "../lib/validate";

type Node = Record<string, any>;
type Components = Record<string, unknown>;

/** Values a string with this format takes. */
const FORMATS: Record<string, string> = {
  uuid: "0b6f3a52-5d1e-4c6e-9f1a-3e2d4c5b6a71",
  "date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  time: "09:30:00Z",
  email: "ada@example.com",
  uri: "https://example.com/a",
  url: "https://example.com/a",
  "uri-reference": "https://example.com/a",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  duration: "PT1H",
};

/** Strings tried, in order, against a pattern the schema sets. */
const CANDIDATES = [
  "example",
  "Example",
  "example_1",
  "EXAMPLE",
  "a",
  "x1",
  "1",
  "0b6f3a52-5d1e-4c6e-9f1a-3e2d4c5b6a71",
  "2026-01-15",
  "https://example.com/a",
  "sha256:" + "0".repeat(64),
];

const MAX_DEPTH = 8;

function resolve(schema: unknown, components: Components): unknown {
  let node = schema;
  for (let hops = 0; node && typeof node === "object" && typeof (node as Node).$ref === "string" && hops < 10; hops++) {
    const name = /^#\/components\/schemas\/(.+)$/.exec((node as Node).$ref)?.[1];
    if (!name || !(name in components)) return {};
    node = components[name];
  }
  return node;
}

/** True when `value` satisfies `schema`, whose `$ref`s point into the document's components. */
export function fits(schema: unknown, value: unknown, components: Components): boolean {
  const root = typeof schema === "object" && schema !== null ? { ...schema, components: { schemas: components } } : schema;
  try {
    return check(root as JsonSchema, value).length === 0;
  } catch {
    return false;
  }
}

function merged(base: Node, branch: unknown, components: Components): Node {
  const b = resolve(branch, components) as Node;
  if (typeof b !== "object" || b === null) return base;
  const { oneOf: _o, anyOf: _a, ...rest } = base;
  return {
    ...rest,
    ...b,
    ...(rest.properties || b.properties ? { properties: { ...rest.properties, ...b.properties } } : {}),
    ...(rest.required || b.required ? { required: [...new Set([...(rest.required ?? []), ...(b.required ?? [])])] } : {}),
  };
}

function stringOf(s: Node): string {
  if (typeof s.format === "string" && FORMATS[s.format]) return FORMATS[s.format];
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const sized = (v: string) => (v.length < min ? v.padEnd(min, "x") : v).slice(0, max);
  if (typeof s.pattern === "string") {
    const re = linearRegExp(s.pattern);
    return CANDIDATES.map(sized).find((v) => re.test(v)) ?? sized("example");
  }
  return sized("example");
}

function numberOf(s: Node, integer: boolean): number {
  let n = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
  if (typeof s.maximum === "number" && n > s.maximum) n = s.maximum;
  if (typeof s.multipleOf === "number") n = Math.ceil(n / s.multipleOf) * s.multipleOf;
  return integer ? Math.ceil(n) : n;
}

function build(schema: unknown, components: Components, depth: number): unknown {
  const resolved = resolve(schema, components);
  // `true` (or no schema) takes anything; `false` takes nothing, so no value is right and null is as good as any.
  if (typeof resolved !== "object" || resolved === null) return resolved === false ? null : "example";
  const s = resolved as Node;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ("const" in s) return s.const;
  if ("default" in s) return s.default;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (depth > MAX_DEPTH) return null;
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives)) {
    const tried = alternatives.map((branch) => build(merged(s, branch, components), components, depth + 1));
    return tried.find((v) => fits(s, v, components)) ?? tried[0];
  }
  if (Array.isArray(s.allOf))
    return build(
      s.allOf.reduce((acc: Node, part: unknown) => merged(acc, part, components), { ...s, allOf: undefined }),
      components,
      depth + 1,
    );
  const types: string[] = [s.type ?? (s.properties ? "object" : s.items ? "array" : undefined)].flat().filter((t) => t !== undefined);
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const properties: Node = s.properties ?? {};
      const required: string[] = s.required ?? [];
      const of = (names: string[]) =>
        Object.fromEntries(
          names.map((name) => [
            name,
            name in properties ? build(properties[name], components, depth + 1) : build(s.additionalProperties, components, depth + 1),
          ]),
        );
      const full = of([...new Set([...required, ...Object.keys(properties)])]);
      if (fits(s, full, components)) return full;
      // Fields that exclude each other or a minimum count: the required ones, then each optional one that keeps the value valid.
      let value = of(required);
      for (const name of Object.keys(properties).filter((n) => !required.includes(n))) {
        const more = { ...value, ...of([name]) };
        if (fits(s, more, components) || !fits(s, value, components)) value = more;
      }
      return fits(s, value, components) ? value : of(required);
    }
    case "array": {
      const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems.map((p: unknown) => build(p, components, depth + 1)) : [];
      const count = Math.max(s.minItems ?? 1, prefix.length + (s.items === false ? 0 : 1)) - prefix.length;
      const items =
        s.items === false || s.items === undefined
          ? []
          : Array.from({ length: Math.min(count, s.maxItems ?? count) }, () => build(s.items, components, depth + 1));
      return [...prefix, ...items];
    }
    case "string":
      return stringOf(s);
    case "integer":
      return numberOf(s, true);
    case "number":
      return numberOf(s, false);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return {};
  }
}

/** An example of `schema`, whose `$ref`s point into the document's component schemas. */
export function exampleOf(schema: unknown, components: Components): unknown {
  return build(schema, components, 0);
}
