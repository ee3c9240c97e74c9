// CSV columns for entities, on import and export: entity fields by
// name, attributes by dotted path; cell text converted by the type's schema.
import type { JsonSchema } from "../../lib/validate";

/** Entity fields a CSV column can name; every other column is an attribute path. */
export const ENTITY_FIELDS = ["id", "name", "identifier_key", "created_at", "updated_at"] as const;
export type EntityField = (typeof ENTITY_FIELDS)[number];

export type Column = { field: EntityField } | { attribute: string[] };

export function columnOf(target: string): Column {
  if ((ENTITY_FIELDS as readonly string[]).includes(target)) return { field: target as EntityField };
  return { attribute: (target.startsWith("attributes.") ? target.slice("attributes.".length) : target).split(".") };
}

/** Attribute paths as column names; one that reads as an entity field is spelled `attributes.<path>`. */
export function attributeColumns(paths: string[]): string[] {
  return paths.map((p) => ((ENTITY_FIELDS as readonly string[]).includes(p) || p.startsWith("attributes.") ? `attributes.${p}` : p));
}

type SchemaNode = { type?: string | string[]; properties?: Record<string, SchemaNode>; items?: unknown };

/** The schema node at an attribute path, when the schema describes it. */
export function schemaAt(schema: JsonSchema, path: string[]): SchemaNode | undefined {
  let node = schema as SchemaNode | undefined;
  for (const seg of path) node = node?.properties?.[seg];
  return node;
}

/**
 * The export columns a schema implies, in alphabetical order (the stored
 * schema is jsonb, which keeps no key order): nested objects with declared
 * properties are flattened into dotted names, anything else is one column.
 */
export function schemaColumns(schema: JsonSchema): string[] {
  const out: string[] = [];
  const walk = (node: SchemaNode, prefix: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      if (child?.properties && Object.keys(child.properties).length) walk(child, `${prefix}${key}.`);
      else out.push(`${prefix}${key}`);
    }
  };
  walk(schema as SchemaNode, "");
  return out.sort();
}

function primaryType(node: SchemaNode | undefined): string | undefined {
  const t = node?.type;
  return Array.isArray(t) ? t.find((x) => x !== "null") : t;
}

/**
 * A cell's value for an attribute. An unquoted empty cell means "no value"
 * (undefined); `""` quoted is the empty string. Numbers, booleans, arrays and
 * objects are read as the schema says; arrays and objects are JSON text.
 * Returns an error reason instead of a value when the text does not fit.
 */
export function cellValue(text: string, quoted: boolean, node: SchemaNode | undefined): { value: unknown } | { error: string } {
  if (text === "" && !quoted) return { value: undefined };
  switch (primaryType(node)) {
    case "integer":
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n)) return { error: `"${text.slice(0, 40)}" is not a number` };
      return { value: n };
    }
    case "boolean":
      if (/^(true|1|yes)$/i.test(text)) return { value: true };
      if (/^(false|0|no)$/i.test(text)) return { value: false };
      return { error: `"${text.slice(0, 40)}" is not a boolean` };
    case "array":
    case "object":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: `is not JSON ${primaryType(node)} text` };
      }
    default:
      return { value: text };
  }
}

/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The text of a value in a cell, RFC 4180 quoted when it must be; missing and
 * null are an empty cell. With `escapeFormulas`, a string starting like a
 * formula gets a leading `'`, which spreadsheets take as "this is text".
 * Only strings: a number is written as the number (`-5`), which a spreadsheet
 * reads as a number, never as a formula; JSON arrays and objects start with
 * `[` or `{`.
 */
export function cellText(value: unknown, escapeFormulas = false): string {
  if (value === undefined || value === null) return "";
  let text = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (escapeFormulas && typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return text === "" || /[",\r\n]/.test(text) || text.trim() !== text ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One RFC 4180 line (CRLF-terminated) of cells as `cellText` writes them: the one CSV line writer. */
export function csvLine(values: readonly unknown[], escapeFormulas = false): string {
  return `${values.map((v) => cellText(v, escapeFormulas)).join(",")}\r\n`;
}

/** Sets a nested attribute; defined as own data so a `__proto__` column stays a plain key. */
export function setAtPath(attributes: Record<string, unknown>, path: string[], value: unknown): void {
  const own = (obj: Record<string, unknown>, key: string, v: unknown) =>
    Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  let cur = attributes;
  for (const seg of path.slice(0, -1)) {
    const next = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    if (next !== null && typeof next === "object" && !Array.isArray(next)) cur = next as Record<string, unknown>;
    else {
      const child: Record<string, unknown> = {};
      own(cur, seg, child);
      cur = child;
    }
  }
  own(cur, path[path.length - 1], value);
}
