// Fixtures of the access-enforcement tests: restricted principals of every
// permission shape, built through /access/*, and a small world of Items,
// Makers and Vaults linked to each other, built through /entity/*.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createType } from "../support/entities";

export interface Grant {
  resource: string;
  actions: string[];
  resource_name?: string;
  resource_id?: string;
}

const suffix = () => crypto.randomUUID().slice(0, 8);

export async function createRole(admin: string, permissions: string[], name = `role-${suffix()}`) {
  const res = await call("POST", "/access/roles", { auth: admin, body: { name, permissions } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; name: string };
}

/** A PAT bound to these roles only. */
export async function tokenForRoles(admin: string, roleNames: string[]) {
  const res = await call("POST", "/access/api-tokens", { auth: admin, body: { name: `tok-${suffix()}`, role_names: roleNames } });
  expect(res.status, res.text).toBe(201);
  return { tokenId: res.json.data.id as string, auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}

/** A PAT whose only role holds `permissions`. */
export async function roleToken(admin: string, permissions: string[]) {
  const role = await createRole(admin, permissions);
  return { role, ...(await tokenForRoles(admin, [role.name])) };
}

export async function createUser(admin: string, roleNames?: string[]) {
  const res = await call("POST", "/access/users", { auth: admin, body: { email: `u-${suffix()}@example.test`, ...(roleNames && { role_names: roleNames }) } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; email: string };
}

/** A PAT of another user, acting with that user's role bindings and policies as they are at each request. */
export async function tokenForUser(admin: string, userId: string) {
  const res = await call("POST", "/access/api-tokens", { auth: admin, body: { name: `tok-${suffix()}`, user_id: userId } });
  expect(res.status, res.text).toBe(201);
  return { tokenId: res.json.data.id as string, auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}

export async function createPolicy(admin: string, grants: Grant[]) {
  const res = await call("POST", "/access/policies", { auth: admin, body: { name: `pol-${suffix()}`, grants } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; grants: (Grant & { id: string })[] };
}

export async function assign(admin: string, policyId: string, to: { role_name: string } | { user_id: string }) {
  const res = await call("POST", `/access/policies/${policyId}/assignments`, { auth: admin, body: to });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** A token of a role with no permissions of its own and a policy of `grants` assigned to that role. */
export async function policyOnRoleToken(admin: string, grants: Grant[]) {
  const role = await createRole(admin, []);
  const policy = await createPolicy(admin, grants);
  await assign(admin, policy.id, { role_name: role.name });
  return { role, policy, ...(await tokenForRoles(admin, [role.name])) };
}

/** A token of a new user with no roles and a policy of `grants` assigned to the user. */
export async function policyOnUserToken(admin: string, grants: Grant[]) {
  const user = await createUser(admin);
  const policy = await createPolicy(admin, grants);
  await assign(admin, policy.id, { user_id: user.id });
  return { user, policy, ...(await tokenForUser(admin, user.id)) };
}

export async function permissionsOf(auth: string): Promise<string[]> {
  const res = await call("GET", "/access/me/permissions", { auth });
  expect(res.status, res.text).toBe(200);
  return res.json.data.permissions;
}

export async function share(owner: TenantCreds, resourceType: "entity_type" | "entity", resourceId: string, target: TenantCreds) {
  const res = await call("POST", "/access/shares", {
    auth: owner.auth,
    body: { resource_type: resourceType, resource_id: resourceId, target_tenant_id: target.tenantId },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string };
}

export async function createRule(admin: string, name: string, from: string, to: string) {
  const res = await call("POST", "/entity/relationship-rules", { auth: admin, body: { name, from_entity_type_name: from, to_entity_type_name: to } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; name: string };
}

export async function link(admin: string, ruleName: string, from: string, to: string) {
  const res = await call("POST", "/entity/relationships", { auth: admin, body: { rule_name: ruleName, from_entity_id: from, to_entity_id: to } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string };
}

/** Entities of one type, created in one upsert; ids in input order. */
export async function upsertRows(admin: string, typeName: string, rows: { name: string; attributes: Record<string, unknown> }[]): Promise<string[]> {
  const res = await call("POST", "/entity/entities/upsert", { auth: admin, body: { type_name: typeName, data: rows } });
  expect(res.status, res.text).toBe(200);
  return res.json.data.ids;
}

/** A tenant's live entities, live link count and artifact versions, in one round trip, for "nothing changed" checks. */
export async function snapshot(tenantId: string) {
  const [row] = await systemQuery(
    `SELECT (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'attributes', attributes, 'updated_at', updated_at::text) ORDER BY id), '[]')
               FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL) AS rows,
            (SELECT count(*)::int FROM relationships WHERE tenant_id = $1 AND deleted_at IS NULL) AS links,
            (SELECT count(*)::int FROM artifact_versions WHERE tenant_id = $1) AS artifacts`,
    [tenantId],
  );
  return row as { rows: { id: string; name: string; attributes: Record<string, unknown>; updated_at: string }[]; links: number; artifacts: number };
}

export const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

export function expectForbidden(res: { status: number; json: any }) {
  return expectError(res, 403, "FORBIDDEN");
}

export function expectNotFound(res: { status: number; json: any }) {
  return expectError(res, 404, "NOT_FOUND");
}

const itemSchema = { type: "object", required: ["sku"], properties: { sku: { type: "string" }, color: { type: "string" }, price: { type: "number" } } };
const makerSchema = { type: "object", required: ["code"], properties: { code: { type: "string" }, country: { type: "string" } } };
const vaultSchema = { type: "object", required: ["code"], properties: { code: { type: "string" }, level: { type: "number" } } };

/**
 * Items (readable in the narrowed shapes), Makers (read only in some) and
 * Vaults (never readable in the narrowed shapes), linked:
 * red kept_in v1, blue kept_in v2, red made_by acme, green made_by bolt, red pairs_with blue.
 */
export interface World extends TenantCreds {
  item: { red: string; blue: string; green: string };
  maker: { acme: string; bolt: string };
  vault: { v1: string; v2: string };
  links: { redV1: string; blueV2: string; redAcme: string; greenBolt: string; redBlue: string };
}

export async function world(): Promise<World> {
  const t = await createTenant();
  await createType(t.auth, {
    name: "Item",
    schema: itemSchema,
    config: {
      identifier_key: ["sku"],
      indexed_attributes: [
        { path: ["color"], type: "text" },
        { path: ["price"], type: "numeric", sortable: true },
      ],
    },
  });
  await createType(t.auth, {
    name: "Maker",
    schema: makerSchema,
    config: { identifier_key: ["code"], indexed_attributes: [{ path: ["country"], type: "text" }] },
  });
  await createType(t.auth, {
    name: "Vault",
    schema: vaultSchema,
    config: { identifier_key: ["code"], indexed_attributes: [{ path: ["level"], type: "numeric" }] },
  });
  await createRule(t.auth, "kept_in", "Item", "Vault");
  await createRule(t.auth, "made_by", "Item", "Maker");
  await createRule(t.auth, "pairs_with", "Item", "Item");
  const [red, blue, green] = await upsertRows(t.auth, "Item", [
    { name: "Red Chair", attributes: { sku: "A1", color: "red", price: 10 } },
    { name: "Blue Table", attributes: { sku: "A2", color: "blue", price: 20 } },
    { name: "Green Lamp", attributes: { sku: "A3", color: "green", price: 30 } },
  ]);
  const [acme, bolt] = await upsertRows(t.auth, "Maker", [
    { name: "Acme", attributes: { code: "acme", country: "FR" } },
    { name: "Bolt", attributes: { code: "bolt", country: "DE" } },
  ]);
  const [v1, v2] = await upsertRows(t.auth, "Vault", [
    { name: "Vault One", attributes: { code: "v1", level: 5 } },
    { name: "Vault Two", attributes: { code: "v2", level: 9 } },
  ]);
  const redV1 = (await link(t.auth, "kept_in", red, v1)).id;
  const blueV2 = (await link(t.auth, "kept_in", blue, v2)).id;
  const redAcme = (await link(t.auth, "made_by", red, acme)).id;
  const greenBolt = (await link(t.auth, "made_by", green, bolt)).id;
  const redBlue = (await link(t.auth, "pairs_with", red, blue)).id;
  return { ...t, item: { red, blue, green }, maker: { acme, bolt }, vault: { v1, v2 }, links: { redV1, blueV2, redAcme, greenBolt, redBlue } };
}

/** An artifact with one confirmed version on an entity, made by the admin. */
export async function attachArtifact(admin: string, entityId: string) {
  const res = await call("POST", `/entity/entities/${entityId}/artifacts/upload-url`, {
    auth: admin,
    body: { artifact_type: "doc", filename: "a.txt", content_type: "text/plain" },
  });
  expect(res.status, res.text).toBe(201);
  const uploaded = await SELF.fetch(res.json.data.upload_url, { method: "PUT", body: "hello" });
  expect(uploaded.status, await uploaded.text()).toBe(200);
  const confirmed = await call("POST", `/entity/entities/${entityId}/artifacts/${res.json.data.artifact.id}/confirm`, { auth: admin });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.json.data as { id: string };
}

export async function importCsv(auth: string, typeName: string, csv: string) {
  const config = encodeURIComponent(JSON.stringify({ entity_type_name: typeName }));
  return call("POST", "/entity/entities/import", { auth, rawBody: csv, headers: { "Content-Type": "text/csv", "X-Import-Config": config } });
}

/** The ids in the first column of a CSV export (after its header). */
export function csvIds(text: string): string[] {
  return text
    .split("\r\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(",")[0])
    .sort();
}
