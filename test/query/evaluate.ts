// An in-memory model of docs/query.md for the filter property test: what a
// filter must answer on a handful of rows, or that it must be refused with a
// 422. It shares no code with src/entity/query, so the two can disagree.
//
// The answer per row is three-valued: true, false, or undefined where it
// turns on something the model leaves to Postgres (trigram similarity of
// non-ASCII text, a float4 tie with a fuzzy threshold, text with characters
// outside the unaccent table below). A row whose answer is undefined is not
// checked; everything else is.

export type IndexedType = "text" | "numeric" | "timestamptz" | "boolean" | "text_array";

export interface TypeModel {
  name: string;
  nameSearch: boolean;
  indexed: { path: string[]; type: IndexedType; searchable: boolean }[];
}

export interface Row {
  id: string;
  name: string;
  typeName: string;
  attributes: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** The tenant's types: the queried one and every other a relationship path may name. */
export interface World {
  root: TypeModel;
  types: TypeModel[];
}

export type Truth = boolean | undefined;
type Holds = (row: Row) => Truth;

export type Verdict = { valid: true; holds: Holds } | { valid: false; at: string; reason: string };

const MAX_DEPTH = 25;
const MAX_PATH = 12;
const MAX_TEXT = 10_000;
const MAX_IN = 1000;
const DEFAULT_THRESHOLD = 0.6;

const COMPOSITES = ["and", "or", "not"];
const OPERATORS = ["eq", "neq", "is", "gt", "gte", "lt", "lte", "in", "like", "ilike", "segment", "fuzzy", "cs", "ov", "exists", "rel_exists"];
const RANGES = ["gt", "gte", "lt", "lte"];
const TEXT_OPERATORS = ["like", "ilike", "segment", "fuzzy"];
const PARTICLE_KEYS = ["operator", "path", "value", "optional", "threshold"];

/**
 * Postgres unaccent for the characters the data set and the generated
 * patterns use; the property test checks this table against the database
 * before it relies on it. ASCII is left alone by unaccent.
 */
export const UNACCENT: Readonly<Record<string, string>> = {
  é: "e",
  è: "e",
  É: "E",
  ê: "e",
  ï: "i",
  Æ: "AE",
  æ: "ae",
  ø: "o",
  ß: "ss",
  Ü: "U",
  ü: "u",
  ö: "o",
  ñ: "n",
  ú: "u",
  û: "u",
  "\u0301": "",
};
/** Characters unaccent leaves as they are (beyond ASCII). */
export const UNACCENTED = ["Ω", "ω", "日", "本", "語", "🙂"];

const modelled = (s: string) => [...s].every((c) => c.charCodeAt(0) < 0x80 || c in UNACCENT || UNACCENTED.includes(c));
const unaccent = (s: string) => [...s].map((c) => UNACCENT[c] ?? c).join("");

class Invalid extends Error {
  constructor(
    readonly at: string,
    reason: string,
  ) {
    super(reason);
  }
}

const invalid = (at: string, reason: string): never => {
  throw new Invalid(at, reason);
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const always =
  (truth: boolean): Holds =>
  () =>
    truth;

/** Kleene logic: false wins an `and`, true wins an `or`, otherwise unknown stays unknown. */
function all(parts: Holds[], row: Row): Truth {
  let unknown = false;
  for (const p of parts) {
    const t = p(row);
    if (t === false) return false;
    if (t === undefined) unknown = true;
  }
  return unknown ? undefined : true;
}

function any(parts: Holds[], row: Row): Truth {
  let unknown = false;
  for (const p of parts) {
    const t = p(row);
    if (t === true) return true;
    if (t === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

const not = (t: Truth): Truth => (t === undefined ? undefined : !t);

/** Postgres text: by code point under the database's C.UTF-8 collation (JS `<` compares UTF-16 units, which differs beyond the BMP). */
function compareText(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
}

function compare<T>(op: string, a: T, b: T, cmp: (a: T, b: T) => number): boolean {
  const d = cmp(a, b);
  switch (op) {
    case "eq":
      return d === 0;
    case "neq":
      return d !== 0;
    case "gt":
      return d > 0;
    case "gte":
      return d >= 0;
    case "lt":
      return d < 0;
    default:
      return d <= 0;
  }
}

const byNumber = (a: number, b: number) => Math.sign(a - b);
const byInstant = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

// --- timestamps ------------------------------------------------------------

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Microseconds since the epoch of an RFC 3339 timestamp (a space may stand
 * for the T, as RFC 3339 allows), or undefined when `s` is not one. RFC 3339's
 * leap second (:60) is outside the model.
 */
function instant(s: string): bigint | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (days === undefined || d < 1 || d > days || h > 23 || mi > 59 || sec > 59) return undefined;
  const offH = m[9] === undefined ? 0 : Number(m[9]);
  const offM = m[10] === undefined ? 0 : Number(m[10]);
  if (offH > 23 || offM > 59) return undefined;
  const offset = (m[8] === "-" ? -1 : 1) * (offH * 60 + offM);
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi - offset, sec, 0);
  // Postgres keeps microseconds, rounding any further digits.
  const micros = Math.round(Number(`0.${m[7] ?? "0"}`) * 1e6);
  return BigInt(utc.getTime()) * 1000n + BigInt(micros);
}

// --- attribute values ----------------------------------------------------

const MISSING = Symbol("missing");
const UNKNOWN = Symbol("unknown");

/** strtoint as jsonb's `#>` reads an array subscript: leading blanks and a sign allowed, int4 range. */
function subscript(seg: string, length: number): number | undefined {
  if (!/^[ \t\n\v\f\r]*[+-]?\d+$/.test(seg)) return undefined;
  const n = Number(seg.trim());
  if (n > 2 ** 31 - 1 || n < -(2 ** 31)) return undefined;
  if (n >= 0) return n < length ? n : undefined;
  return -n > length ? undefined : length + n;
}

/** `attributes #> path`: object keys exactly, array elements by subscript, nothing below a scalar. */
function extract(root: unknown, path: string[]): unknown {
  let cur = root;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      const i = subscript(seg, cur.length);
      if (i === undefined) return MISSING;
      cur = cur[i];
    } else if (isRecord(cur)) {
      if (!Object.hasOwn(cur, seg)) return MISSING;
      cur = cur[seg];
    } else {
      return MISSING;
    }
  }
  return cur;
}

/** A JS number as Postgres numeric prints it: the same digits, never an exponent. */
function plainDecimal(n: number): string {
  const [mantissa, exp] = String(n).split("e");
  if (exp === undefined) return mantissa;
  const sign = mantissa.startsWith("-") ? "-" : "";
  const [int, frac = ""] = mantissa.replace("-", "").split(".");
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `attributes #>> path`: null when missing or JSON null; objects print in jsonb's own layout, which the model leaves alone. */
function textForm(v: unknown): string | null | typeof UNKNOWN {
  if (v === MISSING || v === null) return null;
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return plainDecimal(v);
  return UNKNOWN;
}

/** A stored value that is no timestamp or number in any spelling Postgres reads: no digits and none of its special words. */
const plainlyNot = (v: unknown, words: RegExp) => {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return !/\d/.test(text) && !words.test(text);
};

type Typed = string | number | bigint | boolean | string[] | null | typeof UNKNOWN;

/** The value of an indexed attribute as its declared type reads it; a stored value that does not convert is missing (null). */
function typedValue(v: unknown, type: IndexedType): Typed {
  if (v === MISSING || v === null) return null;
  switch (type) {
    case "text":
      return textForm(v);
    case "numeric":
      if (typeof v === "number") return v;
      return plainlyNot(v, /nan|inf/i) ? null : UNKNOWN;
    case "boolean":
      return v === true || v === "true" ? true : v === false || v === "false" ? false : null;
    case "timestamptz": {
      const at = typeof v === "string" ? instant(v) : undefined;
      if (at !== undefined) return at;
      return plainlyNot(v, /epoch|now|today|tomorrow|yesterday|infinity|allballs/i) ? null : UNKNOWN;
    }
    case "text_array":
      return Array.isArray(v) && v.every((e) => typeof e === "string") ? (v as string[]) : null;
  }
}

// --- text operators --------------------------------------------------------

/** A LIKE pattern as a regular expression over code points, or undefined when it ends in the escape character. */
function likePattern(pattern: string): RegExp | undefined {
  const chars = [...pattern];
  let src = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "%") src += "[^]*";
    else if (c === "_") src += "[^]";
    else if (c === "\\") {
      if (++i === chars.length) return undefined;
      src += `\\u{${chars[i].codePointAt(0)!.toString(16)}}`;
    } else src += `\\u{${c.codePointAt(0)!.toString(16)}}`;
  }
  return new RegExp(`^${src}$`, "u");
}

