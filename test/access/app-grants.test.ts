// App grants narrowed to one activation (`resource_id`): written through the
// policy and grant routes, folded into the holder's permissions and listed by
// GET /access/me/permissions as `app:<action>:<activation id>`.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { createRole, mintWithRoles } from "./admin";

const grantRows = async (tenantId: string) =>
  systemQuery("SELECT resource, actions, resource_name, resource_id FROM grants WHERE tenant_id = $1 ORDER BY created_at, resource, resource_id", [tenantId]);

describe("app grants narrowed by resource_id", () => {
  it("stores an app grant narrowed to an activation, and its holder lists it as app:<action>:<id>", async () => {
    const t = await createTenant();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const created = await call("POST", "/access/policies", {
      auth: t.auth,
      body: { name: "app-operator", grants: [{ resource: "app", actions: ["read", "update"], resource_id: a }] },
    });
    expect(created.status, created.text).toBe(201);
    const policy = created.json.data;
    expect(policy.grants).toEqual([
      { id: expect.any(String), policy_id: policy.id, resource: "app", actions: ["read", "update"], resource_name: null, resource_id: a },
    ]);

    const grant = await call("POST", "/access/grants", { auth: t.auth, body: { policy_id: policy.id, resource: "app", actions: ["*"], resource_id: b } });
    expect(grant.status, grant.text).toBe(201);
    expect(grant.json.data).toEqual({ id: expect.any(String), policy_id: policy.id, resource: "app", actions: ["*"], resource_name: null, resource_id: b });
    expect(await grantRows(t.tenantId)).toEqual([
      { resource: "app", actions: ["read", "update"], resource_name: null, resource_id: a },
      { resource: "app", actions: ["*"], resource_name: null, resource_id: b },
    ]);

    await createRole(t, "operator", ["schema:read"]);
    const assigned = await call("POST", `/access/policies/${policy.id}/assignments`, { auth: t.auth, body: { role_name: "operator" } });
    expect(assigned.status, assigned.text).toBe(201);
    const token = await mintWithRoles(t, ["operator"]);

    const me = await call("GET", "/access/me/permissions", { auth: token.auth });
    expect(me.status).toBe(200);
    expect(me.json.data.permissions).toEqual(["schema:read", ...[`app:*:${b}`, `app:read:${a}`, `app:update:${a}`].sort()]);

    // Narrowed app grants reach no entity: the entity routes still need an entity permission.
    expectError(await call("GET", "/entity/entities?type_name=Order", { auth: token.auth }), 403, "FORBIDDEN");
  });

  it("refuses resource_name on an app grant and resource_id on resources other than entity and app, writing nothing", async () => {
    const t = await createTenant();
    const refusals: [Record<string, unknown>, string][] = [
      [{ resource: "app", actions: ["read"], resource_name: "main" }, 'grants[0].resource: must equal "entity"'],
      [{ resource: "schema", actions: ["read"], resource_id: crypto.randomUUID() }, 'grants[0].resource: must be one of ["entity","app"]'],
      [{ resource: "app", actions: ["read"], resource_id: "main" }, "grants[0].resource_id: "],
    ];
    for (const [grant, line] of refusals) {
      const res = await call("POST", "/access/policies", { auth: t.auth, body: { name: "p", grants: [grant] } });
      const err = expectError(res, 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toEqual([expect.stringContaining(line)]);
    }
    expect(await systemQuery("SELECT count(*)::int AS n FROM policies WHERE tenant_id = $1", [t.tenantId])).toEqual([{ n: 0 }]);
  });
});
