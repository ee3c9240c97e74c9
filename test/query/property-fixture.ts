// The data set of the filter property test: one type whose ~30 entities hold
// every JSON shape (strings, numbers from 5e-324 to 1e308, booleans, null,
// missing, nested objects, arrays), accented text, SQL- and LIKE-looking text,
// and hostile attribute names, so that generated filters meet real values.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import type { Row, TypeModel } from "./evaluate";

export const SPECIMEN = "Specimen";
/** A second type with no entities: relationship paths to it resolve, and match nothing. */
export const BYSTANDER = "Bystander";

export const specimenModel: TypeModel = {
  name: SPECIMEN,
  nameSearch: true,
  indexed: [
    { path: ["label"], type: "text", searchable: true },
    { path: ["rank"], type: "numeric", searchable: false },
    { path: ["flag"], type: "boolean", searchable: false },
    { path: ["kinds"], type: "text_array", searchable: false },
    { path: ["at"], type: "timestamptz", searchable: false },
    { path: ["meta", "code"], type: "text", searchable: false },
  ],
};

export const bystanderModel: TypeModel = { name: BYSTANDER, nameSearch: false, indexed: [{ path: ["rank"], type: "numeric", searchable: false }] };

const configOf = (model: TypeModel) => ({
  identifier_key: ["key"],
  name_search: model.nameSearch,
  indexed_attributes: model.indexed.map(({ path, type, searchable }) => ({
    path,
    type,
    ...(searchable ? { searchable } : {}),
    ...(type === "numeric" ? { sortable: true } : {}),
  })),
});

/** Text that filters also use as values and patterns. */
export const STRINGS = [
  "",
  "a",
  "A",
  "ab",
  "abc",
  "Abc",
  "abd",
  "b",
  "z",
  "10",
  "9",
  "3",
  "-1",
  "1e20",
  "true",
  "null",
  "O'Brien",
  "'; DROP TABLE entities; --",
  '"quoted"',
  "--",
  ";",
  "%",
  "_",
  "50% off",
  "a_b",
  "back\\slash",
  "\\",
  "\\%",
  "|x|y|",
  "|y|",
  "x||y",
  "||",
  "|",
  "x|y",
  "Café crème",
  "cafe creme",
  "CAFÉ",
  "naïve",
  "Ærøskøbing",
  "straße",
  "Ünïcödé",
  "ñandú",
  "Crème brûlée",
  "Ωmega",
  "日本語",
  "🙂 smile",
  "e\u0301",
  "tab\there",
  "line\nbreak",
  " padded ",
  "{a,b}",
  "NULL",
  "$1",
  "::text",
];

export const NUMBERS = [0, 1, -1, 3, 3.5, 9, 10, 100, -273.15, 0.1, 0.30000000000000004, 1e-7, 5e-324, 2 ** 53 + 2, 1e20, -1e20, 1e21, 1e308, -1e308];

export const KINDS = ["home", "wood", "light", "Home", "o'clock", "a,b", "{x}", "", "ünï"];

export const TIMESTAMPS = [
  "2026-01-01T00:00:00Z",
  "2026-01-01T01:00:00+01:00",
  "2026-03-01T12:30:00Z",
  "2025-12-31T23:59:59.500Z",
  "2030-06-15T08:00:00-07:00",
  "1999-01-01T00:00:00Z",
];

/** Attribute names that hold data somewhere in the set. */
export const HOSTILE_KEYS = ["'; DROP TABLE entities; --", "it's", '"q"', "a.b", "{x,y}", "NULL", "ключ", "🙂", " ", "\\", "__proto__", "x".repeat(10_000)];
export const KEYS = ["label", "rank", "flag", "kinds", "at", "meta", "s", "n", "b", "v", "obj", "arr", "seg", "d", ...HOSTILE_KEYS];

/** Eleven levels of `d`, so that the deepest path of twelve segments reaches a value. */
const deep = (leaf: unknown): unknown => Array.from({ length: 10 }).reduce<unknown>((inner) => ({ d: inner }), { d: leaf });

