// Hostile filters through the gateway: nested rel_exists stays linear and
// counts toward the 25-level cap on every route that takes a filter, and an
// include filter on ["type","name"] treats a value of another type as the
// root filter does.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, expectError, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";

let t: TenantCreds;
let ids: Record<string, string>;

beforeAll(async () => {
  t = await createTenant();
  // Empty holds no entity: the nesting tests measure the compiler and the planner, not the data.
  await createType(t.auth, {
    name: "Empty",
    schema: { type: "object", properties: { color: { type: "string" } } },
    config: { identifier_key: ["color"], indexed_attributes: [{ path: ["color"], type: "text" }] },
  });
  await createType(t.auth, { name: "Item", schema: { type: "object", properties: { sku: { type: "string" } } }, config: { identifier_key: ["sku"] } });
  await createType(t.auth, { name: "Maker", schema: { type: "object", properties: { code: { type: "string" } } }, config: { identifier_key: ["code"] } });
  const rule = await call("POST", "/entity/relationship-rules", {
    auth: t.auth,
    body: { name: "made_by", from_entity_type_name: "Item", to_entity_type_name: "Maker" },
  });
  expect(rule.status, rule.text).toBe(201);
  const maker = await call("POST", "/entity/entities", { auth: t.auth, body: { type_name: "Maker", name: "Acme", attributes: { code: "acme" } } });
  expect(maker.status, maker.text).toBe(201);
  const item = await call("POST", "/entity/entities", { auth: t.auth, body: { type_name: "Item", name: "Chair", attributes: { sku: "A1" } } });
  expect(item.status, item.text).toBe(201);
  const link = await call("POST", "/entity/relationships", {
    auth: t.auth,
    body: { rule_name: "made_by", from_entity_id: item.json.data.id, to_entity_id: maker.json.data.id },
  });
  expect(link.status, link.text).toBe(201);
  ids = { acme: maker.json.data.id, chair: item.json.data.id };
});

const leaf = { operator: "eq", path: ["name"], value: "x" };
const relNest = (n: number) => Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "rel_exists", path: ["relationships", "Empty"], value: f }), leaf);
const ands = (n: number, inner: unknown) => Array.from({ length: n }).reduce<unknown>((f) => ({ operator: "and", filters: [f] }), inner);

/** Every route that compiles a filter, with where the filter goes in its body and the prefix of its error lines. */
const routes: { name: string; path: string; body: (filter: unknown) => Record<string, unknown>; at: string }[] = [
  { name: "query", path: "/entity/query", body: (filter) => ({ type_name: "Empty", filter }), at: "filter" },
  {
    name: "query include_specs",
    path: "/entity/query",
    body: (filter) => ({ type_name: "Empty", include_specs: [{ type_name: "Empty", filter }] }),
    at: "include_specs[0].filter",
  },
  { name: "query-graph", path: "/entity/query-graph", body: (filter) => ({ type_name: "Empty", filter }), at: "filter" },
  {
    name: "query-graph include",
    path: "/entity/query-graph",
    body: (filter) => ({ type_name: "Empty", include: [{ type_name: "Empty", filter }] }),
    at: "include[0].filter",
  },
  { name: "export", path: "/entity/entities/export", body: (filter) => ({ type_name: "Empty", filter }), at: "filter" },
  { name: "distinct", path: "/entity/query/distinct", body: (filter) => ({ type_name: "Empty", attribute_name: "color", filter }), at: "filter" },
];

describe("nested rel_exists", () => {
  for (const route of routes) {
    it(`${route.name}: 25 nested answer 200, 26 are 422 naming the place`, async () => {
      const ok = await call("POST", route.path, { auth: t.auth, body: route.body(relNest(25)) });
      expect(ok.status, ok.text).toBe(200);
      const err = expectError(await call("POST", route.path, { auth: t.auth, body: route.body(relNest(26)) }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([`${route.at}${".value".repeat(25)}: filters nest at most 25 levels`]);
    });
  }

  it("a rel_exists is a level of the same cap as composites", async () => {
    for (const route of routes) {
      const ok = await call("POST", route.path, { auth: t.auth, body: route.body(ands(24, relNest(1))) });
      expect(ok.status, `${route.name}: ${ok.text}`).toBe(200);
      const err = expectError(await call("POST", route.path, { auth: t.auth, body: route.body(ands(25, relNest(1))) }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([`${route.at}${".filters[0]".repeat(25)}: filters nest at most 25 levels`]);
    }
  });

  it("still finds what a chain of links reaches", async () => {
    const chain = {
      operator: "rel_exists",
      path: ["relationships", "Maker"],
      value: { operator: "rel_exists", path: ["relationships", "Item"], value: { operator: "eq", path: ["name"], value: "Chair" } },
    };
    const res = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Item", filter: chain } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.map((e: { id: string }) => e.id)).toEqual([ids.chair]);
    const none = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Maker", filter: { ...chain, path: ["relationships", "Item"] } } });
    expect(none.json.data).toEqual([]);
  });
});

describe("an include filter on type.name with a value of another type", () => {
  const typeName = (operator: string, value: unknown) => ({ operator, path: ["type", "name"], value });
  const includeSpecs = (filter: unknown) =>
    call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Item", include_specs: [{ type_name: "Maker", filter }] } });
  const graph = (filter: unknown) =>
    call("POST", "/entity/query-graph", { auth: t.auth, body: { type_name: "Item", include: [{ type_name: "Maker", filter }] } });
  const related = async (res: Awaited<ReturnType<typeof call>>, shape: "specs" | "graph") => {
    expect(res.status, res.text).toBe(200);
    if (shape === "specs") return res.json.data[0].relationships.map((r: { entity: { id: string } }) => r.entity.id);
    return Object.keys(res.json.data.nodes).filter((id) => id !== ids.chair);
  };

  for (const [shape, load] of [
    ["specs", includeSpecs],
    ["graph", graph],
  ] as const) {
    it(`${shape}: a number or a boolean equals no name (eq and in match nothing, neq everything), as on the root`, async () => {
      for (const value of [5, true]) {
        expect(await related(await load(typeName("eq", value)), shape)).toEqual([]);
        expect(await related(await load(typeName("in", [value])), shape)).toEqual([]);
        expect(await related(await load(typeName("neq", value)), shape)).toEqual([ids.acme]);
      }
      expect(await related(await load(typeName("is", null)), shape)).toEqual([]);
      expect(await related(await load(typeName("eq", "Maker")), shape)).toEqual([ids.acme]);
    });

    it(`${shape}: null, an object and an array are 422 naming the place, as on the root`, async () => {
      const at = shape === "specs" ? "include_specs[0].filter.value" : "include[0].filter.value";
      const cases: [unknown, string][] = [
        [null, "must not be null for eq (use is)"],
        [{ a: 1 }, "must be a string, number or boolean for eq"],
        [["Maker"], "must be a string, number or boolean for eq"],
      ];
      for (const [value, reason] of cases) {
        const err = expectError(await load(typeName("eq", value)), 422, "VALIDATION_FAILED");
        expect(err.details.validation_errors).toEqual([`${at}: ${reason}`]);
        const root = expectError(
          await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Item", filter: typeName("eq", value) } }),
          422,
          "VALIDATION_FAILED",
        );
        expect(root.details.validation_errors).toEqual([`filter.value: ${reason}`]);
      }
    });
  }
});
