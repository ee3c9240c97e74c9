// policyPrincipal: a run acts with exactly its bound policy's grants.
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { Database, tenantDb } from "../../src/db/client";
import { policyPrincipal } from "../../src/access/policy-principal";
import { hasPermission } from "../../src/lib/principal";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";

const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
afterAll(() => database.close());

const principalOf = (t: TenantCreds, policyId: string | null) => tenantDb(database, t.tenantId).tx((sql) => policyPrincipal(sql, policyId));

async function createPolicy(t: TenantCreds, grants: object[]): Promise<string> {
  const res = await call("POST", "/access/policies", { auth: t.auth, body: { name: `pol-${crypto.randomUUID().slice(0, 8)}`, grants } });
  expect(res.status, res.text).toBe(201);
  return res.json.data.id;
}

describe("policyPrincipal", () => {
  it("folds the policy's unnarrowed grants into permissions and its narrowed entity grants into scoped", async () => {
    const t = await createTenant();
    await createProductType(t.auth);
    const entity = await createEntity(t.auth, "Product", "Widget", { sku: "W-1", title: "Widget" });
    const policy = await createPolicy(t, [
      { resource: "schema", actions: ["read", "create"] },
      { resource: "workflow", actions: ["*"] },
      { resource: "entity", actions: ["read", "update"], resource_name: "Ticket" },
      { resource: "entity", actions: ["delete"], resource_id: entity.id },
    ]);
    // Another policy of the tenant, and one assigned to the tenant's own user: neither reaches the run.
    await createPolicy(t, [{ resource: "entity", actions: ["*"] }]);
    const [{ version }] = await systemQuery(`SELECT version FROM access_versions WHERE tenant_id = $1`, [t.tenantId]);

    const p = await principalOf(t, policy);
    expect(p).toEqual({
      tenantId: t.tenantId,
      userId: "",
      tokenId: "",
      permissions: ["schema:create", "schema:read", "workflow:*"],
      scoped: expect.arrayContaining([
        { resource: "entity", actions: ["read", "update"], resourceName: "Ticket", resourceId: null, entityType: null },
        { resource: "entity", actions: ["delete"], resourceName: null, resourceId: entity.id, entityType: "Product" },
      ]),
      identity: `policy:${policy}`,
      accessVersion: version,
    });
    expect(p.scoped).toHaveLength(2);
    expect(hasPermission(p, "entity", "update")).toBe(true);
    expect(hasPermission(p, "entity", "create")).toBe(false);
    expect(hasPermission(p, "access", "read")).toBe(false);
  });

  it("gives a run without a policy, or with a policy of no grants, no permissions", async () => {
    const t = await createTenant();
    const empty = await createPolicy(t, []);
    for (const policyId of [null, empty]) {
      const p = await principalOf(t, policyId);
      expect(p.permissions).toEqual([]);
      expect(p.scoped).toEqual([]);
      expect(hasPermission(p, "entity", "read")).toBe(false);
    }
  });

  it("sees only its own tenant's policy: another tenant's policy id grants nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const foreign = await createPolicy(other, [{ resource: "*", actions: ["*"] }]);
    const p = await principalOf(t, foreign);
    expect(p.permissions).toEqual([]);
    expect(p.scoped).toEqual([]);
  });
});