/** One hostile name per entity, holding a string, a number, true or null. Object.fromEntries keeps "__proto__" an own key. */
const hostile = (i: number): Record<string, unknown> => Object.fromEntries([[HOSTILE_KEYS[i], [STRINGS[i], NUMBERS[i], true, null][i % 4]]]);

/** Names and attributes of the set; `key` is the identifier. */
export const SPECIMENS: { name: string; attributes: Record<string, unknown> }[] = [
  {
    name: "Red Chair",
    attributes: {
      label: "red",
      rank: 10,
      flag: true,
      kinds: ["home", "wood"],
      at: "2026-01-01T00:00:00Z",
      meta: { code: "|x|y|" },
      s: "abc",
      n: 3,
      b: true,
      v: 3,
      obj: { x: 1, y: { z: "deep" } },
      arr: ["a", "b"],
      seg: "|x|y|",
    },
  },
  {
    name: "Blue Table",
    attributes: {
      label: "blue",
      rank: 9,
      flag: false,
      kinds: ["home"],
      at: "2026-03-01T12:30:00Z",
      meta: { code: "|y|z|" },
      s: "Abc",
      n: "3",
      b: false,
      v: "3",
      obj: { x: "1" },
      arr: ["a", 1, null],
      seg: "x||y",
    },
  },
  {
    name: "Café crème",
    attributes: {
      label: "Café crème",
      rank: 3.5,
      flag: null,
      kinds: [],
      at: null,
      meta: "flat",
      s: "Café crème",
      n: 3.5,
      b: null,
      v: true,
      obj: { y: { z: 1 } },
      arr: [],
      seg: "||",
    },
  },
  {
    name: "cafe creme",
    attributes: {
      label: "cafe creme",
      rank: -273.15,
      kinds: ["light", "home"],
      at: "2025-12-31T23:59:59.500Z",
      s: "cafe creme",
      n: -273.15,
      v: null,
      obj: [1, 2],
      arr: [["a"]],
      seg: "|",
    },
  },
  {
    name: "CAFÉ",
    attributes: {
      label: "CAFÉ",
      rank: 0,
      flag: "yes",
      kinds: ["Home"],
      at: "not a date",
      meta: { code: null },
      s: "CAFÉ",
      n: 0,
      b: "true",
      v: { a: 1 },
      obj: { x: null },
      arr: "a",
      seg: "x|y",
    },
  },
  {
    name: "O'Brien",
    attributes: {
      label: "O'Brien",
      rank: 1e20,
      flag: 1,
      kinds: ["o'clock", "a,b"],
      at: "2030-06-15T08:00:00-07:00",
      meta: { code: "O'Brien" },
      s: "O'Brien",
      n: 1e20,
      v: [1, "a"],
      obj: { "it's": "q", "0": "zero" },
      arr: ["'", '"'],
      seg: "|O'Brien|",
    },
  },
  {
    name: "Robert'); DROP TABLE entities; --",
    attributes: {
      label: "'; DROP TABLE entities; --",
      rank: -1e20,
      flag: true,
      kinds: ["{x}", ""],
      at: "1999-01-01T00:00:00Z",
      s: "'; DROP TABLE entities; --",
      n: -1e20,
      v: "",
      ...hostile(0),
    },
  },
  {
    name: "100% _real_",
    attributes: { label: "50% off", rank: 1e21, flag: false, kinds: ["ünï", "home"], s: "50% off", n: 1e21, v: 1.5, seg: "%|_", ...hostile(1) },
  },
  {
    name: "back\\slash",
    attributes: {
      label: "back\\slash",
      rank: 1e308,
      kinds: ["wood", "wood"],
      s: "back\\slash",
      n: 1e308,
      v: "back\\slash",
      arr: ["\\"],
      seg: "|\\|",
      ...hostile(2),
    },
  },
  { name: "a_b", attributes: { label: "a_b", rank: -1e308, flag: true, s: "a_b", n: -1e308, v: "a_b", seg: "a_b", ...hostile(3) } },
  { name: "Ærøskøbing", attributes: { label: "Ærøskøbing", rank: 5e-324, kinds: ["light"], s: "Ærøskøbing", n: 5e-324, v: false, ...hostile(4) } },
  { name: "straße", attributes: { label: "straße", rank: 1e-7, flag: false, s: "straße", n: 1e-7, b: false, ...hostile(5) } },
  { name: "Ünïcödé", attributes: { label: "Ünïcödé", rank: 0.1, s: "Ünïcödé", n: 0.1, v: 0.1, ...hostile(6) } },
  { name: "ñandú", attributes: { label: "ñandú", rank: 0.30000000000000004, s: "ñandú", n: 0.30000000000000004, v: "ñandú", ...hostile(7) } },
  { name: "Ωmega", attributes: { label: "Ωmega", rank: 2 ** 53 + 2, s: "Ωmega", n: 2 ** 53 + 2, ...hostile(8) } },
  { name: "日本語", attributes: { label: "日本語", rank: 100, s: "日本語", n: 100, seg: "|日本|語|", ...hostile(9) } },
  { name: "🙂 smile", attributes: { label: "🙂 smile", rank: "abc", s: "🙂 smile", n: 1, ...hostile(10) } },
  { name: "e\u0301", attributes: { label: "e\u0301", rank: true, flag: "false-ish", s: "e\u0301", n: -1, ...hostile(11) } },
  { name: "tab\there", attributes: { label: "tab\there", rank: { a: "b" }, s: "tab\there", seg: "|tab\there|" } },
  { name: "line\nbreak", attributes: { label: "line\nbreak", rank: null, kinds: null, s: "line\nbreak", v: "line\nbreak" } },
  { name: " padded ", attributes: { label: " padded ", kinds: "home", s: " padded ", n: 9, v: 9 } },
  { name: "{a,b}", attributes: { label: "{a,b}", rank: 9, kinds: ["a,b"], s: "{a,b}", arr: ["{a,b}"] } },
  { name: "NULL", attributes: { label: "NULL", rank: 10, s: "NULL", v: "NULL", obj: { x: 1, y: { z: "deep" } } } },
  { name: "%", attributes: { label: "%", rank: -1, s: "%", seg: "%" } },
  { name: "_", attributes: { label: "_", rank: 1, s: "_", seg: "_" } },
  { name: "10", attributes: { label: "10", rank: 10, s: "10", n: 10, v: 10 } },
  { name: "9", attributes: { label: "9", rank: 9, s: "9", n: 9, v: "9" } },
  { name: "z", attributes: { label: true, s: "z", n: 1e-7, d: deep("bottom") } },
  { name: "A", attributes: { label: 42, s: "A", v: [], d: deep(12) } },
  { name: "Naïve Deep", attributes: { label: "naïve", s: "naïve", d: { d: "shallow" } } },
].map((e, i) => ({ name: e.name, attributes: { key: `s${String(i).padStart(2, "0")}`, ...e.attributes } }));

