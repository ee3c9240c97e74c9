// Helpers for entity-store tests; they go through the HTTP API like everything else.
import { expect } from "vitest";
import { call } from "./api";

export const productSchema = {
  type: "object",
  required: ["sku", "title"],
  properties: {
    sku: { type: "string" },
    title: { type: "string" },
    price: { type: "number" },
    region: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
  },
};

export async function createType(auth: string, body: Record<string, unknown>) {
  const res = await call("POST", "/entity/entity-types", { auth, body: { status: "active", ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; name: string; config: any; status: string };
}

export async function createProductType(auth: string, name = "Product", config: Record<string, unknown> = {}) {
  return createType(auth, { name, schema: productSchema, config: { identifier_key: ["sku"], ...config } });
}

export async function createEntity(auth: string, typeName: string, name: string, attributes: Record<string, unknown>) {
  const res = await call("POST", "/entity/entities", { auth, body: { type_name: typeName, name, attributes } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; name: string; attributes: any; identifier_key: string; updated_at: string; created_at: string };
}

export async function eventsOf(auth: string, entityId: string) {
  const res = await call("GET", `/event/events?entity_id=${entityId}`, { auth });
  expect(res.status).toBe(200);
  return res.json.data as { action: string; suppressed: boolean; payload: any }[];
}
