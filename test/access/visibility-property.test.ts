// A random principal never sees a row its grants and shares do not allow,
// and sees every row they do. Each run builds a small world (2-3 types of
// 1-3 rows, random rules and links) in an owner tenant, a token there whose
// only permissions are random narrowed grants (to a type or to single
// entities, through a policy on its role or on its user), and random shares
// to a second tenant. What each may read is computed here independently, and
// checked by GET by id, /entity/query per type, and includes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { createRule, link, policyOnRoleToken, policyOnUserToken, share, upsertRows, type Grant } from "./fixture";

const SEED = 20_261_124;
const RUNS = 16;

/** How a type is granted or shared: not at all, as a whole, or these rows (by index). */
type Reach = { kind: "none" } | { kind: "type" } | { kind: "rows"; rows: number[] };

interface Plan {
  sizes: number[];
  /** Rules between types [from, to]; links [rule index, from row index, to row index]. */
  rules: [number, number][];
  links: [number, number, number][];
  grants: Reach[];
  shares: Reach[];
  assignTo: "role" | "user";
}

const reach = (size: number): fc.Arbitrary<Reach> =>
  fc.oneof(
    fc.constant<Reach>({ kind: "none" }),
    fc.constant<Reach>({ kind: "type" }),
    fc.subarray([...Array(size).keys()], { minLength: 1 }).map((rows): Reach => ({ kind: "rows", rows })),
  );

const plans: fc.Arbitrary<Plan> = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 3 }).chain((sizes) => {
  const types = sizes.length;
  const pairs = fc.tuple(fc.integer({ min: 0, max: types - 1 }), fc.integer({ min: 0, max: types - 1 }));
  return fc.uniqueArray(pairs, { minLength: 1, maxLength: 3, selector: ([a, b]) => `${a}-${b}` }).chain((rules) =>
    fc.record({
      sizes: fc.constant(sizes),
      rules: fc.constant(rules),
      links: fc.uniqueArray(
        fc
          .integer({ min: 0, max: rules.length - 1 })
          .chain((r) => fc.tuple(fc.constant(r), fc.integer({ min: 0, max: sizes[rules[r][0]] - 1 }), fc.integer({ min: 0, max: sizes[rules[r][1]] - 1 }))),
        { maxLength: 6, selector: (l) => l.join("-") },
      ),
      grants: fc.tuple(...sizes.map(reach)),
      shares: fc.tuple(...sizes.map(reach)),
      assignTo: fc.constantFrom<"role" | "user">("role", "user"),
    }),
  );
});

const typeName = (t: number) => `T${t}`;

interface Built {
  owner: TenantCreds;
  target: TenantCreds;
  /** Row ids by type, by index. */
  rows: string[][];
  links: { rule: string; from: string; to: string }[];
  typeIds: string[];
}

async function build(plan: Plan): Promise<Built> {
  const [owner, target] = await Promise.all([createTenant(), createTenant()]);
  const typeIds: string[] = [];
  for (const t of plan.sizes.keys()) {
    typeIds.push((await createType(owner.auth, { name: typeName(t), schema: { type: "object" }, config: { identifier_key: ["k"] } })).id);
  }
  const ruleNames = await Promise.all(plan.rules.map(async ([from, to], i) => (await createRule(owner.auth, `r${i}`, typeName(from), typeName(to))).name));
  const rows: string[][] = [];
  for (const [t, size] of plan.sizes.entries()) {
    rows.push(
      await upsertRows(
        owner.auth,
        typeName(t),
        Array.from({ length: size }, (_, i) => ({ name: `${typeName(t)}-${i}`, attributes: { k: `k${i}` } })),
      ),
    );
  }
  const links = plan.links.map(([r, f, to]) => ({ rule: ruleNames[r], from: rows[plan.rules[r][0]][f], to: rows[plan.rules[r][1]][to] }));
  for (const l of links) await link(owner.auth, l.rule, l.from, l.to);
  return { owner, target, rows, links, typeIds };
}

/**
 * Which rows a reach per type allows, and which types it makes reachable by
 * name: those it reaches at least one row of (a type it reaches no row of is
 * 403 to a restricted token, unknown or empty to the share's target).
 */
function allowed(b: Built, reaches: Reach[]) {
  const rows = new Set<string>();
  const types = new Set<number>();
  reaches.forEach((r, t) => {
    if (r.kind === "type") b.rows[t].forEach((id) => rows.add(id));
    if (r.kind === "rows") r.rows.forEach((i) => rows.add(b.rows[t][i]));
    if (r.kind !== "none") types.add(t);
  });
  return { rows, types };
}

function grantsOf(b: Built, reaches: Reach[]): Grant[] {
  return reaches.flatMap((r, t): Grant[] => {
    if (r.kind === "type") return [{ resource: "entity", actions: ["read"], resource_name: typeName(t) }];
    if (r.kind === "rows") return r.rows.map((i) => ({ resource: "entity", actions: ["read"], resource_id: b.rows[t][i] }));
    return [];
  });
}

