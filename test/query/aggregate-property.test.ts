// POST /entity/query/aggregate against a reference computed here from the
// same rows: random data (nulls and missing values in every field), random
// filters (the filter model of evaluate.ts decides which rows they keep),
// random group paths, aggregates, sorts and page sizes. Every page walk must
// answer the reference's groups, each once, in the requested order, with
// every value as docs/query.md promises (sums exact); the tenant the type is
// shared with must answer the same groups.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { share } from "../access/fixture";
import { judge, type Row, type TypeModel } from "./evaluate";

const SEED = 20_261_127;
const RUNS = 60;
const TYPE = "Sale";

const model: TypeModel = {
  name: TYPE,
  nameSearch: false,
  indexed: [
    { path: ["cat"], type: "text", searchable: false },
    { path: ["flag"], type: "boolean", searchable: false },
    { path: ["amount"], type: "numeric", searchable: false },
    { path: ["at"], type: "timestamptz", searchable: false },
  ],
};

/** Amounts in cents, so the reference sums exactly; 10^15 makes sums no double holds. */
const AMOUNTS = ["0.1", "0.2", "0.3", "2.5", "-3", "10", "7.25", "-0.05", "1000000000000000", "1000000000000000.01"];
const CATS = ["alpha", "beta", "gamma", "delta"];
const NAMES = ["p", "q", "r", "s"];
const MISSING = Symbol("missing");

const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant(MISSING) });
const rowArb = fc.record({
  name: fc.constantFrom(...NAMES),
  cat: maybe(fc.constantFrom(...CATS)),
  flag: maybe(fc.boolean()),
  amount: maybe(fc.constantFrom(...AMOUNTS).map(Number)),
  at: maybe(
    fc.integer({ min: Date.UTC(2024, 0, 1) / 1000, max: Date.UTC(2027, 0, 1) / 1000 }).map((s) => new Date(s * 1000).toISOString().replace(".000Z", "Z")),
  ),
  n: maybe(fc.oneof(fc.integer({ min: -5, max: 20 }), fc.constantFrom("3", "x", "y"))),
  tag: maybe(fc.constantFrom("red", "blue")),
});

const DATA = fc.sample(fc.array(rowArb, { minLength: 60, maxLength: 60 }), { seed: SEED, numRuns: 1 })[0].map((r, i) => ({
  name: r.name,
  attributes: Object.fromEntries([["key", `k${i}`], ...Object.entries(r).filter(([k, v]) => k !== "name" && v !== MISSING)]),
}));

// --- the reference ---------------------------------------------------------

type Value = string | number | boolean | null;

/** A value's place in a group key and in Postgres's order: indexed text, numbers, booleans, timestamps; plain attributes as jsonb orders them (string < number < boolean). */
interface Path {
  request: string[] | { path: string[]; bucket: string; as: string };
  key: string;
  get: (row: Row, shared: boolean) => Value;
  compare: (a: NonNullable<Value>, b: NonNullable<Value>) => number;
}

const attr = (row: Row, k: string): Value => (Object.hasOwn(row.attributes, k) ? (row.attributes[k] as Value) : null);
const byValue = (a: NonNullable<Value>, b: NonNullable<Value>) => (a < b ? -1 : a > b ? 1 : 0);
const jsonRank = (v: NonNullable<Value>) => (typeof v === "string" ? 0 : typeof v === "number" ? 1 : 2);
const byJsonb = (a: NonNullable<Value>, b: NonNullable<Value>) => jsonRank(a) - jsonRank(b) || byValue(a, b);
const byInstant = (a: NonNullable<Value>, b: NonNullable<Value>) => byValue(Date.parse(a as string), Date.parse(b as string));