/** pg_trgm's trigrams of ASCII text: each alphanumeric word lowercased, padded with two blanks before and one after. */
function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const word of s.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** pg_trgm similarity (0 when either side has no trigram), or undefined beyond ASCII, where word characters follow the locale. */
function similarity(a: string, b: string): number | undefined {
  if (!/^[\x00-\x7f]*$/.test(a + b)) return undefined;
  const x = trigrams(a);
  const y = trigrams(b);
  if (!x.size || !y.size) return 0;
  const common = [...x].filter((g) => y.has(g)).length;
  return common / (x.size + y.size - common);
}

interface TextParticle {
  op: string;
  value: string;
  threshold: number;
  /** A trigram index serves the operand, so fuzzy is a similarity match. */
  trigram: boolean;
}

function textOperator(p: TextParticle, at: string): (text: string | null | typeof UNKNOWN) => Truth {
  const ci = (s: string) => (p.op === "ilike" ? s.toLowerCase() : s);
  const like = p.op === "like" || p.op === "ilike" ? likePattern(ci(unaccent(p.value))) : undefined;
  if ((p.op === "like" || p.op === "ilike") && !like) invalid(`${at}.value`, "a LIKE pattern must not end in the escape character");
  return (text) => {
    if (text === null) return false;
    if (text === UNKNOWN) return undefined;
    if (p.op === "segment") {
      const body = text.replace(/^\|+|\|+$/g, "");
      return body !== "" && body.split("|").includes(p.value);
    }
    if (!modelled(text) || !modelled(p.value)) return undefined;
    if (like) return like.test(ci(unaccent(text)));
    if (!p.trigram) return unaccent(text).toLowerCase().includes(unaccent(p.value).toLowerCase());
    const sml = similarity(unaccent(text), unaccent(p.value));
    // Postgres computes similarity in float4; an exact tie with the threshold may round either way.
    if (sml === undefined || Math.abs(sml - p.threshold) < 1e-6) return undefined;
    return sml >= p.threshold;
  };
}

