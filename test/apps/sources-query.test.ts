// An app page's `$query`, `$typeSchema` and `$rows` sources against a real
// tenant, as the app user's services run them: filters resolved from the
// page, optional and unresolved particles, search, single, totals, `$pipe`
// steps with leftJoin, one fetch per resolved source until invalidate, the
// render's budget, and a refused query failing the read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlineExceeded } from "../../src/apps/render/sources";
import { ApiError } from "../../src/lib/errors";
import { EvaluationBudget, ExpressionError } from "../../src/lib/smart-values";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";
import { closeDatabases, harness, pageScope } from "./sources-support";

let t: TenantCreds;

const orderSchema = {
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string" },
    status: { enum: ["open", "closed", "draft"] },
    region: { type: "string" },
    owner: { type: ["string", "null"] },
    total: { type: "number" },
  },
};

beforeAll(async () => {
  t = await createTenant();
  await createType(t.auth, {
    name: "Order",
    schema: orderSchema,
    config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["sku"], type: "text", searchable: true }] },
  });
  await createEntity(t.auth, "Order", "Café Alpha", { sku: "A-1", status: "open", region: "eu", owner: "ada", total: 30 });
  await createEntity(t.auth, "Order", "Beta", { sku: "CRÈME-2", status: "closed", region: "us", owner: null, total: 10 });
  await createEntity(t.auth, "Order", "Gamma", { sku: "G-3", status: "open", region: "us", owner: "bob", total: 20 });
  const schema = { type: "object", properties: { address: { type: "object", properties: { country: { enum: ["DE", "FR", "NL"] } } } } };
  expect((await call("POST", "/schema/schemas", { auth: t.auth, body: { name: "customer", schema } })).status).toBe(201);
});

afterAll(closeDatabases);

const names = (rows: unknown) => (rows as { name: string }[]).map((r) => r.name);
const byTotal = [{ path: ["attributes", "total"], direction: "desc" }];

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

describe("$query", () => {
  it("runs the query with values from the page, sort and limit; the total is the query's count", async () => {
    const { sources } = await harness(t, {
      open: {
        $query: {
          typeName: "Order",
          filter: { operator: "eq", path: ["attributes", "status"], value: "{{ page.params.status }}" },
          sort: byTotal,
          limit: "{{ page.params.n }}",
        },
      },
    });
    const scope = pageScope({ params: { status: "open", n: 1 } });
    expect(names(await sources.read("open", scope))).toEqual(["Café Alpha"]);
    const ref = await sources.reference("open", scope, "grid");
    expect([names(ref.rows), ref.total]).toEqual([["Café Alpha"], 2]);
    const [row] = ref.rows as { type: { name: string }; attributes: { sku: string } }[];
    expect([row.type.name, row.attributes.sku]).toEqual(["Order", "A-1"]);
  });

  it("single answers the record or null, beside $query or inside it", async () => {
    const byOwner = (value: string) => ({ operator: "eq", path: ["attributes", "owner"], value });
    const { sources } = await harness(t, {
      beside: { $query: { typeName: "Order", filter: byOwner("{{ page.params.owner }}") }, single: true },
      inside: { $query: { typeName: "Order", filter: byOwner("nobody"), single: true } },
    });
    const scope = pageScope({ params: { owner: "bob" } });
    expect((await sources.read("beside", scope)) as { name: string }).toMatchObject({ name: "Gamma" });
    expect(await sources.read("inside", scope)).toBeNull();
    expect(await sources.reference("inside", scope, "card")).toEqual({ rows: [], total: 0 });
  });

  it("leaves out optional particles (undefined, empty in list, empty string), keeps null, and an unresolved particle matches nothing with a warning", async () => {
    const particle = (path: string, operator: string, value: string, optional = true) => ({ operator, path: ["attributes", path], value, optional });
    const { sources, notifications } = await harness(t, {
      optional: {
        $query: {
          typeName: "Order",
          sort: byTotal,
          filter: {
            operator: "and",
            filters: [
              particle("status", "eq", "{{ page.params.status }}"),
              particle("region", "in", "{{ page.params.regions }}"),
              particle("sku", "eq", "{{ page.params.sku }}"),
            ],
          },
        },
      },
      nullOwner: { $query: { typeName: "Order", filter: particle("owner", "is", "{{ page.params.owner }}") } },
      strict: { $query: { typeName: "Order", filter: particle("status", "eq", "{{ page.params.missing }}", false) } },
    });
    const scope = pageScope({ params: { regions: [], sku: "", owner: null } });
    expect(names(await sources.read("optional", scope))).toEqual(["Café Alpha", "Gamma", "Beta"]);
    expect(names(await sources.read("nullOwner", scope))).toEqual(["Beta"]);
    expect(notifications).toEqual([]);
    expect(await sources.read("strict", scope)).toEqual([]);
    expect(notifications).toEqual([{ id: "unresolved-filter-strict", level: "WARNING", message: expect.stringContaining("strict") }]);
  });

  it("search matches the name or a searchable attribute, case- and accent-insensitive; an empty search is left out", async () => {
    const { sources } = await harness(t, { found: { $query: { typeName: "Order", search: "{{ page.params.q }}", sort: byTotal } } });
    expect(names(await sources.read("found", pageScope({ params: { q: "CAFE" } })))).toEqual(["Café Alpha"]);
    expect(names(await sources.read("found", pageScope({ params: { q: "creme" } })))).toEqual(["Beta"]);
    expect(names(await sources.read("found", pageScope({ params: { q: "" } })))).toEqual(["Café Alpha", "Gamma", "Beta"]);
    expect(await sources.read("found", pageScope({ params: { q: "%" } }))).toEqual([]);
  });

  it("fetches an identical resolved source once, and again after invalidate", async () => {
    const other = await createTenant();
    await createType(other.auth, { name: "Note", schema: { type: "object", properties: { k: { type: "string" } } }, config: { identifier_key: ["k"] } });
    await createEntity(other.auth, "Note", "first", { k: "1" });
    const query = { typeName: "Note", sort: [{ path: ["name"], direction: "asc" }] };
    // Written differently, resolved the same: one fetch for both.
    const { sources } = await harness(other, { a: { $query: query }, b: { $query: { ...query, typeName: "{{ 'No' & 'te' }}" } } });
    const scope = pageScope();
    expect(names(await sources.read("a", scope))).toEqual(["first"]);
    await createEntity(other.auth, "Note", "second", { k: "2" });
    expect(names(await sources.read("a", scope))).toEqual(["first"]);
    expect(names(await sources.read("b", scope))).toEqual(["first"]);
    sources.invalidate();
    expect(names(await sources.read("b", scope))).toEqual(["first", "second"]);
  });

  it("a query the app user may not run fails the read", async () => {
    const { sources } = await harness(t, { orders: { $query: { typeName: "Order" } } }, { permissions: ["schema:read"] });
    const err = await failure(sources.read("orders", pageScope()));
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).status, (err as ApiError).code]).toEqual([403, "FORBIDDEN"]);
    const unknown = await failure((await harness(t, { x: { $query: { typeName: "Nope" } } })).sources.read("x", pageScope()));
    expect((unknown as ApiError).status).toBe(404);
  });
});

