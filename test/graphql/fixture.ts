// A small catalogue for the GraphQL tests, created through the API: Items
// (scalar, list and object attributes, two names GraphQL cannot use as is)
// made by Makers, an Item-to-Item rule, and a draft type with a rule to it.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";

export const itemSchema = {
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string" },
    color: { type: "string" },
    price: { type: "number" },
    qty: { type: "integer", minimum: 0, maximum: 100_000 },
    serial: { type: "integer" },
    active: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    dims: { type: "object" },
    "weird-name": { type: "string", description: "A name with a dash" },
    id: { type: "string" },
  },
};

const items = [
  {
    name: "Red Chair",
    attributes: {
      sku: "A1",
      color: "red",
      price: 10,
      qty: 3,
      serial: 5_000_000_000,
      active: true,
      tags: ["home", "wood"],
      dims: { w: 40 },
      "weird-name": "w1",
      id: "legacy-1",
    },
  },
  { name: "Blue Table", attributes: { sku: "A2", color: "blue", price: 9, qty: 5, active: false, tags: ["home"] } },
  { name: "Green Lamp", attributes: { sku: "A3", color: "green", price: 100, qty: 10, active: true, tags: ["light", "home"] } },
  { name: "Red Sofa", attributes: { sku: "A4", color: "red", price: 250.5, qty: 1, active: false, tags: [] } },
  { name: "Crème Shelf", attributes: { sku: "A5", color: "Rouge", price: 10, tags: ["wood"] } },
  { name: "Red Stool", attributes: { sku: "A6", color: "red", price: 12, qty: 7, active: true } },
  { name: "Black Desk", attributes: { sku: "A7", color: "black", price: 300 } },
];

const makerOf: Record<string, string> = { A1: "acme", A3: "acme", A6: "acme", A2: "bolt", A5: "bolt" };

export interface Catalogue extends TenantCreds {
  /** Item ids by sku, and sku by id. */
  ids: Record<string, string>;
  skuOf: Record<string, string>;
  makerIds: Record<string, string>;
}

export async function catalogue(): Promise<Catalogue> {
  const t = await createTenant();
  await createType(t.auth, {
    name: "Item",
    schema: itemSchema,
    config: {
      identifier_key: ["sku"],
      indexed_attributes: [
        { path: ["color"], type: "text", searchable: true },
        { path: ["price"], type: "numeric", sortable: true },
      ],
    },
  });
  await createType(t.auth, {
    name: "Maker",
    schema: { type: "object", properties: { code: { type: "string" }, country: { type: "string" } } },
    config: { identifier_key: ["code"] },
  });
  await createType(t.auth, {
    name: "Sketch",
    status: "draft",
    schema: { type: "object", properties: { title: { type: "string" } } },
    config: { identifier_key: ["title"] },
  });
  for (const [name, from, to] of [
    ["made_by", "Item", "Maker"],
    ["similar_to", "Item", "Item"],
    ["sketched_as", "Item", "Sketch"],
  ]) {
    const rule = await call("POST", "/entity/relationship-rules", { auth: t.auth, body: { name, from_entity_type_name: from, to_entity_type_name: to } });
    expect(rule.status, rule.text).toBe(201);
  }
  const makers = await call("POST", "/entity/entities/upsert", {
    auth: t.auth,
    body: {
      type_name: "Maker",
      data: [
        { name: "Acme", attributes: { code: "acme", country: "DE" } },
        { name: "Bolt", attributes: { code: "bolt", country: "FR" } },
      ],
    },
  });
  expect(makers.status, makers.text).toBe(200);
  const data = items.map((it) => {
    const maker = makerOf[it.attributes.sku];
    return maker ? { ...it, relationships: [{ rule_name: "made_by", target_identifier: { code: maker }, target_type_name: "Maker" }] } : it;
  });
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Item", data } });
  expect(res.status, res.text).toBe(200);
  const ids: Record<string, string> = Object.fromEntries(items.map((it, i) => [it.attributes.sku, res.json.data.ids[i]]));
  // A1 is similar to A6: one link of a rule from Item to Item.
  const link = await call("POST", "/entity/relationships", { auth: t.auth, body: { rule_name: "similar_to", from_entity_id: ids.A1, to_entity_id: ids.A6 } });
  expect(link.status, link.text).toBe(201);
  return {
    ...t,
    ids,
    skuOf: Object.fromEntries(Object.entries(ids).map(([sku, id]) => [id, sku])),
    makerIds: { acme: makers.json.data.ids[0], bolt: makers.json.data.ids[1] },
  };
}

/** POST /entity/graphql; asserts HTTP 200 and returns the GraphQL response. */
export async function gql(auth: string, query: string, variables?: Record<string, unknown>) {
  const res = await call("POST", "/entity/graphql", { auth, body: variables ? { query, variables } : { query } });
  expect(res.status, res.text).toBe(200);
  return res.json as {
    data?: any;
    errors?: { message: string; path?: (string | number)[]; locations?: unknown[]; extensions: { code: string; status?: number; details?: any } }[];
  };
}

/** POST /entity/query on Item; asserts HTTP 200 and returns the answer. */
export async function rest(auth: string, body: Record<string, unknown>) {
  const res = await call("POST", "/entity/query", { auth, body: { type_name: "Item", ...body } });
  expect(res.status, res.text).toBe(200);
  return res.json as { data: { id: string; relationships?: { entity: { id: string } }[] }[]; next_cursor?: string; count?: number };
}