// --- particles -------------------------------------------------------------

interface Particle {
  operator: string;
  path: string[];
  value?: unknown;
  optional?: boolean;
  threshold?: number;
}

function checkText(s: string, at: string): void {
  if (s.length > MAX_TEXT) invalid(at, "too long");
  if (s.includes("\u0000") || !s.isWellFormed()) invalid(at, "NUL or unpaired surrogate");
}

function checkValueText(v: unknown, at: string): void {
  if (typeof v === "string") checkText(v, at);
  else if (Array.isArray(v)) v.forEach((e, i) => checkValueText(e, `${at}[${i}]`));
}

function checkParticle(node: Record<string, unknown>, at: string): Particle {
  for (const key of Object.keys(node)) if (!PARTICLE_KEYS.includes(key)) invalid(`${at}.${key}`, "unknown key");
  const { path, optional, threshold } = node;
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATH) return invalid(`${at}.path`, "not 1 to 12 segments");
  path.forEach((seg, i) => {
    if (typeof seg !== "string" || seg === "") invalid(`${at}.path[${i}]`, "not a non-empty string");
    checkText(seg, `${at}.path[${i}]`);
  });
  if (optional !== undefined && typeof optional !== "boolean") invalid(`${at}.optional`, "not a boolean");
  if (threshold !== undefined && (typeof threshold !== "number" || threshold < 0 || threshold > 1)) invalid(`${at}.threshold`, "not in [0, 1]");
  if (threshold !== undefined && node.operator !== "fuzzy") invalid(`${at}.threshold`, "only for fuzzy");
  if (node.operator !== "rel_exists") checkValueText(node.value, `${at}.value`);
  return node as unknown as Particle;
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);

