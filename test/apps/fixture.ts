// Fixtures of the /apps tests. Specs are written straight into the tables
// (the spec API is built elsewhere): each accepted document is a version,
// the last one the spec's current document.
import { expect } from "vitest";
import { call, systemQuery, type TenantCreds } from "../support/api";

export interface SpecFixture {
  id: string;
  name: string;
}

/** A spec owned by `owner` with `documents` as versions 1..n. */
export async function insertSpec(owner: TenantCreds, documents: object[], name = `spec-${crypto.randomUUID().slice(0, 8)}`): Promise<SpecFixture> {
  const current = documents[documents.length - 1];
  const [row] = await systemQuery(`INSERT INTO app_specs (tenant_id, name, version, spec_document) VALUES ($1, $2, $3, $4) RETURNING id`, [owner.tenantId, name, documents.length, JSON.stringify(current)]);
  for (const [i, doc] of documents.entries()) {
    await systemQuery(`INSERT INTO app_spec_versions (tenant_id, spec_id, version, spec_document) VALUES ($1, $2, $3, $4)`, [owner.tenantId, row.id, i + 1, JSON.stringify(doc)]);
  }
  return { id: row.id, name };
}

/** A new version of the spec, now its current document. */
export async function addVersion(owner: TenantCreds, spec: SpecFixture, document: object): Promise<number> {
  const [row] = await systemQuery(`UPDATE app_specs SET version = version + 1, spec_document = $2 WHERE id = $1 RETURNING version`, [spec.id, JSON.stringify(document)]);
  await systemQuery(`INSERT INTO app_spec_versions (tenant_id, spec_id, version, spec_document) VALUES ($1, $2, $3, $4)`, [owner.tenantId, spec.id, row.version, JSON.stringify(document)]);
  return row.version;
}

/** Shares the spec with `target` (read), as a manifest would. */
export async function shareSpec(owner: TenantCreds, spec: SpecFixture, target: TenantCreds): Promise<void> {
  await systemQuery(`INSERT INTO shares (tenant_id, resource_type, resource_id, target_tenant_id, actions, source) VALUES ($1, 'spec', $2, $3, '{read}', 'manifest')`, [owner.tenantId, spec.id, target.tenantId]);
}

export const dashboards = { main: { name: "Main", surfaces: { dashboard: "home" }, pages: { home: { layout: [] } } } };

export async function registerSchema(t: TenantCreds, name: string, schema: object) {
  const res = await call("POST", "/schema/schemas", { auth: t.auth, body: { name, schema } });
  expect(res.status, res.text).toBe(201);
}

export async function registerCompany(t: TenantCreds, provider: string, externalId = `co-${crypto.randomUUID().slice(0, 8)}`) {
  const res = await call("POST", "/access/external-companies", { auth: t.auth, body: { provider, external_id: externalId } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; external_id: string; provider: string };
}

export async function publishJob(t: TenantCreds, name = `job-${crypto.randomUUID().slice(0, 8)}`): Promise<string> {
  const res = await call("POST", "/definition/jobs", { auth: t.auth, body: { name, definition_json: { actions: [{ name: "pipe", config: { value: 1 } }] } } });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id;
}

export async function putConfig(t: { auth: string }, specId: string, body: object) {
  return call("PUT", `/apps/${specId}/config`, { auth: t.auth, body });
}

/** Every row a config write can touch, for asserting that a refused write changed nothing. */
export async function appFootprint(tenantId: string) {
  return {
    activations: await systemQuery(`SELECT * FROM app_activations WHERE tenant_id = $1 ORDER BY id`, [tenantId]),
    integrations: await systemQuery(`SELECT * FROM app_integrations WHERE tenant_id = $1 ORDER BY id`, [tenantId]),
    principals: await systemQuery(`SELECT * FROM app_principal_configs WHERE tenant_id = $1 ORDER BY id`, [tenantId]),
    policies: await systemQuery(`SELECT p.*, (SELECT json_agg(g ORDER BY g.id) FROM grants g WHERE g.policy_id = p.id) AS grants FROM policies p WHERE tenant_id = $1 ORDER BY id`, [tenantId]),
  };
}
