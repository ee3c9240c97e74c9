// POST /entity/query-graph through the gateway: the nested include tree, each
// entity once, edges in their stored direction, per-level filter/sort/limit,
// the depth cap, the node budget, paging, tenancy and the errors.
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError } from "../support/api";
import { orgChart, type OrgChart } from "./graph-fixture";

let t: OrgChart;
beforeAll(async () => {
  t = await orgChart();
});

interface Answer {
  roots: string[];
  nodes: Record<string, { id: string; name: string }>;
  edges: { rule: { id: string; name: string }; from_id: string; to_id: string }[];
  page_info: Record<string, any>;
}

async function graph(body: Record<string, unknown>, auth = t.auth) {
  return call("POST", "/entity/query-graph", { auth, body });
}

async function graphOk(body: Record<string, unknown>, auth = t.auth): Promise<Answer> {
  const res = await graph(body, auth);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data;
}

/** The answer in entity names: roots in order, nodes sorted, edges as `rule From>To` in answer order. */
function named(a: Answer, chart = t) {
  const byId = new Map(Object.entries(chart.ids).map(([name, id]) => [id, name]));
  const name = (id: string) => byId.get(id) ?? `foreign:${id}`;
  for (const [id, node] of Object.entries(a.nodes)) expect(node.id).toBe(id);
  return {
    roots: a.roots.map(name),
    nodes: Object.keys(a.nodes).map(name).sort(),
    edges: a.edges.map((e) => `${e.rule.name} ${name(e.from_id)}>${name(e.to_id)}`),
  };
}

const byName = [{ path: ["name"] }];
const notCut = { truncated: false, truncations: [] };
const eq = (path: string[], value: unknown) => ({ operator: "eq", path, value });