function requireScalar(p: Particle, at: string): string | number | boolean {
  const v = p.value;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  return invalid(`${at}.value`, "not a scalar");
}

function requireArray(p: Particle, at: string): unknown[] {
  if (!Array.isArray(p.value)) return invalid(`${at}.value`, "not an array");
  if (p.value.length > MAX_IN) invalid(`${at}.value`, "over 1000 items");
  return p.value;
}

function requireStrings(p: Particle, at: string): string[] {
  const values = requireArray(p, at);
  if (!values.every((v) => typeof v === "string")) invalid(`${at}.value`, "not all strings");
  return values as string[];
}

function requireIs(p: Particle, at: string): boolean | null {
  if (p.value === null || p.value === true || p.value === false) return p.value;
  return invalid(`${at}.value`, "is takes null, true or false");
}

function requireString(p: Particle, at: string): string {
  if (typeof p.value !== "string") return invalid(`${at}.value`, "not a string");
  return p.value;
}

function textParticle(p: Particle, at: string, trigram: boolean): TextParticle {
  return { op: p.operator, value: requireString(p, at), threshold: p.threshold ?? DEFAULT_THRESHOLD, trigram };
}

type Column =
  | { type: "text"; trigram: boolean; get: (row: Row) => string }
  | { type: "uuid"; get: (row: Row) => string }
  | { type: "timestamptz"; get: (row: Row) => string };

