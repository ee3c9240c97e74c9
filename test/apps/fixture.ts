// Fixtures of the /apps tests: specs published through the specs API (each
// accepted document a version, the last one the spec's current document),
// companies, schemas and jobs through theirs.
import { expect } from "vitest";
import { call, systemQuery, type TenantCreds } from "../support/api";

export interface SpecFixture {
  id: string;
  name: string;
}

/** A spec owned by `owner` with `documents` as versions 1..n. */
export async function insertSpec(owner: TenantCreds, documents: object[], name = `spec-${crypto.randomUUID().slice(0, 8)}`): Promise<SpecFixture> {
  const res = await call("POST", "/definition/specs", { auth: owner.auth, body: { name, spec_document: documents[0] } });
  expect(res.status, res.text).toBe(201);
  const spec = { id: res.json.data.id as string, name };
  for (const doc of documents.slice(1)) await addVersion(owner, spec, doc);
  return spec;
}

/** A new version of the spec, now its current document. */
export async function addVersion(owner: TenantCreds, spec: SpecFixture, document: object): Promise<number> {
  const res = await call("PUT", `/definition/specs/${spec.id}`, { auth: owner.auth, body: { name: spec.name, spec_document: document } });
  expect(res.status, res.text).toBe(200);
  return res.json.data.version;
}

/** Shares the spec with `target` (read). */
export async function shareSpec(owner: TenantCreds, spec: SpecFixture, target: TenantCreds): Promise<void> {
  const res = await call("POST", "/access/shares", {
    auth: owner.auth,
    body: { resource_type: "spec", resource_id: spec.id, target_tenant_id: target.tenantId },
  });
  expect(res.status, res.text).toBe(201);
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
    policies: await systemQuery(
      `SELECT p.*, (SELECT json_agg(g ORDER BY g.id) FROM grants g WHERE g.policy_id = p.id) AS grants FROM policies p WHERE tenant_id = $1 ORDER BY id`,
      [tenantId],
    ),
  };
}