describe("$pipe on sources", () => {
  it("steps reshape the rows; leftJoin reads another source of the page", async () => {
    const { sources } = await harness(t, {
      owners: {
        $rows: [
          { id: "ada", label: "Ada Lovelace" },
          { id: "bob", label: "Bob" },
        ],
      },
      orders: {
        $query: { typeName: "Order", sort: byTotal },
        $pipe: [
          { leftJoin: { source: "owners", localKey: "attributes.owner", foreignKey: "id", as: "owner" } },
          { map: "{ 'name': name, 'owner': owner.label, 'total': attributes.total }" },
          { filter: "total >= 20" },
        ],
      },
      counted: { $rows: "{{ page.params.items }}", $pipe: "$count($rows)" },
    });
    const scope = pageScope({ params: { items: [1, 2, 3] } });
    expect(await sources.read("orders", scope)).toEqual([
      { name: "Café Alpha", owner: "Ada Lovelace", total: 30 },
      { name: "Gamma", owner: "Bob", total: 20 },
    ]);
    // The query's total stays the query's.
    expect((await sources.reference("orders", scope, "grid")).total).toBe(3);
    expect(await sources.read("counted", scope)).toBe(3);
    expect(await sources.reference("counted", scope, "w")).toEqual({ rows: [3], total: 1 });
  });

  it("a join that comes back to its own source fails instead of looping", async () => {
    const join = (source: string) => [{ leftJoin: { source, localKey: "id", foreignKey: "id", as: "x" } }];
    const { sources } = await harness(t, { a: { $rows: [{ id: 1 }], $pipe: join("b") }, b: { $rows: [{ id: 1 }], $pipe: join("a") } });
    expect((await failure(sources.read("a", pageScope()))).message).toBe("Data source b joins a, which joins back to it");
  });

  it("every expression draws from the render's budget: once spent, the read fails", async () => {
    const budget = new EvaluationBudget({ maxSteps: 300 });
    const { sources } = await harness(t, { heavy: { $rows: [1, 2, 3, 4, 5], $pipe: [{ map: "$sum([1..40].($ * $$))" }] } }, { budget });
    const err = await failure(sources.read("heavy", pageScope()));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toMatch(/exceeded 300 evaluation steps/);
  });

  it("a source still pending at the deadline fails with DeadlineExceeded", async () => {
    const { sources } = await harness(t, { orders: { $query: { typeName: "Order" } } }, { deadline: Date.now() - 1 });
    expect(await failure(sources.read("orders", pageScope()))).toBeInstanceOf(DeadlineExceeded);
  });

  it("the spec's functions are callable in a source's expressions", async () => {
    const { sources } = await harness(t, { rows: { $rows: [{ n: 2 }], $pipe: [{ map: "$double(n)" }] } }, { functions: { double: "function($x) { $x * 2 }" } });
    expect(await sources.read("rows", pageScope())).toEqual([4]);
  });
});

describe("$typeSchema", () => {
  it("answers { value, label } per enum value in order, from an entity type or a registered schema", async () => {
    const { sources } = await harness(t, {
      statuses: { $typeSchema: { entityType: "Order", attribute: "status" } },
      countries: { $typeSchema: { schema: "customer", path: "address.country" } },
      none: { $typeSchema: { entityType: "Order", attribute: "region" } },
    });
    expect(await sources.read("statuses", pageScope())).toEqual([
      { value: "open", label: "open" },
      { value: "closed", label: "closed" },
      { value: "draft", label: "draft" },
    ]);
    expect(await sources.reference("countries", pageScope(), "select")).toEqual({
      rows: ["DE", "FR", "NL"].map((value) => ({ value, label: value })),
      total: 3,
    });
    const err = await failure(sources.read("none", pageScope()));
    expect([(err as ApiError).status, err.message]).toEqual([422, "Entity type Order has no enum at region"]);
  });

  it("needs the app user's permission to read the type", async () => {
    const { sources } = await harness(t, { statuses: { $typeSchema: { entityType: "Order", attribute: "status" } } }, { permissions: ["entity:read"] });
    expect(((await failure(sources.read("statuses", pageScope()))) as ApiError).status).toBe(403);
  });
});