/** date_trunc(bucket, at, 'UTC') in the API's form. */
function truncate(iso: string, bucket: string): string {
  const d = new Date(iso);
  const parts = [
    d.getUTCFullYear(),
    bucket === "year" ? 0 : d.getUTCMonth(),
    ["year", "month"].includes(bucket) ? 1 : d.getUTCDate(),
    bucket === "hour" ? d.getUTCHours() : 0,
  ] as const;
  let ms = Date.UTC(parts[0], parts[1], parts[2], parts[3]);
  if (bucket === "week") ms -= ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000;
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

const GROUP_PATHS: Path[] = [
  { request: ["attributes", "cat"], key: "attributes.cat", get: (r) => attr(r, "cat"), compare: byValue },
  { request: ["attributes", "flag"], key: "attributes.flag", get: (r) => attr(r, "flag"), compare: byValue },
  { request: ["attributes", "amount"], key: "attributes.amount", get: (r) => attr(r, "amount"), compare: byValue },
  { request: ["attributes", "n"], key: "attributes.n", get: (r) => attr(r, "n"), compare: byJsonb },
  { request: ["attributes", "tag"], key: "attributes.tag", get: (r) => attr(r, "tag"), compare: byJsonb },
  { request: ["name"], key: "name", get: (r) => r.name, compare: byValue },
  { request: ["source_type"], key: "source_type", get: (_r, shared) => (shared ? "shared" : null), compare: byValue },
  ...["hour", "day", "week", "month", "year"].map(
    (bucket): Path => ({
      request: { path: ["attributes", "at"], bucket, as: `at_${bucket}` },
      key: `at_${bucket}`,
      get: (r) => (attr(r, "at") === null ? null : truncate(attr(r, "at") as string, bucket)),
      compare: byInstant,
    }),
  ),
  { request: { path: ["created_at"], bucket: "day", as: "created_day" }, key: "created_day", get: (r) => truncate(r.createdAt, "day"), compare: byInstant },
];

/** Exact decimals as hundredths. */
function cents(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) return undefined;
  const digits = BigInt(m[2] + (m[3] ?? "")) * (m[1] ? -1n : 1n);
  const power = Number(m[4] ?? 0) - (m[3] ?? "").length + 2;
  if (power >= 0) return digits * 10n ** BigInt(power);
  const unit = 10n ** BigInt(-power);
  return digits % unit === 0n ? digits / unit : undefined;
}

type Expected =
  | { kind: "count"; value: number }
  | { kind: "exact"; cents: bigint | null }
  | { kind: "average"; value: number | null }
  | { kind: "instant"; value: string | null };

interface Aggregate {
  request: { fn: string; path?: string[] };
  compute: (rows: Row[]) => Expected;
  /** For sorting by the alias. */
  order: (e: Expected) => number | null;
}

const numbers = (rows: Row[], k: string) => rows.map((r) => attr(r, k)).filter((v): v is number => typeof v === "number");
const sumCents = (values: number[]): bigint | null => (values.length ? values.reduce((s, v) => s + cents(String(v))!, 0n) : null);
const countOf = (value: number): Expected => ({ kind: "count", value });
const orderOf = (e: Expected): number | null =>
  e.kind === "count" || e.kind === "average"
    ? e.value
    : e.kind === "exact"
      ? e.cents === null
        ? null
        : Number(e.cents)
      : e.value === null
        ? null
        : Date.parse(e.value);

function extreme(values: number[], fn: "min" | "max"): Expected {
  if (!values.length) return { kind: "exact", cents: null };
  const pick = values.reduce((a, b) => ((fn === "min" ? b < a : b > a) ? b : a));
  return { kind: "exact", cents: cents(String(pick))! };
}

function extremeInstant(values: string[], fn: "min" | "max"): Expected {
  if (!values.length) return { kind: "instant", value: null };
  return { kind: "instant", value: values.reduce((a, b) => ((fn === "min" ? Date.parse(b) < Date.parse(a) : Date.parse(b) > Date.parse(a)) ? b : a)) };
}

const distinct = (values: Value[]) => new Set(values.filter((v) => v !== null).map((v) => JSON.stringify(v))).size;

