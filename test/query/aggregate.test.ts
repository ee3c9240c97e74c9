// POST /entity/query/aggregate through the gateway: every function over the
// catalogue of fixture.ts, grouping (columns, indexed and plain attributes,
// time buckets), keyset paging over groups, exact sums, permission
// narrowing, tenancy, shared rows, and every refused input as a 422 naming
// its place.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, expectError, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";
import { policyOnRoleToken, share, upsertRows } from "../access/fixture";
import { catalogue, type Catalogue } from "./fixture";

type Group = { group: Record<string, unknown> } & Record<string, unknown>;

const aggregate = (auth: string, body: Record<string, unknown>) => call("POST", "/entity/query/aggregate", { auth, body: { type_name: "Item", ...body } });

async function groups(auth: string, body: Record<string, unknown>): Promise<Group[]> {
  const res = await aggregate(auth, body);
  expect(res.status, res.text).toBe(200);
  return res.json.data;
}

/** Rows in a stable order whatever the database's collation. */
const sorted = (rows: Group[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

function refused(res: { status: number; json: any }, line: RegExp) {
  const err = expectError(res, 422, "VALIDATION_FAILED");
  expect(err.details.validation_errors, JSON.stringify(err)).toEqual([expect.stringMatching(line)]);
}

let t: Catalogue;
beforeAll(async () => {
  t = await catalogue();
});

describe("aggregate functions", () => {
  it("without group_by: one row over every matching entity, each function by the typing rules", async () => {
    const data = await groups(t.auth, {
      aggregates: [
        { fn: "count", as: "n" },
        { fn: "count", path: ["attributes", "due"], as: "with_due" },
        { fn: "count_distinct", path: ["attributes", "price"], as: "prices" },
        { fn: "sum", path: ["attributes", "price"], as: "total" },
        { fn: "avg", path: ["attributes", "price"], as: "mean" },
        { fn: "min", path: ["attributes", "price"], as: "cheapest" },
        { fn: "max", path: ["attributes", "price"], as: "dearest" },
        { fn: "min", path: ["attributes", "due"], as: "first_due" },
        { fn: "max", path: ["created_at"], as: "newest" },
        { fn: "count_distinct", path: ["attributes", "color"], as: "colors" },
      ],
    });
    expect(data).toHaveLength(1);
    const { newest, ...rest } = data[0];
    expect(rest).toEqual({
      group: {},
      n: 5,
      with_due: 4,
      prices: 4,
      total: 379.5,
      mean: 75.9,
      cheapest: 9,
      dearest: 250.5,
      first_due: "2025-12-31T23:59:59.5Z",
      colors: 4,
    });
    expect(newest).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  it("a filter narrows the rows (relationship paths included); no row at all still answers one row of counts 0 and nulls", async () => {
    const acme = { operator: "rel_exists", path: ["relationships", "Maker"], value: { operator: "eq", path: ["name"], value: "Acme" } };
    expect(
      await groups(t.auth, {
        filter: acme,
        aggregates: [
          { fn: "count", as: "n" },
          { fn: "sum", path: ["attributes", "price"], as: "total" },
        ],
      }),
    ).toEqual([{ group: {}, n: 2, total: 110 }]);
    const none = { operator: "eq", path: ["name"], value: "nothing" };
    expect(
      await groups(t.auth, {
        filter: none,
        aggregates: [
          { fn: "count", as: "n" },
          { fn: "max", path: ["attributes", "price"], as: "top" },
        ],
      }),
    ).toEqual([{ group: {}, n: 0, top: null }]);
    expect(await groups(t.auth, { filter: none, group_by: [["attributes", "color"]], aggregates: [{ fn: "count", as: "n" }] })).toEqual([]);
  });

  it("unindexed attributes: numbers sum, other values are no number; count with a path counts values, JSON null is none", async () => {
    const data = await groups(t.auth, {
      aggregates: [
        { fn: "sum", path: ["attributes", "qty"], as: "qty" },
        { fn: "count", path: ["attributes", "qty"], as: "with_qty" },
        { fn: "count_distinct", path: ["attributes", "qty"], as: "qtys" },
        { fn: "max", path: ["attributes", "dims", "w"], as: "widest" },
      ],
    });
    // qty: 3, "3", 10, null and missing.
    expect(data).toEqual([{ group: {}, qty: 13, with_qty: 3, qtys: 3, widest: 120 }]);
  });
});

describe("grouping", () => {
  it("by an indexed text attribute, a boolean and a plain attribute; a missing value is the null group", async () => {
    expect(
      sorted(
        await groups(t.auth, {
          group_by: [["attributes", "color"]],
          aggregates: [
            { fn: "count", as: "n" },
            { fn: "sum", path: ["attributes", "price"], as: "total" },
          ],
        }),
      ),
    ).toEqual(
      sorted([
        { group: { "attributes.color": "red" }, n: 2, total: 260.5 },
        { group: { "attributes.color": "blue" }, n: 1, total: 9 },
        { group: { "attributes.color": "green" }, n: 1, total: 100 },
        { group: { "attributes.color": "Rouge" }, n: 1, total: 10 },
      ]),
    );
    expect(
      sorted(
        await groups(t.auth, {
          group_by: [{ path: ["attributes", "active"], as: "on" }],
          aggregates: [{ fn: "sum", path: ["attributes", "price"], as: "total" }],
        }),
      ),
    ).toEqual(
      sorted([
        { group: { on: true }, total: 110 },
        { group: { on: false }, total: 259.5 },
        { group: { on: null }, total: 10 },
      ]),
    );
    expect(sorted(await groups(t.auth, { group_by: [["attributes", "qty"]], aggregates: [{ fn: "count", as: "n" }] }))).toEqual(
      sorted([
        { group: { "attributes.qty": 3 }, n: 1 },
        { group: { "attributes.qty": "3" }, n: 1 },
        { group: { "attributes.qty": 10 }, n: 1 },
        { group: { "attributes.qty": null }, n: 2 },
      ]),
    );
  });

  it("by two paths, type.name and a numeric attribute; sorted by an alias, then the group keys not named", async () => {
    const data = await groups(t.auth, {
      group_by: [
        ["type", "name"],
        ["attributes", "price"],
      ],
      aggregates: [{ fn: "count", as: "n" }],
      sort: [{ key: "n", direction: "desc" }],
    });
    expect(data).toEqual([
      { group: { "type.name": "Item", "attributes.price": 10 }, n: 2 },
      { group: { "type.name": "Item", "attributes.price": 9 }, n: 1 },
      { group: { "type.name": "Item", "attributes.price": 100 }, n: 1 },
      { group: { "type.name": "Item", "attributes.price": 250.5 }, n: 1 },
    ]);
    const byPrice = await groups(t.auth, {
      group_by: [["attributes", "price"]],
      aggregates: [{ fn: "count", as: "n" }],
      sort: [{ key: "attributes.price", direction: "desc" }],
    });
    expect(byPrice.map((g) => g.group["attributes.price"])).toEqual([250.5, 100, 10, 9]);
  });

  it("time buckets in UTC: hour, day, week (from Monday), month and year, on timestamp attributes and created_at", async () => {
    const by = async (bucket: string) =>
      (
        await groups(t.auth, { group_by: [{ path: ["attributes", "due"], bucket, as: "at" }], aggregates: [{ fn: "count", as: "n" }], sort: [{ key: "at" }] })
      ).map((g) => [g.group.at, g.n]);
    expect(await by("month")).toEqual([
      ["2025-12-01T00:00:00Z", 1],
      ["2026-01-01T00:00:00Z", 1],
      ["2026-02-01T00:00:00Z", 1],
      ["2026-03-01T00:00:00Z", 1],
      [null, 1],
    ]);
    expect(await by("year")).toEqual([
      ["2025-01-01T00:00:00Z", 1],
      ["2026-01-01T00:00:00Z", 3],
      [null, 1],
    ]);
    // 2026-01-01 is a Thursday, 2025-12-31 a Wednesday: one week from Monday 2025-12-29.
    expect(await by("week")).toEqual([
      ["2025-12-29T00:00:00Z", 2],
      ["2026-01-26T00:00:00Z", 1],
      ["2026-02-23T00:00:00Z", 1],
      [null, 1],
    ]);
    expect(await by("hour")).toEqual([
      ["2025-12-31T23:00:00Z", 1],
      ["2026-01-01T00:00:00Z", 1],
      ["2026-02-01T00:00:00Z", 1],
      ["2026-03-01T00:00:00Z", 1],
      [null, 1],
    ]);

    const created = await groups(t.auth, { group_by: [{ path: ["created_at"], bucket: "day" }], aggregates: [{ fn: "count", as: "n" }] });
    const one = await call("GET", `/entity/entities/${t.ids.A1}`, { auth: t.auth });
    expect(created).toEqual([{ group: { created_at: `${(one.json.data.created_at as string).slice(0, 10)}T00:00:00Z` }, n: 5 }]);
  });

  it("a path that names no field groups as one null group, with a warning; source_type is null on the caller's own rows", async () => {
    const res = await aggregate(t.auth, { group_by: [["colour"], ["source_type"]], aggregates: [{ fn: "count", as: "n" }] });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual([{ group: { colour: null, source_type: null }, n: 5 }]);
    expect(res.json.warnings).toEqual([expect.stringMatching(/^group_by\[0\]: colour names no field of an entity/)]);
  });
});

describe("keyset paging over groups", () => {
  async function walk(body: Record<string, unknown>, limit: number): Promise<{ pages: Group[][]; cursors: number }> {
    const pages: Group[][] = [];
    let cursor: string | undefined;
    let cursors = 0;
    for (;;) {
      const res = await aggregate(t.auth, { ...body, limit, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      pages.push(res.json.data);
      cursor = res.json.next_cursor;
      if (!cursor) return { pages, cursors };
      cursors++;
      expect(pages.length).toBeLessThan(20);
    }
  }

  it("pages of one group by id: every group once, in order, the last page short or empty", async () => {
    const { pages } = await walk({ group_by: [["id"]], aggregates: [{ fn: "count", as: "n" }], sort: [{ key: "id", direction: "desc" }] }, 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const ids = pages.flat().map((g) => g.group.id);
    expect(ids).toEqual(Object.values(t.ids).sort().reverse());
  });

  it("pages sorted by an aggregate with ties and a null group key: no loss, no repeats, same order as one page", async () => {
    const body = {
      group_by: [
        ["attributes", "active"],
        ["attributes", "color"],
      ],
      aggregates: [
        { fn: "count", as: "n" },
        { fn: "max", path: ["attributes", "due"], as: "due" },
      ],
      sort: [{ key: "due", direction: "desc" }],
    };
    const whole = await groups(t.auth, { ...body, limit: 1000 });
    expect(whole).toHaveLength(5);
    for (const limit of [1, 2, 3]) {
      const { pages } = await walk(body, limit);
      expect(pages.flat()).toEqual(whole);
    }
  });

  it("a cursor continues only the request it came from", async () => {
    const body = { group_by: [["id"]], aggregates: [{ fn: "count", as: "n" }], limit: 1 };
    const first = await aggregate(t.auth, body);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    refused(await aggregate(t.auth, { ...body, aggregates: [{ fn: "count", as: "m" }], cursor: first.json.next_cursor }), /^cursor: /);
    const query = await call("POST", "/entity/query", { auth: t.auth, body: { type_name: "Item", limit: 1 } });
    refused(await aggregate(t.auth, { ...body, cursor: query.json.next_cursor }), /^cursor: /);
  });

  it("a group per entity is bounded by limit: the answer holds limit groups and a cursor", async () => {
    const res = await aggregate(t.auth, { group_by: [["id"]], aggregates: [{ fn: "count", as: "n" }], limit: 3 });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(3);
    expect(res.json.next_cursor).toEqual(expect.any(String));
    expect(await groups(t.auth, { group_by: [["id"]], aggregates: [{ fn: "count", as: "n" }] })).toHaveLength(5);
  });
});

describe("exact numeric sums", () => {
  let ledger: TenantCreds;
  beforeAll(async () => {
    ledger = await createTenant();
    await createType(ledger.auth, {
      name: "Entry",
      schema: { type: "object" },
      config: {
        identifier_key: ["k"],
        indexed_attributes: [
          { path: ["amount"], type: "numeric" },
          { path: ["book"], type: "text" },
        ],
      },
    });
    await upsertRows(ledger.auth, "Entry", [
      { name: "a", attributes: { k: "a", book: "small", amount: 0.1 } },
      { name: "b", attributes: { k: "b", book: "small", amount: 0.2 } },
      { name: "c", attributes: { k: "c", book: "big", amount: 9007199254740992, raw: 1e308 } },
      { name: "d", attributes: { k: "d", book: "big", amount: 1, raw: 1e308 } },
      { name: "e", attributes: { k: "e", book: "third", amount: 1, raw: 1 } },
      { name: "f", attributes: { k: "f", book: "third", amount: 2, raw: 1 } },
    ]);
  });

  it("a sum is a JSON number when it prints back exactly, else its decimal text; averages are numbers", async () => {
    const res = await call("POST", "/entity/query/aggregate", {
      auth: ledger.auth,
      body: {
        type_name: "Entry",
        group_by: [["attributes", "book"]],
        aggregates: [
          { fn: "sum", path: ["attributes", "amount"], as: "total" },
          { fn: "sum", path: ["attributes", "raw"], as: "raw" },
          { fn: "avg", path: ["attributes", "amount"], as: "mean" },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    const byBook = Object.fromEntries((res.json.data as Group[]).map((g) => [g.group["attributes.book"], g]));
    // 0.1 + 0.2 is exactly 0.3 in numeric, and 0.3 prints back as 0.3.
    expect(byBook.small).toMatchObject({ total: 0.3, raw: null });
    // 2^53 + 1 has no double: the text. 2e308 is beyond every double: the text, all 309 digits.
    expect(byBook.big.total).toBe("9007199254740993");
    expect(byBook.big.raw).toBe(`2${"0".repeat(308)}`);
    expect(byBook.big.mean).toBe(4503599627370496.5);
    expect(byBook.third).toMatchObject({ total: 3, raw: 2, mean: 1.5 });
    // The raw JSON text carries the text as a string, not a rounded number.
    expect(res.text).toContain('"total":"9007199254740993"');
  });
});

describe("access", () => {
  it("another tenant's rows are invisible: its own catalogue counts its own", async () => {
    const other = await catalogue();
    await upsertRows(other.auth, "Item", [{ name: "Extra", attributes: { sku: "Z9", color: "red", price: 1 } }]);
    expect(
      await groups(other.auth, {
        aggregates: [
          { fn: "count", as: "n" },
          { fn: "sum", path: ["attributes", "price"], as: "total" },
        ],
      }),
    ).toEqual([{ group: {}, n: 6, total: 380.5 }]);
    expect(
      await groups(t.auth, {
        aggregates: [
          { fn: "count", as: "n" },
          { fn: "sum", path: ["attributes", "price"], as: "total" },
        ],
      }),
    ).toEqual([{ group: {}, n: 5, total: 379.5 }]);
  });

  it("permission narrowing: a type grant reads the type, an entity grant its entity, another type's grant nothing (403)", async () => {
    const count = { aggregates: [{ fn: "count", as: "n" }] };
    const typeGrant = await policyOnRoleToken(t.auth, [{ resource: "entity", actions: ["read"], resource_name: "Item" }]);
    expect(await groups(typeGrant.auth, count)).toEqual([{ group: {}, n: 5 }]);
    const entityGrant = await policyOnRoleToken(t.auth, [{ resource: "entity", actions: ["read"], resource_id: t.ids.A3 }]);
    expect(await groups(entityGrant.auth, { ...count, group_by: [["attributes", "color"]] })).toEqual([{ group: { "attributes.color": "green" }, n: 1 }]);
    const makerGrant = await policyOnRoleToken(t.auth, [{ resource: "entity", actions: ["read"], resource_name: "Maker" }]);
    expect(expectError(await aggregate(makerGrant.auth, count), 403, "FORBIDDEN").message).toMatch(/entity:read .*Item/);
    // A relationship filter reaches only what the caller reads: Makers are out of reach, so nothing is made by Acme.
    const acme = { operator: "rel_exists", path: ["relationships", "Maker"], value: { operator: "eq", path: ["name"], value: "Acme" } };
    const res = await aggregate(typeGrant.auth, { ...count, filter: acme });
    expect(res.json.data).toEqual([{ group: {}, n: 0 }]);
  });

  it("shared rows: the target aggregates the owner's shared type by its name, source_type shared when asked; an entity share counts one", async () => {
    const b = await createTenant();
    const types = await call("GET", "/entity/entity-types", { auth: t.auth });
    const item = (types.json.data as { id: string; name: string }[]).find((x) => x.name === "Item")!;
    const typeShare = await share(t, "entity_type", item.id, b);
    expect(
      await groups(b.auth, {
        group_by: [["source_type"]],
        aggregates: [
          { fn: "count", as: "n" },
          { fn: "sum", path: ["attributes", "price"], as: "total" },
        ],
      }),
    ).toEqual([{ group: { source_type: "shared" }, n: 5, total: 379.5 }]);
    expect(await groups(b.auth, { aggregates: [{ fn: "count", as: "n" }] })).toEqual([{ group: {}, n: 5 }]);
    expect((await call("DELETE", `/access/shares/${typeShare.id}`, { auth: t.auth })).status).toBe(200);
    expectError(await aggregate(b.auth, { aggregates: [{ fn: "count", as: "n" }] }), 404, "NOT_FOUND");
    await share(t, "entity", t.ids.A4, b);
    expect(await groups(b.auth, { group_by: [["name"]], aggregates: [{ fn: "sum", path: ["attributes", "price"], as: "total" }] })).toEqual([
      { group: { name: "Red Sofa" }, total: 250.5 },
    ]);
  });

  it("needs credentials and entity:read", async () => {
    expectError(await call("POST", "/entity/query/aggregate", { body: { type_name: "Item", aggregates: [{ fn: "count", as: "n" }] } }), 401, "UNAUTHORIZED");
    const none = await policyOnRoleToken(t.auth, [{ resource: "entity_type", actions: ["read"] }]);
    expectError(await aggregate(none.auth, { aggregates: [{ fn: "count", as: "n" }] }), 403, "FORBIDDEN");
  });
});

describe("refused inputs: 422 naming the place", () => {
  const count = [{ fn: "count", as: "n" }];
  it("sum, avg, min or max over a text, boolean or id path", async () => {
    refused(
      await aggregate(t.auth, { aggregates: [{ fn: "sum", path: ["attributes", "color"], as: "s" }] }),
      /^aggregates\[0\]\.path: sum applies to numeric values, not attributes\.color \(indexed text\)$/,
    );
    refused(
      await aggregate(t.auth, { aggregates: [...count, { fn: "avg", path: ["name"], as: "s" }] }),
      /^aggregates\[1\]\.path: avg applies to numeric values, not name$/,
    );
    refused(
      await aggregate(t.auth, { aggregates: [{ fn: "max", path: ["attributes", "active"], as: "s" }] }),
      /^aggregates\[0\]\.path: max applies to numeric and timestamp values, not attributes\.active \(indexed boolean\)$/,
    );
    refused(
      await aggregate(t.auth, { aggregates: [{ fn: "min", path: ["id"], as: "s" }] }),
      /^aggregates\[0\]\.path: min applies to numeric and timestamp values, not id$/,
    );
    refused(
      await aggregate(t.auth, { aggregates: [{ fn: "sum", path: ["created_at"], as: "s" }] }),
      /^aggregates\[0\]\.path: sum applies to numeric values, not created_at$/,
    );
  });

  it("a function other than count without a path", async () => {
    refused(await aggregate(t.auth, { aggregates: [{ fn: "count_distinct", as: "s" }] }), /^aggregates\[0\]\.path: is required for count_distinct$/);
    refused(await aggregate(t.auth, { aggregates: [{ fn: "sum", as: "s" }] }), /^aggregates\[0\]\.path: is required for sum$/);
  });

  it("six group paths", async () => {
    const six = ["a", "b", "c", "d", "e", "f"].map((k) => ["attributes", k]);
    refused(await aggregate(t.auth, { group_by: six, aggregates: count }), /^group_by: /);
    expect((await aggregate(t.auth, { group_by: six.slice(0, 5), aggregates: count })).status).toBe(200);
  });

  it("an alias colliding with a group key, another alias or group; two group keys alike", async () => {
    refused(
      await aggregate(t.auth, { group_by: [{ path: ["name"], as: "n" }], aggregates: count }),
      /^aggregates\[0\]\.as: n is also the group key of group_by\[0\]$/,
    );
    refused(
      await aggregate(t.auth, { aggregates: [...count, { fn: "count", path: ["name"], as: "n" }] }),
      /^aggregates\[1\]\.as: n is already aggregates\[0\]'s alias$/,
    );
    refused(await aggregate(t.auth, { aggregates: [{ fn: "count", as: "group" }] }), /^aggregates\[0\]\.as: group is where the group keys are/);
    refused(
      await aggregate(t.auth, { group_by: [["name"], { path: ["attributes", "color"], as: "name" }], aggregates: count }),
      /^group_by\[1\]: group key name is already group_by\[0\]'s/,
    );
    refused(await aggregate(t.auth, { aggregates: [{ fn: "count", as: "two words" }] }), /^aggregates\[0\]\.as: must match the pattern/);
  });

  it("a bucket on a path that holds no timestamp", async () => {
    refused(
      await aggregate(t.auth, { group_by: [{ path: ["attributes", "price"], bucket: "month" }], aggregates: count }),
      /^group_by\[0\]\.bucket: applies to timestamps .*not attributes\.price \(indexed numeric\)$/,
    );
    refused(
      await aggregate(t.auth, { group_by: [{ path: ["name"], bucket: "day" }], aggregates: count }),
      /^group_by\[0\]\.bucket: applies to timestamps .*not name$/,
    );
    refused(await aggregate(t.auth, { group_by: [{ path: ["created_at"], bucket: "quarter" }], aggregates: count }), /^group_by\[0\]/);
  });

  it("relationship paths, unknown sort keys, sorting one row, a bad filter", async () => {
    refused(
      await aggregate(t.auth, { group_by: [["relationships", "Maker"]], aggregates: count }),
      /^group_by\[0\]: cannot group or aggregate by a relationship path/,
    );
    refused(
      await aggregate(t.auth, { group_by: [["name"]], aggregates: count, sort: [{ key: "colour" }] }),
      /^sort\[0\]\.key: colour names no group key or aggregate alias$/,
    );
    refused(await aggregate(t.auth, { aggregates: count, sort: [{ key: "n" }] }), /^sort: applies to groups/);
    refused(
      await aggregate(t.auth, { aggregates: count, filter: { operator: "gt", path: ["attributes", "price"], value: "x" } }),
      /^filter\.value: must be a number/,
    );
    refused(await aggregate(t.auth, { aggregates: [] }), /^aggregates: /);
    refused(await aggregate(t.auth, { aggregates: count, limit: 1001 }), /^limit: /);
  });

  it("an unknown type is 404", async () => {
    expectError(await call("POST", "/entity/query/aggregate", { auth: t.auth, body: { type_name: "Nope", aggregates: count } }), 404, "NOT_FOUND");
  });
});
