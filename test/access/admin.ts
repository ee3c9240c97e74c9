// Shared steps of the /access administration tests.
import { expect } from "vitest";
import { basic, call, type TenantCreds } from "../support/api";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const NOT_TEXT = "must not contain NUL characters or unpaired surrogates";

export async function createRole(t: { auth: string }, name: string, permissions: string[]) {
  const res = await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions } });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** A PAT bound to exactly these roles. */
export async function mintWithRoles(t: TenantCreds, roleNames: string[]) {
  const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: `tok-${crypto.randomUUID().slice(0, 6)}`, role_names: roleNames } });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.data.id as string, auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}