const AGGREGATES: Aggregate[] = [
  { request: { fn: "count" }, compute: (rows) => countOf(rows.length), order: orderOf },
  ...["cat", "flag", "amount", "n", "at"].map(
    (k): Aggregate => ({
      request: { fn: "count", path: ["attributes", k] },
      compute: (rows) => countOf(rows.filter((r) => attr(r, k) !== null).length),
      order: orderOf,
    }),
  ),
  ...["cat", "amount", "n", "flag"].map(
    (k): Aggregate => ({
      request: { fn: "count_distinct", path: ["attributes", k] },
      compute: (rows) => countOf(distinct(rows.map((r) => attr(r, k)))),
      order: orderOf,
    }),
  ),
  { request: { fn: "count_distinct", path: ["name"] }, compute: (rows) => countOf(distinct(rows.map((r) => r.name))), order: orderOf },
  ...["amount", "n"].map(
    (k): Aggregate => ({
      request: { fn: "sum", path: ["attributes", k] },
      compute: (rows) => ({ kind: "exact", cents: sumCents(numbers(rows, k)) }),
      order: orderOf,
    }),
  ),
  ...["amount", "n"].map(
    (k): Aggregate => ({
      request: { fn: "avg", path: ["attributes", k] },
      compute: (rows) => {
        const values = numbers(rows, k);
        return { kind: "average", value: values.length ? Number(sumCents(values)!) / 100 / values.length : null };
      },
      order: orderOf,
    }),
  ),
  ...(["min", "max"] as const).flatMap((fn): Aggregate[] => [
    ...["amount", "n"].map((k): Aggregate => ({ request: { fn, path: ["attributes", k] }, compute: (rows) => extreme(numbers(rows, k), fn), order: orderOf })),
    {
      request: { fn, path: ["attributes", "at"] },
      compute: (rows) =>
        extremeInstant(
          rows.map((r) => attr(r, "at")).filter((v): v is string => v !== null),
          fn,
        ),
      order: orderOf,
    },
    {
      request: { fn, path: ["created_at"] },
      compute: (rows) =>
        extremeInstant(
          rows.map((r) => r.createdAt),
          fn,
        ),
      order: orderOf,
    },
  ]),
];

interface RefGroup {
  group: Value[];
  values: Expected[];
}

function reference(rows: Row[], paths: Path[], aggregates: Aggregate[], shared: boolean): RefGroup[] {
  const byKey = new Map<string, Row[]>();
  for (const row of rows) {
    const key = JSON.stringify(paths.map((p) => p.get(row, shared)));
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  // Without group_by, no row at all is still one group.
  if (!paths.length && !byKey.size) byKey.set("[]", []);
  return [...byKey].map(([key, members]) => ({ group: JSON.parse(key), values: aggregates.map((a) => a.compute(members)) }));
}

/** Postgres's order: ascending puts NULL last, descending first. */
function compareBy(a: Value | number | null, b: Value | number | null, desc: boolean, cmp: (a: NonNullable<Value>, b: NonNullable<Value>) => number): number {
  if (a === null || b === null) return a === b ? 0 : (a === null ? 1 : -1) * (desc ? -1 : 1);
  return cmp(a, b) * (desc ? -1 : 1);
}

/** An answered value agrees with the expected one: counts and instants equal, exact sums exact (a number only when it prints back as the decimal), averages close. */
function agrees(got: unknown, want: Expected): boolean {
  if (want.kind === "count" || want.kind === "instant") return got === want.value;
  if (want.kind === "average")
    return want.value === null ? got === null : typeof got === "number" && Math.abs(got - want.value) <= Math.abs(want.value) * 1e-12 + 1e-12;
  if (want.cents === null) return got === null;
  if (typeof got === "number") return cents(String(got)) === want.cents;
  return typeof got === "string" && cents(got) === want.cents && cents(String(Number(got))) !== want.cents;
}

// --- the property ----------------------------------------------------------

const filterArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  filter: fc.oneof({ depthSize: "small", maxDepth: 3 }, { weight: 4, arbitrary: tie("particle") }, { weight: 1, arbitrary: tie("composite") }),
  composite: fc.record({ operator: fc.constantFrom("and", "or", "not"), filters: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
  particle: fc.oneof(
    fc.record({ operator: fc.constantFrom("eq", "neq"), path: fc.constant(["attributes", "cat"]), value: fc.constantFrom(...CATS) }),
    fc.record({ operator: fc.constant("in"), path: fc.constant(["attributes", "cat"]), value: fc.subarray(CATS) }),
    fc.record({
      operator: fc.constant("is"),
      path: fc.constantFrom(["attributes", "cat"], ["attributes", "amount"], ["attributes", "n"], ["attributes", "at"]),
      value: fc.constant(null),
    }),
    fc.record({ operator: fc.constantFrom("gt", "lte"), path: fc.constant(["attributes", "amount"]), value: fc.constantFrom(...AMOUNTS.map(Number)) }),
    fc.record({ operator: fc.constantFrom("eq", "is"), path: fc.constant(["attributes", "flag"]), value: fc.boolean() }),
    fc.record({
      operator: fc.constantFrom("gt", "eq", "lt"),
      path: fc.constant(["attributes", "n"]),
      value: fc.oneof(fc.integer({ min: -5, max: 20 }), fc.constantFrom("3", "x")),
    }),
    fc.record({
      operator: fc.constantFrom("gte", "lt"),
      path: fc.constant(["attributes", "at"]),
      value: fc.constantFrom("2025-01-01T00:00:00Z", "2025-07-01T12:00:00Z", "2026-03-01T00:00:00Z"),
    }),
    fc.record({ operator: fc.constant("eq"), path: fc.constant(["name"]), value: fc.constantFrom(...NAMES) }),
    // Matches nothing: every group is empty.
    fc.constant({ operator: "eq", path: ["attributes", "cat"], value: "none" }),
  ),
})).filter;

