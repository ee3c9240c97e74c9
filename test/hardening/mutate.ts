// One hostile change to a valid example: a value replaced, a key dropped,
// added or repeated, a path or query value swapped for another tenant's id or
// for bytes the service must refuse, a CSV cell spoiled. One change a request
// keeps every finding attributable to one place (its label).
import fc from "fast-check";
import type { Example } from "./operations";
import { BODY_VALUES, CSV_CELLS, Dup, Raw, URL_VALUES, toJsonText, type Hostile } from "./hostile";

export interface Mutated {
  example: Example;
  /** `<kind>@<where>`, e.g. `nul@body.attributes.title`. */
  label: string;
}

/** What the generator may draw on besides the example. */
export interface Pools {
  /** Ids of the tenant the requests act as, and of the other tenant. */
  own: string[];
  foreign: string[];
  /** Query parameters the OpenAPI document declares for the operation. */
  queryNames: string[];
  /** Top-level body properties the document declares (for bodies made from scratch). */
  bodyNames: string[];
}

type Key = string | number;
type Choice = {
  area: number;
  slot: number;
  action: number;
  body: Hostile;
  url: Hostile<string>;
  cell: Hostile<string>;
  own: string;
  foreign: string;
  uuid: string;
};

const where = (area: string, path: Key[]) => [area, ...path.map((k) => (typeof k === "number" ? "[]" : k))].join(".").replace(/\.\[\]/g, "[]");

function nodes(value: unknown, path: Key[] = []): Key[][] {
  const out: Key[][] = [path];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...nodes(v, [...path, i])));
  else if (isPlain(value)) for (const [k, v] of Object.entries(value)) out.push(...nodes(v, [...path, k]));
  return out;
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Dup);

function get(root: unknown, path: Key[]): unknown {
  return path.reduce<any>((v, k) => v?.[k], root);
}

