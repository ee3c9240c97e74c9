// Hostile values and the JSON text that carries them. JSON.stringify cannot
// write a number Postgres or JavaScript would not keep (1e400), a key twice,
// or nesting deeper than its own stack, so those travel as markers that
// `toJsonText` writes verbatim.

/** JSON text written as is where a value goes. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object whose entries may repeat a key (the later one is what JSON.parse keeps). */
export class Dup {
  constructor(readonly entries: [string, unknown][]) {}
}

export function toJsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Dup) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(",")}}`;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") return toJsonText(new Dup(Object.entries(value)));
  return JSON.stringify(value) ?? "null";
}

/** A hostile value and what kind of hostility it is (the finding's label). */
export interface Hostile<T = unknown> {
  kind: string;
  value: T;
}

const h = (kind: string, ...values: unknown[]): Hostile[] => values.map((value) => ({ kind, value }));
const hs = (kind: string, ...values: string[]): Hostile<string>[] => values.map((value) => ({ kind, value }));

const deepArray = (n: number) => new Raw(`${"[".repeat(n)}${"]".repeat(n)}`);
const deepObject = (n: number) => new Raw(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`);

/** Values inserted into JSON bodies. */
export const BODY_VALUES: Hostile<unknown>[] = [
  ...h("nul", "a\u0000b", "\u0000"),
  ...h("lone-surrogate", "\ud800", "x\udfff"),
  ...h("odd-text", "", " ", "'; DROP TABLE entities; --", "%_\\", "e\u0301", "\u202e\ufeff", "日本😀", "=1+1", "__proto__"),
  ...h("long-text", "x".repeat(10_001), "k".repeat(300_000)),
  ...h("deep", deepArray(40), deepArray(10_000), deepObject(200), deepObject(10_000)),
  ...h("non-finite-number", new Raw("1e400"), new Raw("-1e400"), new Raw("1e-400")),
  ...h("big-number", new Raw("123456789012345678901234567890"), 1.7976931348623157e308, -0, 2 ** 53 + 1, -2147483649, 0.1),
  ...h("wrong-type", null, true, 0, -1, 1.5, "string", [], {}, [null], { "": null }, ["a", 1, null]),
  ...h("prototype", new Raw('{"__proto__":{"polluted":1}}'), { constructor: { prototype: 1 } }),
];

/**
 * Values for path segments and query parameters, already percent-encoded:
 * a lone surrogate cannot be percent-encoded (encodeURIComponent throws), so
 * it goes as the bytes UTF-8 would give it, which are not valid UTF-8.
 */
export const URL_VALUES: Hostile<string>[] = [
  ...hs("nul", "%00", "a%00b"),
  ...hs("lone-surrogate", "%ED%A0%80", "%FF"),
  ...hs("odd-text", "", "%20", "..", "%2F", "'%3B%20DROP%20TABLE%20entities%3B%20--", "%25", "e%CC%81", "__proto__"),
  ...hs("long-text", "x".repeat(10_001)),
  ...hs("non-finite-number", "1e400", "-1", "NaN", "Infinity", "0", "99999999999999999999", "1.5"),
  ...hs("wrong-type", "true", "null", "[]", "%7B%7D", "not-a-uuid", "00000000-0000-0000-0000-00000000000g"),
  ...hs("nil-uuid", "00000000-0000-0000-0000-000000000000"),
];

/** Cells of hostile CSV: what a spreadsheet, Postgres or the JSON cell converter may choke on. */
export const CSV_CELLS: Hostile<string>[] = [
  ...hs("nul", "a\u0000b"),
  ...hs("lone-surrogate", "\ud800"),
  ...hs("odd-text", '"', '"unbalanced', '=HYPERLINK("x")', "a\r\nb", ";", "\ufeffname"),
  ...hs("long-text", "k".repeat(300_000)),
  ...hs("deep", `"${"[".repeat(10_000)}${"]".repeat(10_000)}"`, `"${"[".repeat(40)}${"]".repeat(40)}"`),
  ...hs("non-finite-number", "1e400", "-1e400", "1e-400", "NaN"),
  ...hs("wrong-type", "", "null", "true", "{}", "[1]", '"{""a"":1}"'),
];