const requestArb = fc.record({
  filter: fc.option(filterArb, { nil: undefined }),
  paths: fc.subarray(GROUP_PATHS, { maxLength: 3 }).chain((ps) => fc.shuffledSubarray(ps, { minLength: ps.length, maxLength: ps.length })),
  aggregates: fc.uniqueArray(fc.constantFrom(...AGGREGATES), { minLength: 1, maxLength: 4 }),
  sorts: fc.array(fc.record({ pick: fc.nat(), desc: fc.boolean() }), { maxLength: 2 }),
  limit: fc.constantFrom(1, 2, 3, 7, 1000),
});

/** The entities of `ids` as the API answers them, in the model's shape. */
async function readRowsOf(auth: string, typeName: string, ids: string[]): Promise<Row[]> {
  const res = await call("POST", "/entity/query", { auth, body: { type_name: typeName, limit: 1000 } });
  expect(res.status, res.text).toBe(200);
  const byId = new Map(
    (res.json.data as { id: string; name: string; type: { name: string }; attributes: Record<string, unknown>; created_at: string; updated_at: string }[]).map(
      (e) => [e.id, e],
    ),
  );
  return ids.map((id) => {
    const e = byId.get(id)!;
    return { id, name: e.name, typeName: e.type.name, attributes: e.attributes, createdAt: e.created_at, updatedAt: e.updated_at };
  });
}

interface Tenants {
  owner: TenantCreds;
  target: TenantCreds;
  rows: Row[];
}

let w: Tenants;
beforeAll(async () => {
  const [owner, target] = await Promise.all([createTenant(), createTenant()]);
  const configOf = {
    identifier_key: ["key"],
    indexed_attributes: model.indexed.map(({ path, type }) => ({ path, type, ...(type === "text" ? {} : { sortable: true }) })),
  };
  const type = await createType(owner.auth, { name: TYPE, schema: { type: "object", required: ["key"] }, config: configOf });
  const res = await call("POST", "/entity/entities/upsert", { auth: owner.auth, body: { type_name: TYPE, data: DATA } });
  expect(res.status, res.text).toBe(200);
  await share(owner, "entity_type", type.id, target);
  w = { owner, target, rows: await readRowsOf(owner.auth, TYPE, res.json.data.ids) };
});