function set(root: unknown, path: Key[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  copy[k] = set(copy[k], rest, value);
  return copy;
}

/** One change inside a JSON value (a body, a CSV import's config, a JSON query value). */
function mutateJson(value: unknown, area: string, c: Choice): { value: unknown; label: string } {
  const all = nodes(value);
  const path = all[c.slot % all.length];
  const node = get(value, path);
  const at = where(area, path);
  const uuidLike = typeof node === "string" && /^[0-9a-f-]{36}$/.test(node);
  const action = c.action % (isPlain(node) ? 6 : uuidLike ? 4 : 2);
  if (action >= 2 && uuidLike) {
    const [kind, id] = [
      ["foreign-id", c.foreign],
      ["own-id", c.own],
    ][action % 2];
    return { value: set(value, path, id), label: `${kind}@${at}` };
  }
  if (action < 2 || !isPlain(node)) return { value: set(value, path, c.body.value), label: `${c.body.kind}@${at}` };
  const keys = Object.keys(node);
  const key = keys[c.slot % Math.max(1, keys.length)];
  switch (action) {
    case 2:
      if (key === undefined) break;
      return { value: set(value, path, Object.fromEntries(Object.entries(node).filter(([k]) => k !== key))), label: `missing@${where(area, [...path, key])}` };
    case 3: {
      if (key === undefined) break;
      // JSON.parse keeps the last; a scanner reading the bytes may keep the first.
      const entries = Object.entries(node).flatMap(([k, v]): [string, unknown][] =>
        k === key
          ? c.slot % 2
            ? [
                [k, c.body.value],
                [k, v],
              ]
            : [
                [k, v],
                [k, c.body.value],
              ]
          : [[k, v]],
      );
      return { value: set(value, path, new Dup(entries)), label: `duplicate-key/${c.body.kind}@${where(area, [...path, key])}` };
    }
    case 4: {
      const name = typeof c.body.value === "string" && c.body.value.length < 100 ? c.body.value : "fz_extra";
      return { value: set(value, path, { ...node, [name]: 1 }), label: `unknown-key/${c.body.kind}@${at}` };
    }
  }
  return { value: set(value, path, c.body.value), label: `${c.body.kind}@${at}` };
}

const encodeJson = (v: unknown) => percentEncode(toJsonText(v));

function mutate(ex: Example, pools: Pools, c: Choice): Mutated {
  const areas: ((e: Example) => Mutated)[] = [];
  if (ex.body !== undefined) {
    areas.push((e) => {
      const m = mutateJson(e.body, "body", c);
      return { example: { ...e, body: m.value }, label: m.label };
    });
  }
  if (pools.bodyNames.length) {
    // A body from scratch: the document's property names with hostile values.
    areas.push((e) => {
      const names = pools.bodyNames.filter((_, i) => (c.action >> i) & 1);
      return { example: { ...e, body: Object.fromEntries(names.map((n) => [n, c.body.value])) }, label: `${c.body.kind}@body(scratch)` };
    });
  }
  if (ex.params) {
    areas.push((e) => {
      const names = Object.keys(e.params!);
      const name = names[c.slot % names.length];
      const [kind, value] = (
        [
          ["foreign-id", c.foreign],
          ["own-id", c.own],
          ["random-uuid", c.uuid],
          [c.url.kind, c.url.value],
        ] as const
      )[c.action % 4];
      return { example: { ...e, params: { ...e.params, [name]: value } }, label: `${kind}@path.${name}` };
    });
  }
  areas.push((e) => {
    const names = [...new Set([...Object.keys(e.query ?? {}), ...pools.queryNames, "fz_unknown"])];
    const name = names[c.slot % names.length];
    const old = e.query?.[name];
    if (old && typeof old === "object") {
      const m = mutateJson(old.json, `query.${name}`, c);
      return { example: { ...e, query: { ...e.query, [name]: { json: m.value } } }, label: m.label };
    }
    const [kind, value] = (
      [
        [c.url.kind, c.url.value],
        ["foreign-id", c.foreign],
        [c.body.kind, encodeJson(c.body.value)],
      ] as const
    )[c.action % 3];
    return { example: { ...e, query: { ...e.query, [name]: value } }, label: `${kind}@query.${name}` };
  });
  if (ex.csv) {
    const csv = ex.csv;
    areas.push((e) => {
      const cells = csv.rows.flatMap((r, i) => r.map((_, j) => [i, j] as const));
      const [i, j] = cells[c.slot % cells.length];
      const rows = csv.rows.map((r, ri) => (ri === i ? r.map((v, cj) => (cj === j ? c.cell.value : v)) : r));
      return { example: { ...e, csv: { ...csv, rows } }, label: `${c.cell.kind}@csv.${i === 0 ? "header" : "cell"}.${csv.rows[0][j]}` };
    });
    areas.push((e) => {
      const m = mutateJson(csv.config, "X-Import-Config", c);
      return { example: { ...e, csv: { ...csv, config: m.value } }, label: m.label };
    });
  }
  if (ex.bytes && Object.keys(ex.bytes.headers).length) {
    const bytes = ex.bytes;
    areas.push((e) => {
      const names = Object.keys(bytes.headers);
      const name = names[c.slot % names.length];
      return { example: { ...e, bytes: { ...bytes, headers: { ...bytes.headers, [name]: c.url.value } } }, label: `${c.url.kind}@header.${name}` };
    });
  }
  return areas[c.area % areas.length](ex);
}

/** A kind of hostility first, then a value of it, so the kinds with many values do not crowd out the rest. */
function byKind<T>(values: Hostile<T>[]): fc.Arbitrary<Hostile<T>> {
  const kinds = [...new Set(values.map((v) => v.kind))];
  return fc.constantFrom(...kinds).chain((kind) => fc.constantFrom(...values.filter((v) => v.kind === kind)));
}

/** Requests for one operation: its examples, each with one hostile change. */
export function mutations(examples: Example[], pools: Pools): fc.Arbitrary<Mutated> {
  const choice = fc.record({
    area: fc.nat(),
    slot: fc.nat(),
    action: fc.nat(),
    body: byKind(BODY_VALUES),
    url: byKind(URL_VALUES),
    cell: byKind(CSV_CELLS),
    own: fc.constantFrom(...pools.own),
    foreign: fc.constantFrom(...pools.foreign),
    uuid: fc.uuid(),
  });
  return fc.tuple(fc.constantFrom(...examples), choice).map(([ex, c]) => mutate(ex, pools, c));
}

/**
 * Percent-encodes text as UTF-8, writing a lone surrogate as the three bytes
 * UTF-8 would give it (invalid UTF-8, as a hostile client can send), where
 * encodeURIComponent would throw.
 */
export function percentEncode(text: string): string {
  return [...utf8Loose(text)]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`))
    .join("");
}

export function utf8Loose(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (cp >= 0xd800 && cp < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return new Uint8Array(out);
}
