// Shared steps of the /access administration tests.
import { expect } from "vitest";
import { basic, call, expectError, type TenantCreds } from "../support/api";

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

/**
 * Sends a request that must fail with `status` and `code` and checks, through
 * `footprint` (the rows the routes under test can write), that nothing changed.
 */
export function unchangedBy(footprint: (tenantId: string) => Promise<unknown>) {
  return async (t: TenantCreds, send: () => Promise<{ status: number; json: any }>, status: number, code: string) => {
    const before = await footprint(t.tenantId);
    const err = expectError(await send(), status, code);
    expect(await footprint(t.tenantId)).toEqual(before);
    return err;
  };
}
