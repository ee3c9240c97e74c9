// `queryEntity` with `aggregates` through real runs: the config is the body of
// POST /entity/query/aggregate in camelCase (groupBy), the result that
// route's answer for the same body, cursor included; a config without
// aggregates stays a plain query; bad aggregates fail the action with the
// route's 422.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/api";
import { createType } from "../support/entities";
import { upsertRows } from "../access/fixture";
import { policyGranting } from "./actions-support";
import { dispatched, manualWorkflow, runRecord } from "./orchestrator-support";

async function runQuery(t: { auth: string; tenantId: string } & Parameters<typeof policyGranting>[0], config: unknown) {
  const policy_id = await policyGranting(t, ["entity:read"]);
  const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "s", name: "queryEntity", config }] }], {}, { policy_id });
  const run = await runRecord(t, await dispatched(t, id));
  return { status: run.status as string, result: run.outputs?.a?.s, error: run.job_runs[0].action_runs[0].error };
}

async function orders() {
  const t = await createTenant();
  await createType(t.auth, {
    name: "Order",
    schema: { type: "object" },
    config: {
      identifier_key: ["no"],
      indexed_attributes: [
        { path: ["status"], type: "text" },
        { path: ["total"], type: "numeric" },
        { path: ["placed"], type: "timestamptz" },
      ],
    },
  });
  await upsertRows(t.auth, "Order", [
    { name: "o1", attributes: { no: "1", status: "open", total: 10.5, placed: "2026-01-03T10:00:00Z" } },
    { name: "o2", attributes: { no: "2", status: "open", total: 4.25, placed: "2026-01-20T10:00:00Z" } },
    { name: "o3", attributes: { no: "3", status: "paid", total: 100, placed: "2026-02-01T00:00:00Z" } },
    { name: "o4", attributes: { no: "4", status: "void", placed: "2026-02-11T00:00:00Z" } },
  ]);
  return t;
}

describe("queryEntity with aggregates", () => {
  it("answers what POST /entity/query/aggregate answers for the same body, groupBy in camelCase, and pages by its cursor", async () => {
    const t = await orders();
    const config = {
      typeName: "Order",
      groupBy: [["attributes", "status"]],
      aggregates: [
        { fn: "count", as: "orders" },
        { fn: "sum", path: ["attributes", "total"], as: "revenue" },
      ],
      sort: [{ key: "orders", direction: "desc" }],
      limit: 2,
    };
    const first = await runQuery(t, config);
    expect([first.status, first.error], JSON.stringify(first)).toEqual(["success", null]);
    const rest = await call("POST", "/entity/query/aggregate", {
      auth: t.auth,
      body: { type_name: "Order", group_by: config.groupBy, aggregates: config.aggregates, sort: config.sort, limit: 2 },
    });
    expect(first.result).toEqual(rest.json);
    expect(first.result.data).toEqual([
      { group: { "attributes.status": "open" }, orders: 2, revenue: 14.75 },
      { group: { "attributes.status": "paid" }, orders: 1, revenue: 100 },
    ]);
    const second = await runQuery(t, { ...config, cursor: first.result.next_cursor });
    expect(second.result).toEqual({ data: [{ group: { "attributes.status": "void" }, orders: 1, revenue: null }] });
  });

  it("groups by a month bucket with a filter; a config without aggregates is still a plain query", async () => {
    const t = await orders();
    const monthly = await runQuery(t, {
      typeName: "Order",
      filter: { operator: "neq", path: ["attributes", "status"], value: "void" },
      groupBy: [{ path: ["attributes", "placed"], bucket: "month", as: "month" }],
      aggregates: [{ fn: "sum", path: ["attributes", "total"], as: "revenue" }],
    });
    expect(monthly.result).toEqual({
      data: [
        { group: { month: "2026-01-01T00:00:00Z" }, revenue: 14.75 },
        { group: { month: "2026-02-01T00:00:00Z" }, revenue: 100 },
      ],
    });
    const plain = await runQuery(t, { typeName: "Order", filter: { operator: "eq", path: ["attributes", "status"], value: "paid" } });
    expect(plain.result.data.map((e: { name: string }) => e.name)).toEqual(["o3"]);
  });

  it("fails with the route's 422 for a bad aggregate, and with the config's for fields only a query takes", async () => {
    const t = await orders();
    const sumText = await runQuery(t, { typeName: "Order", aggregates: [{ fn: "sum", path: ["attributes", "status"], as: "s" }] });
    expect(sumText.status).toBe("error");
    expect(sumText.error).toMatchObject({
      status: 422,
      details: { validation_errors: ["aggregates[0].path: sum applies to numeric values, not attributes.status (indexed text)"] },
    });
    // Wrapped in $literal, so the save leaves it to the run: a literal config the schema refuses is refused at save.
    const mixed = await runQuery(t, { $literal: { typeName: "Order", aggregates: [{ fn: "count", as: "n" }], includeCount: true } });
    expect(mixed.status).toBe("error");
    expect(JSON.stringify(mixed.error)).toContain("config.includeCount");
  });
});