describe("the include tree", () => {
  it("walks three levels: every entity once, every link once as stored", async () => {
    const a = await graphOk({
      type_name: "Company",
      sort: byName,
      include: [{ type_name: "Person", rule_name: "employs", include: [{ type_name: "Car" }] }],
    });
    const n = named(a);
    expect(n.roots).toEqual(["Acme", "Bolt"]);
    // Dee works for both companies and Fiat has two owners: still one node each.
    expect(n.nodes).toEqual(["Acme", "Ann", "Audi", "BMW", "Bob", "Bolt", "Cid", "Dee", "Fiat", "Golf"]);
    expect(n.edges.sort()).toEqual([
      "employs Acme>Ann",
      "employs Acme>Bob",
      "employs Acme>Dee",
      "employs Bolt>Cid",
      "employs Bolt>Dee",
      "owns Ann>Audi",
      "owns Bob>BMW",
      "owns Cid>Fiat",
      "owns Dee>Fiat",
      "owns Dee>Golf",
    ]);
    for (const e of a.edges) expect(e.rule.id).toBe(t.rules[e.rule.name]);
    expect(a.page_info).toEqual(notCut);

    // Nodes are whole entities, as GET /entity/entities/{id} shows them.
    const dee = await call("GET", `/entity/entities/${t.ids.Dee}`, { auth: t.auth });
    expect(dee.status).toBe(200);
    expect(a.nodes[t.ids.Dee]).toEqual(dee.json.data);
    expect(a.nodes[t.ids.Dee]).toMatchObject({ name: "Dee", type: { name: "Person" }, attributes: { pid: "dee", age: 50 }, deleted_at: null });
  });

  it("walks links in either direction and lists an edge reached twice once", async () => {
    const a = await graphOk({
      type_name: "Car",
      filter: eq(["name"], "Fiat"),
      include: [{ type_name: "Person", include: [{ type_name: "Company", rule_name: "employs", include: [{ type_name: "Person", rule_name: "employs" }] }] }],
    });
    const n = named(a);
    expect(n.roots).toEqual(["Fiat"]);
    expect(n.nodes).toEqual(["Acme", "Ann", "Bob", "Bolt", "Cid", "Dee", "Fiat"]);
    // Walked Car -> Person -> Company -> Person, yet every edge keeps its stored from/to;
    // Bolt>Cid, Bolt>Dee and Acme>Dee are reached on levels 2 and 3 and listed once.
    expect(n.edges.sort()).toEqual([
      "employs Acme>Ann",
      "employs Acme>Bob",
      "employs Acme>Dee",
      "employs Bolt>Cid",
      "employs Bolt>Dee",
      "owns Cid>Fiat",
      "owns Dee>Fiat",
    ]);
    expect(a.page_info).toEqual(notCut);
  });

  it("rule_name narrows an entry to one rule; without it every rule between the types is walked", async () => {
    const bolt = { type_name: "Company", filter: eq(["name"], "Bolt") };
    const any = named(await graphOk({ ...bolt, include: [{ type_name: "Person" }] }));
    expect(any.nodes).toEqual(["Ann", "Bolt", "Cid", "Dee"]);
    expect(any.edges.sort()).toEqual(["employs Bolt>Cid", "employs Bolt>Dee", "founded_by Bolt>Ann"]);

    const founders = named(await graphOk({ ...bolt, include: [{ type_name: "Person", rule_name: "founded_by" }] }));
    expect(founders.nodes).toEqual(["Ann", "Bolt"]);
    expect(founders.edges).toEqual(["founded_by Bolt>Ann"]);
  });

  it("applies each entry's filter, sort and limit under every parent", async () => {
    const a = await graphOk({
      type_name: "Company",
      sort: byName,
      include: [
        {
          type_name: "Person",
          rule_name: "employs",
          filter: { operator: "gte", path: ["attributes", "age"], value: 30 },
          sort: [{ path: ["attributes", "age"], direction: "desc" }],
          limit: 2,
          include: [{ type_name: "Car", sort: [{ path: ["name"], direction: "desc" }], limit: 1 }],
        },
      ],
    });
    const n = named(a);
    // Acme: Dee (50) and Bob (40) of Ann, Bob, Dee; Bolt: Dee, Cid (25) filtered out.
    // Cars: Dee's Golf before Fiat, Bob's BMW. Edges come in traversal order.
    expect(n.nodes).toEqual(["Acme", "BMW", "Bob", "Bolt", "Dee", "Golf"]);
    expect(n.edges).toEqual(["employs Acme>Dee", "employs Acme>Bob", "employs Bolt>Dee", "owns Dee>Golf", "owns Bob>BMW"]);
  });

  it("an unknown type reaches nothing in a filter path, but is 404 as an entry", async () => {
    const res = await graph({ type_name: "Company", include: [{ type_name: "Person", include: [{ type_name: "Boat" }] }] });
    const err = expectError(res, 404, "NOT_FOUND");
    expect(err.message).toBe("Entity type Boat not found");
    expect(err.details.path).toBe("include[0].include[0].type_name");

    const a = await graphOk({
      type_name: "Company",
      include: [{ type_name: "Person", rule_name: "employs", filter: { operator: "exists", path: ["relationships", "Boat"] } }],
    });
    expect(named(a).nodes).toEqual(["Acme", "Bolt"]);
    expect(a.edges).toEqual([]);
  });
});

/** `levels` nested entries alternating Person and Company under the employs rule. */
function nested(levels: number): Record<string, unknown>[] {
  if (levels === 0) return [];
  return [{ type_name: levels % 2 ? "Person" : "Company", rule_name: "employs", include: nested(levels - 1) }];
}