export interface Specimens extends TenantCreds {
  /** The entities as the API answers them, in the order of SPECIMENS. */
  rows: Row[];
}

/** A tenant holding SPECIMENS and an empty Bystander type. */
export async function specimens(): Promise<Specimens> {
  const t = await createTenant();
  await createType(t.auth, { name: SPECIMEN, schema: { type: "object", required: ["key"] }, config: configOf(specimenModel) });
  await createType(t.auth, { name: BYSTANDER, schema: { type: "object" }, config: configOf(bystanderModel) });
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: SPECIMEN, data: SPECIMENS } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const rows = await readRows(t.auth, res.json.data.ids as string[]);
  expect(rows.map(({ name, attributes }) => ({ name, attributes }))).toEqual(SPECIMENS);
  return { ...t, rows };
}

interface Presented {
  id: string;
  name: string;
  type: { name: string };
  attributes: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** Every Specimen as the API answers it, in the order of `ids`. */
export async function readRows(auth: string, ids: string[]): Promise<Row[]> {
  const res = await call("POST", "/entity/query", { auth, body: { type_name: SPECIMEN, limit: 1000 } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const byId = new Map((res.json.data as Presented[]).map((e) => [e.id, e]));
  return ids.map((id) => {
    const e = byId.get(id);
    expect(e, `entity ${id}`).toBeDefined();
    return { id, name: e!.name, typeName: e!.type.name, attributes: e!.attributes, createdAt: e!.created_at, updatedAt: e!.updated_at };
  });
}
