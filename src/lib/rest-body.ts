// A workflow action or an app command that stands for a REST route takes that
// route's body with its keys in camelCase, as every key of a document is. The config schema is
// that route's body schema with its declared property names renamed, so the
// rules (types, bounds, one-of pairs) are the route's own; the resolved
// config goes back to the route's body by the same schema before the service
// sees it. Values under keys no schema declares (a filter, attributes) are
// data and keep their keys as written.
type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** `type_name` → `typeName`. */
export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

type Alphanumeric =
  | "a"
  | "b"
  | "c"
  | "d"
  | "e"
  | "f"
  | "g"
  | "h"
  | "i"
  | "j"
  | "k"
  | "l"
  | "m"
  | "n"
  | "o"
  | "p"
  | "q"
  | "r"
  | "s"
  | "t"
  | "u"
  | "v"
  | "w"
  | "x"
  | "y"
  | "z"
  | "0"
  | "1"
  | "2"
  | "3"
  | "4"
  | "5"
  | "6"
  | "7"
  | "8"
  | "9";

/** `camelKey` at the type level: each `_` before a lowercase letter or digit dropped and that character upper-cased. */
export type CamelKey<K extends string> = K extends `${infer Head}_${infer C}${infer Rest}`
  ? C extends Alphanumeric
    ? `${Head}${Uppercase<C>}${CamelKey<Rest>}`
    : `${Head}_${CamelKey<`${C}${Rest}`>}`
  : K;

// Keywords whose values are instances, not schemas: never renamed.
const INSTANCE_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
type InstanceKeyword = "enum" | "const" | "default" | "examples";

/** What `camelSchema` makes of a schema, as a type: FromSchema of it is the camelCase config. */
export type CamelSchema<S> = S extends readonly unknown[]
  ? { readonly [I in keyof S]: CamelSchema<S[I]> }
  : S extends object
    ? {
        readonly [K in keyof S]: K extends "properties"
          ? CamelProperties<S[K]>
          : K extends "required"
            ? CamelNames<S[K]>
            : K extends InstanceKeyword
              ? S[K]
              : CamelSchema<S[K]>;
      }
    : S;

type CamelProperties<P> = P extends readonly unknown[]
  ? CamelSchema<P>
  : P extends object
    ? { readonly [N in keyof P as N extends string ? CamelKey<N> : N]: CamelSchema<P[N]> }
    : P;

type CamelNames<R> = R extends readonly unknown[] ? { readonly [I in keyof R]: R[I] extends string ? CamelKey<R[I]> : R[I] } : CamelSchema<R>;

/** A REST body schema with every declared property name in camelCase (`properties` keys and `required` lists, at any depth). */
export function camelSchema<S extends object>(schema: S): CamelSchema<S> {
  return rename(schema) as CamelSchema<S>;
}

function rename(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rename);
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === "properties" && isNode(value)) out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [camelKey(name), rename(sub)]));
    else if (keyword === "required" && Array.isArray(value)) out[keyword] = value.map((name) => camelKey(String(name)));
    else out[keyword] = INSTANCE_KEYWORDS.has(keyword) ? value : rename(value);
  }
  return out;
}

/**
 * A config the camelCase schema accepted, as the REST body `schema` (the
 * route's own, snake_case) describes: each declared key renamed, at any
 * depth the schema declares; everything else as it is.
 */
export function restBody<T>(schema: object, config: unknown): T {
  return toRest(schema, config) as T;
}

function toRest(schema: unknown, value: unknown): unknown {
  if (!isNode(schema)) return value;
  if (Array.isArray(value)) return isNode(schema.items) ? value.map((v) => toRest(schema.items, v)) : value;
  if (!isNode(value)) return value;
  const declared = declaredProperties(schema);
  if (!declared.size) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const found = declared.get(key);
      return found ? [found.name, toRest(found.schema, v)] : [key, v];
    }),
  );
}

/** The properties a schema declares, by camelCase name, including those its allOf/oneOf/anyOf branches declare (the first declaration with a schema wins). */
function declaredProperties(schema: Node): Map<string, { name: string; schema: unknown }> {
  const found = new Map<string, { name: string; schema: unknown }>();
  const visit = (node: unknown) => {
    if (!isNode(node)) return;
    if (isNode(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        const known = found.get(camelKey(name));
        if (!known || (!isNode(known.schema) && isNode(sub))) found.set(camelKey(name), { name, schema: sub });
      }
    }
    for (const keyword of ["allOf", "oneOf", "anyOf"]) if (Array.isArray(node[keyword])) (node[keyword] as unknown[]).forEach(visit);
  };
  visit(schema);
  return found;
}
