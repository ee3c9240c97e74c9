// App tokens of an integration, through the gateway: minted once, stored as
// a hash, 409 while one is live unless rotating, rotation revoking the old
// token at once.
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { roleToken } from "../access/fixture";
import { dashboards, insertSpec, putConfig, registerCompany } from "./fixture";

const providers = {
  host: {
    auth: { type: "bearer" },
    identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
  },
};
const TOKEN = /^svc_at_[0-9a-f]{64}$/;

async function integration(t: TenantCreds) {
  const spec = await insertSpec(t, [{ dashboards, providers }]);
  expect((await putConfig(t, spec.id, {})).status).toBe(200);
  const company = await registerCompany(t, "host");
  const res = await call("POST", `/apps/${spec.id}/integrations`, { auth: t.auth, body: { external_company_id: company.id } });
  expect(res.status, res.text).toBe(201);
  return { specId: spec.id, integrationId: res.json.data.id as string };
}

const mint = (t: { auth: string }, specId: string, integrationId: string, query?: Record<string, string>) =>
  call("PUT", `/apps/${specId}/integrations/${integrationId}/token${query ? `?${new URLSearchParams(query)}` : ""}`, { auth: t.auth });

const tokenRows = (integrationId: string) =>
  systemQuery(
    `SELECT id, encode(token_hash, 'hex') AS hash, revoked_at IS NOT NULL AS revoked FROM app_tokens WHERE integration_id = $1 ORDER BY created_at, id`,
    [integrationId],
  );

describe("PUT /apps/{specId}/integrations/{integrationId}/token", () => {
  it("mints a token shown once and keeps only its SHA-256", async () => {
    const t = await createTenant();
    const { specId, integrationId } = await integration(t);
    const res = await mint(t, specId, integrationId);
    expect(res.status, res.text).toBe(201);
    expect(res.json.raw_token).toMatch(TOKEN);
    expect(Object.keys(res.json.data).sort()).toEqual(["created_at", "id", "integration_id"]);
    expect(res.json.data.integration_id).toBe(integrationId);
    const rows = await tokenRows(integrationId);
    expect(rows).toEqual([{ id: res.json.data.id, hash: await sha256Hex(res.json.raw_token), revoked: false }]);
  });

  it("answers 409 while a token is live, changing nothing; rotate=true replaces it and revokes the old one at once", async () => {
    const t = await createTenant();
    const { specId, integrationId } = await integration(t);
    const first = await mint(t, specId, integrationId);
    const again = expectError(await mint(t, specId, integrationId), 409, "CONFLICT");
    expect(again.details.integration_id).toBe(integrationId);
    expect(await tokenRows(integrationId)).toHaveLength(1);

    const rotated = await mint(t, specId, integrationId, { rotate: "true" });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.raw_token).toMatch(TOKEN);
    expect(rotated.json.raw_token).not.toBe(first.json.raw_token);
    expect(await tokenRows(integrationId)).toEqual([
      { id: first.json.data.id, hash: await sha256Hex(first.json.raw_token), revoked: true },
      { id: rotated.json.data.id, hash: await sha256Hex(rotated.json.raw_token), revoked: false },
    ]);
  });

  it("gives two mints at once one token: one 201, the other 409", async () => {
    const t = await createTenant();
    const { specId, integrationId } = await integration(t);
    const statuses = (await Promise.all([mint(t, specId, integrationId), mint(t, specId, integrationId)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect((await tokenRows(integrationId)).filter((r) => !r.revoked)).toHaveLength(1);
  });

  it("refuses unknown and other tenants' integrations, bad ids and parameters, and callers without app:update", async () => {
    const t = await createTenant();
    const { specId, integrationId } = await integration(t);
    expectError(await mint(t, specId, crypto.randomUUID()), 404, "NOT_FOUND");
    expectError(await mint(t, crypto.randomUUID(), integrationId), 404, "NOT_FOUND");
    expectError(await mint(t, specId, "not-a-uuid"), 422, "VALIDATION_FAILED");
    expectError(await mint(t, specId, integrationId, { rotate: "yes" }), 422, "VALIDATION_FAILED");
    expectError(await mint(t, specId, integrationId, { other: "1" }), 422, "VALIDATION_FAILED");
    const reader = await roleToken(t.auth, ["app:read"]);
    expectError(await mint(reader, specId, integrationId), 403, "FORBIDDEN");
    expectError(await call("PUT", `/apps/${specId}/integrations/${integrationId}/token`, { auth: "Basic bm90OmF0b2tlbg==" }), 401, "UNAUTHORIZED");
    const stranger = await createTenant();
    expectError(await mint(stranger, specId, integrationId), 404, "NOT_FOUND");
    expect(await tokenRows(integrationId)).toEqual([]);
  });
});