describe("server caps", () => {
  it("accepts 5 levels of include and refuses 6 with the path of the too-deep one", async () => {
    const five = await graphOk({ type_name: "Company", filter: eq(["name"], "Acme"), include: nested(5) });
    expect(named(five).nodes).toEqual(["Acme", "Ann", "Bob", "Bolt", "Cid", "Dee"]);
    expect(five.page_info).toEqual(notCut);

    const err = expectError(await graph({ type_name: "Person", include: nested(6) }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["include[0].include[0].include[0].include[0].include[0].include: includes nest at most 5 levels"]);
    expect(err.details.errors).toEqual(err.details.validation_errors);
  });

  it("refuses more than 50 entries in the whole tree", async () => {
    const cars = Array.from({ length: 16 }, () => ({ type_name: "Car" }));
    const include = Array.from({ length: 3 }, () => ({ type_name: "Person", include: cars }));
    const err = expectError(await graph({ type_name: "Company", include }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["include: at most 50 entries in the whole tree"]);

    const fits = await graphOk({ type_name: "Company", include: include.slice(0, 2) });
    expect(Object.keys(fits.nodes)).toHaveLength(10);
  });

  const tree = [{ type_name: "Person", rule_name: "employs", sort: byName, include: [{ type_name: "Car", sort: byName }] }];

  it("a node budget keeps what fits in traversal order and names the cut branch and depth", async () => {
    const a = await graphOk({ type_name: "Company", sort: byName, node_budget: 8, include: tree });
    const n = named(a);
    // 2 roots + 4 people; the 2 left go to the first cars reached: Ann's Audi, Bob's BMW.
    expect(n.nodes).toEqual(["Acme", "Ann", "Audi", "BMW", "Bob", "Bolt", "Cid", "Dee"]);
    expect(n.edges).toEqual([
      "employs Acme>Ann",
      "employs Acme>Bob",
      "employs Acme>Dee",
      "employs Bolt>Cid",
      "employs Bolt>Dee",
      "owns Ann>Audi",
      "owns Bob>BMW",
    ]);
    expect(a.page_info).toEqual({ truncated: true, truncations: [{ path: ["Company", "Person", "Car"], depth: 2 }] });
  });

  it("a cut keeps every link to the entities it kept, and each cut entry is listed", async () => {
    const a = await graphOk({ type_name: "Company", sort: byName, node_budget: 5, include: tree });
    const n = named(a);
    // Ann, Bob, Dee fit (Dee also under Bolt); Cid does not, nor any car.
    expect(n.nodes).toEqual(["Acme", "Ann", "Bob", "Bolt", "Dee"]);
    expect(n.edges).toEqual(["employs Acme>Ann", "employs Acme>Bob", "employs Acme>Dee", "employs Bolt>Dee"]);
    expect(a.page_info.truncations).toEqual([
      { path: ["Company", "Person"], depth: 1 },
      { path: ["Company", "Person", "Car"], depth: 2 },
    ]);
  });

  it("the root page is never cut but counts against the budget", async () => {
    const a = await graphOk({ type_name: "Company", sort: byName, node_budget: 1, include: tree });
    expect(named(a)).toEqual({ roots: ["Acme", "Bolt"], nodes: ["Acme", "Bolt"], edges: [] });
    // Nothing was kept under the cut Person entry, so its Car entry had no parents to run for.
    expect(a.page_info).toEqual({ truncated: true, truncations: [{ path: ["Company", "Person"], depth: 1 }] });
  });

  it("node_budget cannot exceed the server's budget", async () => {
    const err = expectError(await graph({ type_name: "Company", node_budget: 2001 }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toHaveLength(1);
    expect(err.details.validation_errors[0]).toMatch(/^node_budget: /);
    expect(err.details.validation_errors[0]).toContain("2000");
  });
});

describe("paging", () => {
  const acmeFirst = { type_name: "Company", sort: byName, limit: 1, include: [{ type_name: "Person", rule_name: "employs" }] };

  it("next_cursor continues the root page, and each page brings its own subgraph", async () => {
    const first = await graphOk(acmeFirst);
    expect(named(first)).toMatchObject({ roots: ["Acme"], nodes: ["Acme", "Ann", "Bob", "Dee"] });
    expect(first.page_info.next_cursor).toEqual(expect.any(String));

    const second = await graphOk({ ...acmeFirst, cursor: first.page_info.next_cursor });
    expect(named(second)).toEqual({ roots: ["Bolt"], nodes: ["Bolt", "Cid", "Dee"], edges: ["employs Bolt>Cid", "employs Bolt>Dee"] });
    expect(second.page_info).toMatchObject({ truncated: false, next_cursor: expect.any(String) });

    const third = await graphOk({ ...acmeFirst, cursor: second.page_info.next_cursor });
    expect(third).toEqual({ roots: [], nodes: {}, edges: [], page_info: notCut });

    const other = await graph({ ...acmeFirst, filter: eq(["name"], "Bolt"), cursor: first.page_info.next_cursor });
    expect(expectError(other, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["cursor: is invalid or does not belong to this query"]);
    const both = await graph({ ...acmeFirst, page: 1, cursor: first.page_info.next_cursor });
    expect(expectError(both, 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["cursor: cannot be combined with page"]);
  });

  it("offset paging and counts sit in page_info", async () => {
    const a = await graphOk({ ...acmeFirst, page: 2, include_count: true, count_strategy: "exact" });
    expect(named(a).roots).toEqual(["Bolt"]);
    expect(a.page_info).toEqual({ ...notCut, pagination: { page: 2, limit: 1, total: 2, total_pages: 2 }, count: 2, count_strategy: "exact" });
  });
});

describe("access and errors", () => {
  it("never shows another tenant's entities", async () => {
    const u = await orgChart();
    const body = { type_name: "Company", include: [{ type_name: "Person", include: [{ type_name: "Car", include: [{ type_name: "Person" }] }] }] };
    const mine = await graphOk(body);
    const theirs = await graphOk(body, u.auth);
    // named() renders an id outside the chart as foreign:<id>, so equal name lists mean no stray ids.
    expect(named(mine).nodes).toEqual(["Acme", "Ann", "Audi", "BMW", "Bob", "Bolt", "Cid", "Dee", "Fiat", "Golf"]);
    expect(named(theirs, u).nodes).toEqual(named(mine).nodes);
    expect(Object.keys(theirs.nodes).filter((id) => id in mine.nodes)).toEqual([]);

    const across = await graphOk({ type_name: "Company", filter: eq(["id"], u.ids.Acme), include: [{ type_name: "Person" }] });
    expect(across).toEqual({ roots: [], nodes: {}, edges: [], page_info: notCut });
    const byRelated = await graphOk({
      type_name: "Company",
      filter: { operator: "rel_exists", path: ["relationships", "Person"], value: eq(["id"], u.ids.Ann) },
    });
    expect(byRelated.roots).toEqual([]);
  });

  it("needs credentials", async () => {
    expectError(await graph({ type_name: "Company" }, ""), 401, "UNAUTHORIZED");
  });

  it("an unknown root type_name is 404", async () => {
    const err = expectError(await graph({ type_name: "Spaceship" }), 404, "NOT_FOUND");
    expect(err.message).toBe("Entity type Spaceship not found");
  });

  it("a bad include entry is 422 with a line naming its place", async () => {
    const lines = async (include: unknown) => expectError(await graph({ type_name: "Company", include }), 422, "VALIDATION_FAILED").details.validation_errors;
    expect(await lines([{ rule_name: "employs" }])).toEqual(["include[0].type_name: is required"]);
    expect(await lines([{ type_name: "Person", include: [{ type_name: "Car", depth: 2 }] }])).toEqual(["include[0].include[0].depth: is not allowed"]);
    expect(await lines([{ type_name: "Person", limit: 0 }])).toEqual([expect.stringMatching(/^include\[0\]\.limit: /)]);
    expect(await lines([{ type_name: "Person", include: [{ type_name: "Car", filter: { operator: "near", path: ["name"] } }] }])).toEqual([
      expect.stringMatching(/^include\[0\]\.include\[0\]\.filter\.operator: must be one of /),
    ]);
    expect(await lines([{ type_name: "Person", sort: [{ path: ["relationships", "Car", "name"] }] }])).toEqual([
      "include[0].sort[0].path: cannot sort by a relationship path",
    ]);
    expect(await lines({ type_name: "Person" })).toEqual([expect.stringMatching(/^include: must be array/)]);
  });
});
