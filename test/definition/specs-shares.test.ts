// App specs between tenants through the gateway: the publish checks that read
// the database, manifests provisioned from the shares block, shared specs
// read-only in the target tenant, and deletion while others use a spec.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createProductType } from "../support/entities";
import { footprint, publish, refused, specDoc } from "./specs-support";

async function registerSchema(t: TenantCreds, name: string) {
  const res = await call("POST", "/schema/schemas", { auth: t.auth, body: { name, schema: { type: "object" } } });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

async function manifestShares(tenantId: string) {
  return systemQuery(
    "SELECT resource_type, resource_id, target_tenant_id, actions FROM shares WHERE tenant_id = $1 AND source = 'manifest' ORDER BY resource_type, target_tenant_id",
    [tenantId],
  );
}

async function activate(t: TenantCreds, specId: string) {
  const [row] = await systemQuery("INSERT INTO app_activations (tenant_id, spec_id, accepted_version) VALUES ($1, $2, 1) RETURNING id", [t.tenantId, specId]);
  return row.id as string;
}

describe("configSchemas at publish", () => {
  it("accepts names the owner registered or receives, and refuses any other with unknown_schema in the one 422", async () => {
    const [owner, other] = [await createTenant(), await createTenant()];
    await registerSchema(owner, "orders_config");
    const theirs = await registerSchema(other, "shared_config");
    await registerSchema(other, "private_config");
    expect(
      (await call("POST", "/access/shares", { auth: other.auth, body: { resource_type: "schema", resource_id: theirs.id, target_tenant_id: owner.tenantId } }))
        .status,
    ).toBe(201);

    await publish(owner, { name: "Good", spec_document: { ...specDoc(), configSchemas: { app: "orders_config", user: "shared_config", team: null } } });
    const err = await refused(
      owner,
      () =>
        call("POST", "/definition/specs", {
          auth: owner.auth,
          body: { name: "Bad", spec_document: { ...specDoc(), configSchemas: { app: "private_config", company: "orders_config" } } },
        }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect(err.details.issues).toEqual([
      { path: "configSchemas.app", code: "unknown_schema", message: "names no schema registered in this tenant or shared with it (private_config)" },
    ]);
    expect(err.details.errors).toEqual(["configSchemas.app: names no schema registered in this tenant or shared with it (private_config)"]);
    expect(err.details.validation_errors).toEqual(err.details.errors);
  });

  it("merges the database issues with the document's own in one answer", async () => {
    const t = await createTenant();
    const err = await refused(
      t,
      () => call("POST", "/definition/specs", { auth: t.auth, body: { name: "Bad", spec_document: { configSchemas: { app: "nowhere" } } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.issues.map((i: any) => [i.path, i.code])).toEqual([
      ["dashboards", "required"],
      ["configSchemas.app", "unknown_schema"],
    ]);
  });
});

describe("the shares block at publish", () => {
  it("refuses more than 100 entries before any is looked up, writing nothing", async () => {
    const [owner, target] = [await createTenant(), await createTenant()];
    const shares = Array.from({ length: 101 }, () => ({ tenantId: target.tenantId }));
    const err = await refused(
      owner,
      () => call("POST", "/definition/specs", { auth: owner.auth, body: { name: "Many", spec_document: { ...specDoc(), shares } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.issues.map((i: any) => [i.path, i.code])).toEqual([["shares", "schema_violation"]]);
  });

  it("refuses an unknown or own target tenant and resources the owner does not have, every issue at once", async () => {
    const [owner, target] = [await createTenant(), await createTenant()];
    await createProductType(owner.auth);
    const shares = [
      { tenantId: crypto.randomUUID() },
      { tenantId: "not-a-tenant" },
      { tenantId: owner.tenantId },
      { tenantId: target.tenantId, resourceType: "entity_type", resourceName: "Missing" },
      { tenantId: target.tenantId, resourceType: "schema", resourceName: "missing_schema" },
      { tenantId: target.tenantId, resourceType: "spec", resourceName: "No such spec" },
      { tenantId: target.tenantId, resourceType: "entity_type" },
      { tenantId: target.tenantId, resourceType: "entity_type", resourceName: "Product" },
    ];
    const err = await refused(
      owner,
      () => call("POST", "/definition/specs", { auth: owner.auth, body: { name: "S", spec_document: { ...specDoc(), shares } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect(err.details.issues.map((i: any) => [i.path, i.code])).toEqual([
      ["shares[1].tenantId", "schema_violation"],
      ["shares[0].tenantId", "share_unknown_tenant"],
      ["shares[2].tenantId", "share_own_tenant"],
      ["shares[3].resourceName", "share_unknown_resource"],
      ["shares[4].resourceName", "share_unknown_resource"],
      ["shares[5].resourceName", "share_unknown_resource"],
      ["shares[6].resourceName", "required"],
    ]);
    const validated = await call("POST", "/definition/specs/validate", { auth: owner.auth, body: { spec_document: { ...specDoc(), shares } } });
    expect(validated.json.data.issues).toEqual(err.details.issues);
  });
});

describe("manifests", () => {
  it("provisions the block as manifest shares, answers it in GET /access/manifests, and revokes what a PUT drops", async () => {
    const [owner, t1, t2] = [await createTenant(), await createTenant(), await createTenant()];
    const product = await createProductType(owner.auth);
    const schema = await registerSchema(owner, "orders_config");
    const block = [
      { tenantId: t1.tenantId },
      { tenantId: t1.tenantId, resourceType: "entity_type", resourceName: "Product", actions: ["read"] },
      { tenantId: t2.tenantId, resourceType: "schema", resourceName: "orders_config" },
    ];
    const spec = await publish(owner, { name: "Orders", spec_document: { ...specDoc(), shares: block } });
    // A share made through /access/shares is the owner's own business: manifests never touch it.
    const apiShare = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "entity_type", resource_id: product.id, target_tenant_id: t2.tenantId },
    });
    expect(apiShare.status, apiShare.text).toBe(201);

    const sorted = (rows: any[]) =>
      [...rows].sort((a, b) => `${a.resource_type}${a.target_tenant_id}`.localeCompare(`${b.resource_type}${b.target_tenant_id}`));
    expect(await manifestShares(owner.tenantId)).toEqual(
      sorted([
        { resource_type: "spec", resource_id: spec.id, target_tenant_id: t1.tenantId, actions: ["read"] },
        { resource_type: "entity_type", resource_id: product.id, target_tenant_id: t1.tenantId, actions: ["read"] },
        { resource_type: "schema", resource_id: schema.id, target_tenant_id: t2.tenantId, actions: ["read"] },
      ]),
    );
    const manifests = await call("GET", `/access/manifests?spec_id=${spec.id}`, { auth: owner.auth });
    expect(manifests.json).toEqual({
      data: [
        {
          id: spec.id,
          spec_id: spec.id,
          shares: [
            { tenant_id: t1.tenantId, resource_type: "spec", resource_name: null, actions: ["read"] },
            { tenant_id: t1.tenantId, resource_type: "entity_type", resource_name: "Product", actions: ["read"] },
            { tenant_id: t2.tenantId, resource_type: "schema", resource_name: "orders_config", actions: ["read"] },
          ],
        },
      ],
      pagination: { page: 1, limit: 100, total: 1, total_pages: 1 },
    });
    // The target reads the spec and the type at once.
    expect((await call("GET", `/definition/specs/${spec.id}`, { auth: t1.auth })).json.data).toMatchObject({ id: spec.id, source_type: "shared" });

    const put = await call("PUT", `/definition/specs/${spec.id}`, {
      auth: owner.auth,
      body: { name: "Orders", spec_document: { ...specDoc(), shares: [block[2]] } },
    });
    expect(put.status, put.text).toBe(200);
    expect(await manifestShares(owner.tenantId)).toEqual([
      { resource_type: "schema", resource_id: schema.id, target_tenant_id: t2.tenantId, actions: ["read"] },
    ]);
    expectError(await call("GET", `/definition/specs/${spec.id}`, { auth: t1.auth }), 404, "NOT_FOUND");
    expect((await call("GET", `/access/manifests?spec_id=${spec.id}`, { auth: owner.auth })).json.data[0].shares).toEqual([
      { tenant_id: t2.tenantId, resource_type: "schema", resource_name: "orders_config", actions: ["read"] },
    ]);

    const dropped = await call("PUT", `/definition/specs/${spec.id}`, { auth: owner.auth, body: { name: "Orders", spec_document: specDoc() } });
    expect(dropped.status).toBe(200);
    expect(await manifestShares(owner.tenantId)).toEqual([]);
    expect((await call("GET", "/access/manifests", { auth: owner.auth })).json.data).toEqual([{ id: spec.id, spec_id: spec.id, shares: [] }]);
    const [kept] = await systemQuery("SELECT id, source FROM shares WHERE id = $1", [apiShare.json.data.id]);
    expect(kept).toEqual({ id: apiShare.json.data.id, source: "api" });
  });

  it("keeps a share two specs declare while one still does, and revokes a spec's manifest when it is deleted", async () => {
    const [owner, target] = [await createTenant(), await createTenant()];
    const product = await createProductType(owner.auth);
    const entry = { tenantId: target.tenantId, resourceType: "entity_type", resourceName: "Product" };
    const a = await publish(owner, { name: "A", spec_document: { ...specDoc(), shares: [entry] } });
    const b = await publish(owner, { name: "B", spec_document: { ...specDoc(), shares: [entry, { tenantId: target.tenantId }] } });
    expect((await manifestShares(owner.tenantId)).map((s) => s.resource_id).sort()).toEqual([product.id, b.id].sort());
    expect((await call("DELETE", `/definition/specs/${b.id}`, { auth: owner.auth })).status).toBe(200);
    expect(await manifestShares(owner.tenantId)).toEqual([
      { resource_type: "entity_type", resource_id: product.id, target_tenant_id: target.tenantId, actions: ["read"] },
    ]);
    expect((await call("DELETE", `/definition/specs/${a.id}`, { auth: owner.auth })).status).toBe(200);
    expect(await manifestShares(owner.tenantId)).toEqual([]);
  });
});

describe("shared specs", () => {
  it("lets the target read, list and read versions of a spec shared through /access/shares, never write it; others get 404", async () => {
    const [owner, target, stranger] = [await createTenant(), await createTenant(), await createTenant()];
    const spec = await publish(owner, { name: "Orders", spec_document: specDoc() });
    const unknownShare = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "spec", resource_id: crypto.randomUUID(), target_tenant_id: target.tenantId },
    });
    expectError(unknownShare, 404, "NOT_FOUND");
    const foreign = await publish(stranger, { name: "Theirs", spec_document: specDoc() });
    expectError(
      await call("POST", "/access/shares", { auth: owner.auth, body: { resource_type: "spec", resource_id: foreign.id, target_tenant_id: target.tenantId } }),
      404,
      "NOT_FOUND",
    );

    // Before the share the target sees nothing.
    expectError(await call("GET", `/definition/specs/${spec.id}`, { auth: target.auth }), 404, "NOT_FOUND");
    const shared = await call("POST", "/access/shares", {
      auth: owner.auth,
      body: { resource_type: "spec", resource_id: spec.id, target_tenant_id: target.tenantId },
    });
    expect(shared.status, shared.text).toBe(201);
    const own = await publish(target, { name: "Own", spec_document: specDoc() });

    const got = await call("GET", `/definition/specs/${spec.id}`, { auth: target.auth });
    expect(got.json.data).toEqual({ ...spec, source_type: "shared" });
    expect(JSON.stringify(got.json.data.spec_document)).toBe(JSON.stringify(specDoc()));
    const list = await call("GET", "/definition/specs", { auth: target.auth });
    expect(list.json.data).toEqual([own, { ...spec, source_type: "shared" }]);
    expect((await call("GET", `/definition/specs/${spec.id}/versions`, { auth: target.auth })).json.data.map((v: any) => v.version)).toEqual([1]);
    expect((await call("GET", `/definition/specs/${spec.id}/versions/1`, { auth: target.auth })).json.data.version).toBe(1);

    const ownerBefore = await footprint(owner.tenantId);
    await refused(
      target,
      () => call("PUT", `/definition/specs/${spec.id}`, { auth: target.auth, body: { name: "Mine now", spec_document: specDoc() } }),
      403,
      "FORBIDDEN",
    );
    await refused(target, () => call("DELETE", `/definition/specs/${spec.id}`, { auth: target.auth }), 403, "FORBIDDEN");
    expect(await footprint(owner.tenantId)).toEqual(ownerBefore);

    for (const [method, path, body] of [
      ["GET", `/definition/specs/${spec.id}`],
      ["GET", `/definition/specs/${spec.id}/versions`],
      ["GET", `/definition/specs/${spec.id}/versions/1`],
      ["PUT", `/definition/specs/${spec.id}`, { name: "x", spec_document: specDoc() }],
      ["DELETE", `/definition/specs/${spec.id}`],
    ] as const) {
      await refused(stranger, () => call(method, path, { auth: stranger.auth, body }), 404, "NOT_FOUND");
    }
    expect((await call("GET", "/definition/specs", { auth: stranger.auth })).json.data).toEqual([foreign]);
    expect(await footprint(owner.tenantId)).toEqual(ownerBefore);

    // Revoked: the target loses the spec at once.
    expect((await call("DELETE", `/access/shares/${shared.json.data.id}`, { auth: owner.auth })).status).toBe(200);
    expectError(await call("GET", `/definition/specs/${spec.id}`, { auth: target.auth }), 404, "NOT_FOUND");
  });
});

describe("deleting a spec that is activated", () => {
  it("is 409 with the count of other tenants' activations, and removes the owner's own activation with its integrations and tokens", async () => {
    const [owner, t1, t2] = [await createTenant(), await createTenant(), await createTenant()];
    const spec = await publish(owner, { name: "Orders", spec_document: { ...specDoc(), shares: [{ tenantId: t1.tenantId }, { tenantId: t2.tenantId }] } });
    const ownActivation = await activate(owner, spec.id);
    const [company] = await systemQuery("INSERT INTO external_companies (tenant_id, provider, external_id) VALUES ($1, 'idp', 'c1') RETURNING id", [
      owner.tenantId,
    ]);
    const [integration] = await systemQuery("INSERT INTO app_integrations (tenant_id, activation_id, external_company_id) VALUES ($1, $2, $3) RETURNING id", [
      owner.tenantId,
      ownActivation,
      company.id,
    ]);
    await systemQuery("INSERT INTO app_tokens (tenant_id, integration_id, token_hash) VALUES ($1, $2, '\\x00')", [owner.tenantId, integration.id]);
    const a1 = await activate(t1, spec.id);
    const a2 = await activate(t2, spec.id);

    const err = await refused(owner, () => call("DELETE", `/definition/specs/${spec.id}`, { auth: owner.auth }), 409, "CONFLICT");
    expect(err.details).toMatchObject({ activations: 2 });
    await systemQuery("DELETE FROM app_activations WHERE id = $1", [a1]);
    expect(expectError(await call("DELETE", `/definition/specs/${spec.id}`, { auth: owner.auth }), 409, "CONFLICT").details).toMatchObject({ activations: 1 });
    await systemQuery("DELETE FROM app_activations WHERE id = $1", [a2]);

    expect((await call("DELETE", `/definition/specs/${spec.id}`, { auth: owner.auth })).json).toEqual({ data: { id: spec.id, deleted: true } });
    expect(await systemQuery("SELECT id FROM app_activations WHERE spec_id = $1", [spec.id])).toEqual([]);
    expect(await systemQuery("SELECT id FROM app_integrations WHERE id = $1", [integration.id])).toEqual([]);
    expect(await systemQuery("SELECT id FROM app_tokens WHERE integration_id = $1", [integration.id])).toEqual([]);
    expect(await footprint(owner.tenantId)).toEqual({ specs: [], versions: [], shares: [] });
  });

  it("counts only the caller's own specs: the platform function answers 0 for another tenant's spec", async () => {
    const [owner, other] = [await createTenant(), await createTenant()];
    const spec = await publish(owner, { name: "Orders", spec_document: specDoc() });
    await activate(other, spec.id);
    // The setting is read in the FROM clause first, so the function runs as the other tenant (its connection closes after).
    const [asOther] = await systemQuery("SELECT platform_spec_foreign_activations($2) AS n FROM (SELECT set_config('app.tenant_id', $1, false)) s", [
      other.tenantId,
      spec.id,
    ]);
    const [asOwner] = await systemQuery("SELECT platform_spec_foreign_activations($2) AS n FROM (SELECT set_config('app.tenant_id', $1, false)) s", [
      owner.tenantId,
      spec.id,
    ]);
    expect([asOther.n, asOwner.n]).toEqual([0, 1]);
  });
});