describe("aggregates agree with a reference computed from the same rows", () => {
  it(`answers ${RUNS} random requests, paged, with the reference's groups and values, for the owner and the tenant it shares with`, async () => {
    const tally = { groups: 0, empty: 0, paged: 0, nullKeys: 0, strings: 0 };
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ filter, paths, aggregates, sorts, limit }) => {
        const verdict = filter === undefined ? undefined : judge(filter, { root: model, types: [model] });
        if (verdict && !verdict.valid) throw new Error(`the generator made an invalid filter: ${verdict.reason}`);
        const kept = w.rows.filter((r) => (verdict?.valid ? verdict.holds(r) : true));
        expect(w.rows.every((r) => !verdict?.valid || verdict.holds(r) !== undefined)).toBe(true);

        const aliases = aggregates.map((_, i) => `v${i}`);
        const names = [...paths.map((p) => p.key), ...aliases];
        const sort = paths.length
          ? [...new Map(sorts.map((s) => [names[s.pick % names.length], s.desc])).entries()].map(([key, desc]) => ({ key, direction: desc ? "desc" : "asc" }))
          : [];
        const body = {
          type_name: TYPE,
          ...(filter === undefined ? {} : { filter }),
          ...(paths.length ? { group_by: paths.map((p) => p.request) } : {}),
          aggregates: aggregates.map((a, i) => ({ ...a.request, as: aliases[i] })),
          ...(sort.length ? { sort } : {}),
        };

        for (const [auth, shared] of [
          [w.owner.auth, false],
          [w.target.auth, true],
        ] as const) {
          const want = reference(kept, paths, aggregates, shared);
          // Keep a walk to a handful of pages.
          const pageSize = Math.max(limit, Math.ceil(want.length / 6));
          const got: { group: Record<string, unknown> }[] = [];
          let cursor: string | undefined;
          for (let pages = 0; ; pages++) {
            const res = await call("POST", "/entity/query/aggregate", { auth, body: { ...body, limit: pageSize, ...(cursor ? { cursor } : {}) } });
            expect(res.status, res.text).toBe(200);
            got.push(...res.json.data);
            cursor = res.json.next_cursor;
            if (res.json.data.length === pageSize && paths.length) expect(cursor).toEqual(expect.any(String));
            if (!cursor) break;
            expect(pages).toBeLessThan(want.length + 1);
            if (pages) tally.paged++;
          }

          // Every group once, with the reference's values.
          const keyOf = (g: { group: Record<string, unknown> }) => JSON.stringify(paths.map((p) => g.group[p.key]));
          expect(got.map(keyOf).sort()).toEqual(want.map((g) => JSON.stringify(g.group)).sort());
          const byKey = new Map(want.map((g) => [JSON.stringify(g.group), g]));
          for (const g of got) {
            expect(Object.keys(g).sort()).toEqual(["group", ...aliases].sort());
            const ref = byKey.get(keyOf(g))!;
            ref.values.forEach((value, i) => {
              const answered = (g as Record<string, unknown>)[aliases[i]];
              if (typeof answered === "string" && value.kind === "exact") tally.strings++;
              expect(
                agrees(answered, value),
                `${aliases[i]} (${JSON.stringify(aggregates[i].request)}) of ${keyOf(g)}: got ${JSON.stringify(answered)}, want ${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}c` : v))}`,
              ).toBe(true);
            });
          }

          // In the requested order, then the group keys not named, ascending.
          const order = [
            ...sort.map((s) => ({ key: s.key, desc: s.direction === "desc" })),
            ...paths.filter((p) => !sort.some((s) => s.key === p.key)).map((p) => ({ key: p.key, desc: false })),
          ];
          const sortValue = (g: { group: Record<string, unknown> }, key: string) => {
            const path = paths.find((p) => p.key === key);
            if (path) return { value: g.group[key] as Value, cmp: path.compare };
            const i = aliases.indexOf(key);
            return { value: aggregates[i].order(byKey.get(keyOf(g))!.values[i]), cmp: byValue };
          };
          for (let i = 1; i < got.length; i++) {
            const c = order.reduce((acc, o) => {
              if (acc !== 0) return acc;
              const a = sortValue(got[i - 1], o.key);
              const b = sortValue(got[i], o.key);
              return compareBy(a.value, b.value, o.desc, a.cmp);
            }, 0);
            expect(c, `groups ${i - 1} and ${i} out of order by ${JSON.stringify(order)}`).toBeLessThan(0);
          }
          tally.groups += got.length;
          if (!kept.length) tally.empty++;
          if (got.some((g) => Object.values(g.group).includes(null))) tally.nullKeys++;
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The property holds vacuously if the requests never group, page, meet nulls or empty sets, or never need a sum's text.
    expect(tally.groups).toBeGreaterThan(RUNS * 4);
    expect(tally.paged).toBeGreaterThan(RUNS / 4);
    expect(tally.nullKeys).toBeGreaterThan(RUNS / 10);
    expect(tally.empty).toBeGreaterThan(0);
    expect(tally.strings).toBeGreaterThan(0);
  }, 300_000);
});
