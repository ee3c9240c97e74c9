// A small org chart for query-graph tests, made through the API: Companies
// employ (and are founded by) People, People own Cars. Dee works for both
// companies and Fiat has two owners, so both are reachable twice.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";

export interface OrgChart extends TenantCreds {
  /** Entity ids by name. */
  ids: Record<string, string>;
  /** Rule ids by name. */
  rules: Record<string, string>;
}

const loose = { type: "object" };

const entities = {
  Company: [
    { name: "Acme", attributes: { code: "acme", size: 100 } },
    { name: "Bolt", attributes: { code: "bolt", size: 10 } },
  ],
  Person: [
    { name: "Ann", attributes: { pid: "ann", age: 30 } },
    { name: "Bob", attributes: { pid: "bob", age: 40 } },
    { name: "Cid", attributes: { pid: "cid", age: 25 } },
    { name: "Dee", attributes: { pid: "dee", age: 50 } },
  ],
  Car: [
    { name: "Audi", attributes: { vin: "audi", year: 2020 } },
    { name: "BMW", attributes: { vin: "bmw", year: 2018 } },
    { name: "Fiat", attributes: { vin: "fiat", year: 2015 } },
    { name: "Golf", attributes: { vin: "golf", year: 2022 } },
  ],
};

/** [rule, from, to], created in this order (the default order of related entities under one parent). */
export const links: [string, string, string][] = [
  ["employs", "Acme", "Ann"],
  ["employs", "Acme", "Bob"],
  ["employs", "Acme", "Dee"],
  ["employs", "Bolt", "Cid"],
  ["employs", "Bolt", "Dee"],
  ["founded_by", "Bolt", "Ann"],
  ["owns", "Ann", "Audi"],
  ["owns", "Bob", "BMW"],
  ["owns", "Cid", "Fiat"],
  ["owns", "Dee", "Fiat"],
  ["owns", "Dee", "Golf"],
];

export async function orgChart(): Promise<OrgChart> {
  const t = await createTenant();
  await createType(t.auth, { name: "Company", schema: loose, config: { identifier_key: ["code"] } });
  await createType(t.auth, {
    name: "Person",
    schema: loose,
    config: { identifier_key: ["pid"], indexed_attributes: [{ path: ["age"], type: "numeric", sortable: true }] },
  });
  await createType(t.auth, { name: "Car", schema: loose, config: { identifier_key: ["vin"] } });

  const rules: Record<string, string> = {};
  for (const [name, from, to] of [
    ["employs", "Company", "Person"],
    ["founded_by", "Company", "Person"],
    ["owns", "Person", "Car"],
  ]) {
    const res = await call("POST", "/entity/relationship-rules", { auth: t.auth, body: { name, from_entity_type_name: from, to_entity_type_name: to } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    rules[name] = res.json.data.id;
  }

  const ids: Record<string, string> = {};
  for (const [type, data] of Object.entries(entities)) {
    const res = await call("POST", "/entity/entities/upsert", { auth: t.auth, body: { type_name: type, data } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    data.forEach((e, i) => (ids[e.name] = res.json.data.ids[i]));
  }
  for (const [rule, from, to] of links) {
    const res = await call("POST", "/entity/relationships", { auth: t.auth, body: { rule_name: rule, from_entity_id: ids[from], to_entity_id: ids[to] } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
  return { ...t, ids, rules };
}