/** `rule:other:direction` of the links of `id` whose other end is in `rows` and of a type in `types`. */
function expectedRelationships(b: Built, id: string, rows: Set<string>, types: number[]) {
  const typeOf = (x: string) => b.rows.findIndex((r) => r.includes(x));
  const out: string[] = [];
  for (const l of b.links) {
    if (l.from === id && rows.has(l.to) && types.includes(typeOf(l.to))) out.push(`${l.rule}:${l.to}:to`);
    if (l.to === id && rows.has(l.from) && types.includes(typeOf(l.from))) out.push(`${l.rule}:${l.from}:from`);
  }
  return out.sort();
}

const keys = (e: any) => ((e.relationships ?? []) as any[]).map((r) => `${r.rule.name}:${r.entity.id}:${r.direction}`).sort();

/**
 * Checks one principal: every row by id, every type by query (rows and
 * includes of the types it may reach), against `rows` and `types`.
 * `hidden` is the answer to a type it may not reach.
 */
async function check(b: Built, auth: string, rows: Set<string>, types: Set<number>, hidden: (res: { status: number; json: any }) => boolean, shared: boolean) {
  const problems: string[] = [];
  for (const [t, ids] of b.rows.entries()) {
    for (const id of ids) {
      const res = await call("GET", `/entity/entities/${id}`, { auth });
      const want = rows.has(id) ? 200 : 404;
      if (res.status !== want) problems.push(`GET ${typeName(t)} ${id}: ${res.status}, want ${want}`);
      else if (want === 200 && (res.json.data.source_type ?? null) !== (shared ? "shared" : null))
        problems.push(`GET ${id}: source_type ${res.json.data.source_type}`);
    }
    const reachable = [...types];
    const includes = (shared ? reachable : [...b.rows.keys()]).map(typeName);
    const res = await call("POST", "/entity/query", { auth, body: { type_name: typeName(t), include: includes, limit: 1000 } });
    if (!types.has(t)) {
      if (!hidden(res)) problems.push(`query ${typeName(t)}: ${res.status} ${res.text.slice(0, 200)}`);
      continue;
    }
    if (res.status !== 200) {
      problems.push(`query ${typeName(t)}: ${res.status} ${res.text.slice(0, 200)}`);
      continue;
    }
    const got = (res.json.data as any[]).map((e) => e.id).sort();
    const want = ids.filter((id) => rows.has(id)).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`query ${typeName(t)}: got ${got}, want ${want}`);
    for (const e of res.json.data as any[]) {
      const wantRels = expectedRelationships(b, e.id, rows, shared ? reachable : [...b.rows.keys()]);
      if (JSON.stringify(keys(e)) !== JSON.stringify(wantRels)) problems.push(`include on ${e.id}: got ${keys(e)}, want ${wantRels}`);
    }
  }
  return problems;
}

describe("visibility under random grants and shares", () => {
  it(`${RUNS} random worlds: each principal sees exactly the rows its grants and shares allow`, async () => {
    const tally = { grantedRows: 0, sharedRows: 0, hiddenRows: 0 };
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const b = await build(plan);
        const grants = grantsOf(b, plan.grants);
        const { auth } = plan.assignTo === "role" ? await policyOnRoleToken(b.owner.auth, grants) : await policyOnUserToken(b.owner.auth, grants);
        for (const [t, r] of plan.shares.entries()) {
          if (r.kind === "type") await share(b.owner, "entity_type", b.typeIds[t], b.target);
          if (r.kind === "rows") for (const i of r.rows) await share(b.owner, "entity", b.rows[t][i], b.target);
        }
        const granted = allowed(b, plan.grants);
        const shared = allowed(b, plan.shares);
        const total = b.rows.flat().length;
        tally.grantedRows += granted.rows.size;
        tally.sharedRows += shared.rows.size;
        tally.hiddenRows += 2 * total - granted.rows.size - shared.rows.size;
        const forbidden = (res: { status: number; json: any }) => res.status === 403 && res.json?.error?.code === "FORBIDDEN";
        const unknownOrEmpty = (res: { status: number; json: any }) =>
          (res.status === 404 && res.json?.error?.code === "NOT_FOUND") || (res.status === 200 && res.json.data.length === 0);
        const problems = [
          ...(await check(b, auth, granted.rows, granted.types, forbidden, false)).map((p) => `owner's restricted token: ${p}`),
          ...(await check(b, b.target.auth, shared.rows, shared.types, unknownOrEmpty, true)).map((p) => `target tenant: ${p}`),
        ];
        expect(problems, JSON.stringify(plan)).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The property holds vacuously if the worlds granted, shared or hid nothing.
    expect(tally.grantedRows).toBeGreaterThan(RUNS);
    expect(tally.sharedRows).toBeGreaterThan(RUNS);
    expect(tally.hiddenRows).toBeGreaterThan(RUNS);
  }, 240_000);
});