function columnOf(path: string[], type: TypeModel): Column | undefined {
  if (path.length === 1) {
    if (path[0] === "name") return { type: "text", trigram: type.nameSearch, get: (r) => r.name };
    if (path[0] === "id") return { type: "uuid", get: (r) => r.id };
    if (path[0] === "created_at") return { type: "timestamptz", get: (r) => r.createdAt };
    if (path[0] === "updated_at") return { type: "timestamptz", get: (r) => r.updatedAt };
  }
  if (path.length === 2 && path[0] === "type" && path[1] === "name") return { type: "text", trigram: false, get: (r) => r.typeName };
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A column's value is never null and never boolean; a value of another type equals nothing. */
function onColumn(col: Column, p: Particle, at: string): Holds {
  const op = p.operator;
  if (op === "is") {
    requireIs(p, at);
    return always(false);
  }
  if (op === "cs" || op === "ov") return invalid(`${at}.operator`, "not for columns");
  if (TEXT_OPERATORS.includes(op)) {
    if (col.type !== "text") return invalid(`${at}.operator`, "text operators need text");
    const match = textOperator(textParticle(p, at, col.trigram), at);
    return (row) => match(col.get(row));
  }
  if (col.type === "uuid" && RANGES.includes(op)) return invalid(`${at}.operator`, "ids do not range");
  if (col.type === "timestamptz") {
    const values = op === "in" ? requireArray(p, at) : [requireScalar(p, at)];
    values.forEach((v, i) => {
      if (typeof v !== "string" || instant(v) === undefined) invalid(op === "in" ? `${at}.value[${i}]` : `${at}.value`, "not an RFC 3339 timestamp");
    });
    const cmp = (row: Row, v: string, how: string) => compare(how, instant(col.get(row))!, instant(v)!, byInstant);
    if (op === "in") return (row) => values.some((v) => cmp(row, v as string, "eq"));
    return (row) => cmp(row, values[0] as string, op);
  }
  const accepts = (v: unknown): v is string => typeof v === "string" && (col.type !== "uuid" || UUID.test(v));
  const norm = (s: string) => (col.type === "uuid" ? s.toLowerCase() : s);
  if (op === "in") {
    const values = requireArray(p, at).filter(accepts).map(norm);
    return (row) => values.includes(norm(col.get(row)));
  }
  const v = requireScalar(p, at);
  if (!accepts(v)) return always(op === "neq");
  return (row) => compare(op, norm(col.get(row)), norm(v), compareText);
}

function onIndexed(path: string[], type: IndexedType, searchable: boolean, p: Particle, at: string): Holds {
  const op = p.operator;
  const typed = (row: Row) => typedValue(extract(row.attributes, path), type);
  if (op === "is") {
    const v = requireIs(p, at);
    if (v !== null && type !== "boolean") return invalid(`${at}.value`, "is true/false needs a boolean attribute");
    return (row) => {
      const x = typed(row);
      return x === UNKNOWN ? undefined : v === null ? x === null : x === v;
    };
  }
  if (type === "text_array") {
    if (op !== "cs" && op !== "ov") return invalid(`${at}.operator`, "text_array takes cs and ov");
    const values = requireStrings(p, at);
    return (row) => {
      const x = typed(row) as string[] | null;
      if (x === null) return false;
      return op === "cs" ? values.every((v) => x.includes(v)) : values.some((v) => x.includes(v));
    };
  }
  if (op === "cs" || op === "ov") return invalid(`${at}.operator`, "cs and ov need text_array");
  if (TEXT_OPERATORS.includes(op)) {
    if (type !== "text") return invalid(`${at}.operator`, "text operators need text");
    const match = textOperator(textParticle(p, at, searchable), at);
    return (row) => match(typed(row) as string | null | typeof UNKNOWN);
  }
  if (type === "boolean" && RANGES.includes(op)) return invalid(`${at}.operator`, "booleans do not range");
  const fits = (v: unknown) =>
    type === "numeric"
      ? typeof v === "number"
      : type === "boolean"
        ? typeof v === "boolean"
        : type === "timestamptz"
          ? typeof v === "string" && instant(v) !== undefined
          : typeof v === "string";
  const asTyped = (v: unknown): string | number | bigint | boolean => (type === "timestamptz" ? instant(v as string)! : (v as string | number | boolean));
  const cmp = (how: string, x: Typed, v: string | number | bigint | boolean): Truth => {
    if (x === UNKNOWN) return undefined;
    if (x === null) return false;
    if (type === "numeric") return compare(how, x as number, v as number, byNumber);
    if (type === "timestamptz") return compare(how, x as bigint, v as bigint, byInstant);
    if (type === "boolean") return how === "eq" ? x === v : x !== v;
    return compare(how, x as string, v as string, compareText);
  };
  if (op === "in") {
    const values = requireArray(p, at);
    values.forEach((v, i) => {
      if (!fits(v)) invalid(`${at}.value[${i}]`, `not a ${type}`);
    });
    const wanted = values.map(asTyped);
    return (row) => {
      const x = typed(row);
      return any(
        wanted.map((v) => () => cmp("eq", x, v)),
        row,
      );
    };
  }
  const v = requireScalar(p, at);
  if (!fits(v)) return invalid(`${at}.value`, `not a ${type}`);
  const wanted = asTyped(v);
  return (row) => cmp(op, typed(row), wanted);
}

/** JSON semantics: a string never equals a number; ranges compare numbers with numbers and strings with strings. */
function onAttribute(path: string[], p: Particle, at: string): Holds {
  const op = p.operator;
  const json = (row: Row) => extract(row.attributes, path);
  switch (op) {
    case "eq":
    case "neq": {
      const v = requireScalar(p, at);
      return (row) => {
        const x = json(row);
        return x !== MISSING && (x === v) === (op === "eq");
      };
    }
    case "is": {
      const v = requireIs(p, at);
      return (row) => {
        const x = json(row);
        return v === null ? x === MISSING || x === null : x === v;
      };
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const v = requireScalar(p, at);
      if (typeof v === "boolean") return invalid(`${at}.value`, "booleans do not range");
      return (row) => {
        const x = json(row);
        if (typeof v === "number") return typeof x === "number" && compare(op, x, v, byNumber);
        return typeof x === "string" && compare(op, x, v, compareText);
      };
    }
    case "in": {
      const values = requireArray(p, at);
      values.forEach((v, i) => {
        if (typeof v !== "string" && typeof v !== "number") invalid(`${at}.value[${i}]`, "not a string or number");
      });
      return (row) => values.includes(json(row));
    }
    case "like":
    case "ilike":
    case "segment":
    case "fuzzy": {
      const match = textOperator(textParticle(p, at, false), at);
      return (row) => {
        const x = json(row);
        return match(typeof x === "string" ? x : null);
      };
    }
    default: {
      const values = requireStrings(p, at);
      return (row) => {
        const x = json(row);
        if (!Array.isArray(x)) return false;
        return op === "cs" ? values.every((v) => x.includes(v)) : values.some((v) => x.includes(v));
      };
    }
  }
}

// --- the tree ----------------------------------------------------------------

class Judge {
  constructor(private readonly world: World) {}

  node(node: unknown, type: TypeModel, at: string, depth: number): Holds {
    if (!isRecord(node)) return invalid(at, "not an object");
    const op = node.operator;
    if (typeof op !== "string") return invalid(`${at}.operator`, "missing");
    if (COMPOSITES.includes(op)) {
      if (depth + 1 > MAX_DEPTH) invalid(at, "nested over 25 levels");
      for (const key of Object.keys(node)) if (key !== "operator" && key !== "filters") invalid(`${at}.${key}`, "unknown key");
      if (!Array.isArray(node.filters)) return invalid(`${at}.filters`, "not an array");
      const parts = node.filters.map((f, i) => this.node(f, type, `${at}.filters[${i}]`, depth + 1));
      if (op === "and") return (row) => all(parts, row);
      if (op === "or") return (row) => any(parts, row);
      if (!parts.length) return invalid(`${at}.filters`, "not of nothing");
      return (row) => not(all(parts, row));
    }
    if (!OPERATORS.includes(op)) return invalid(`${at}.operator`, "unknown");
    const p = checkParticle(node, at);
    if (p.optional && isEmpty(p.value)) return always(true);
    return this.particle(p, type, at, depth);
  }

  particle(p: Particle, type: TypeModel, at: string, depth: number): Holds {
    if (p.path[0] === "relationships") return this.relationship(p, at, depth);
    if (p.operator === "exists" || p.operator === "rel_exists") return invalid(`${at}.path`, "needs a relationships path");
    const column = columnOf(p.path, type);
    if (column) return onColumn(column, p, at);
    if (p.path[0] !== "attributes" || p.path.length === 1) return always(false);
    const rest = p.path.slice(1);
    const indexed = type.indexed.find((a) => a.path.length === rest.length && a.path.every((s, i) => s === rest[i]));
    if (indexed) return onIndexed(rest, indexed.type, indexed.searchable, p, at);
    return onAttribute(rest, p, at);
  }

  /**
   * The data set has no relationships, so a valid relationship particle holds
   * on no row; what remains to model is which ones are refused.
   */
  relationship(p: Particle, at: string, depth: number): Holds {
    const [, typeName, ...rest] = p.path;
    const linking = p.operator === "exists" || p.operator === "rel_exists";
    if (typeName === undefined) return invalid(`${at}.path`, "names no type");
    if (typeName === "rule" && rest.length === 1 && rest[0] === "name") {
      if (linking) return invalid(`${at}.path`, `${p.operator} takes a type`);
      // Checked as the text column it is; with no links, no rule name is ever read.
      onColumn({ type: "text", trigram: false, get: () => "" }, p, at);
      return always(false);
    }
    const related = this.world.types.find((t) => t.name === typeName);
    if (rest.length === 0) {
      if (p.operator === "rel_exists") {
        if (!isRecord(p.value)) return invalid(`${at}.value`, "not a filter");
        if (depth + 1 > MAX_DEPTH) invalid(at, "nested over 25 levels");
        if (related) this.node(p.value, related, `${at}.value`, depth + 1);
      } else if (p.operator !== "exists") {
        return invalid(`${at}.operator`, "needs a field of the related row");
      }
      return always(false);
    }
    if (linking) return invalid(`${at}.path`, `${p.operator} takes a type only`);
    if (related) this.particle({ ...p, path: rest }, related, at, depth);
    return always(false);
  }
}

/** What `filter` (as it arrives, after JSON) must answer over rows of `world.root`. */
export function judge(filter: unknown, world: World): Verdict {
  try {
    return { valid: true, holds: new Judge(world).node(filter, world.root, "filter", 0) };
  } catch (e) {
    if (e instanceof Invalid) return { valid: false, at: e.at, reason: e.message };
    throw e;
  }
}
