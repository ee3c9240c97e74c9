// A small catalogue for query tests: Items (every indexed type, some
// attributes left unindexed) made by Makers, created through the API.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";

export const itemSchema = { type: "object", required: ["sku"], properties: { sku: { type: "string" } } };

export const itemConfig = {
  identifier_key: ["sku"],
  name_search: true,
  indexed_attributes: [
    { path: ["color"], type: "text", searchable: true },
    { path: ["price"], type: "numeric", sortable: true },
    { path: ["due"], type: "timestamptz", sortable: true },
    { path: ["active"], type: "boolean" },
    { path: ["tags"], type: "text_array" },
    { path: ["code"], type: "text", searchable: true },
  ],
};

export interface Item {
  name: string;
  attributes: Record<string, unknown>;
}

export const items: Item[] = [
  {
    name: "Red Chair",
    attributes: {
      sku: "A1",
      color: "red",
      price: 10,
      due: "2026-01-01T00:00:00Z",
      active: true,
      tags: ["home", "wood"],
      code: "|x|y|",
      qty: 3,
      note: "Café crème",
      dims: { w: 40 },
    },
  },
  {
    name: "Blue Table",
    attributes: {
      sku: "A2",
      color: "blue",
      price: 9,
      due: "2026-02-01T00:00:00Z",
      active: false,
      tags: ["home"],
      code: "|y|z|",
      qty: "3",
      note: "plain",
      dims: { w: 120 },
    },
  },
  {
    name: "Green Lamp",
    attributes: {
      sku: "A3",
      color: "green",
      price: 100,
      due: "2026-03-01T00:00:00Z",
      active: true,
      tags: ["light", "home"],
      code: "|z|",
      qty: 10,
      dims: { w: 20 },
    },
  },
  { name: "Red Sofa", attributes: { sku: "A4", color: "red", price: 250.5, active: false, tags: [], code: "|x|", qty: null } },
  { name: "Crème Shelf", attributes: { sku: "A5", color: "Rouge", price: 10, due: "2025-12-31T23:59:59.5Z", tags: ["wood"], note: "CAFE" } },
];

export interface Catalogue extends TenantCreds {
  ids: Record<string, string>;
  makerIds: Record<string, string>;
}

/** Items A1..A5; Makers Acme (DE) and Bolt (FR); A1 and A3 made by Acme, A2 by Bolt. */
export async function catalogue(): Promise<Catalogue> {
  const t = await createTenant();
  await createType(t.auth, { name: "Item", schema: itemSchema, config: itemConfig });
  await createType(t.auth, { name: "Maker", schema: { type: "object" }, config: { identifier_key: ["code"] } });
  const rule = await call("POST", "/entity/relationship-rules", {
    auth: t.auth,
    body: { name: "made_by", from_entity_type_name: "Item", to_entity_type_name: "Maker" },
  });
  expect(rule.status).toBe(201);
  const makers = await call("POST", "/entity/entities/upsert", {
    auth: t.auth,
    body: {
      type_name: "Maker",
      data: [
        { name: "Acme", attributes: { code: "acme", country: "DE", size: 5 } },
        { name: "Bolt", attributes: { code: "bolt", country: "FR", size: 50 } },
      ],
    },
  });
  expect(makers.status).toBe(200);
  const madeBy = (code: string) => [{ rule_name: "made_by", target_identifier: { code }, target_type_name: "Maker" }];
  const data = items.map((it) => ({
    ...it,
    relationships: ["A1", "A3"].includes(it.attributes.sku as string) ? madeBy("acme") : it.attributes.sku === "A2" ? madeBy("bolt") : undefined,
  }));
  const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: "Item", data } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const ids = Object.fromEntries(items.map((it, i) => [it.attributes.sku as string, res.json.data.ids[i] as string]));
  return { ...t, ids, makerIds: { acme: makers.json.data.ids[0], bolt: makers.json.data.ids[1] } };
}

/** The skus a query answers, sorted unless `ordered`. */
export async function skus(auth: string, body: Record<string, unknown>, ordered = false): Promise<string[]> {
  const res = await call("POST", "/entity/query", { auth, body: { type_name: "Item", ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const out = (res.json.data as { attributes: { sku: string } }[]).map((e) => e.attributes.sku);
  return ordered ? out : out.sort();
}
