// Permissions are cached per isolate, keyed by the tenant's access version:
// every change to a role, a policy, a grant, an assignment, a binding or a
// user is seen by the very next request of an affected token. Each test warms
// the cache with a few requests first, so a stale entry would be served.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/api";
import {
  assign,
  createPolicy,
  createRole,
  createUser,
  expectForbidden,
  permissionsOf,
  policyOnRoleToken,
  roleToken,
  tokenForRoles,
  tokenForUser,
} from "./fixture";

const readTypes = (auth: string) => call("GET", "/entity/entity-types", { auth });

async function warm(auth: string, status: number) {
  for (let i = 0; i < 3; i++) expect((await readTypes(auth)).status).toBe(status);
}

describe("the permission cache", () => {
  it("a role's permissions replaced: the next request is refused, then allowed again", async () => {
    const t = await createTenant();
    const { role, auth } = await roleToken(t.auth, ["entity_type:read"]);
    await warm(auth, 200);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["entity:read"] } })).status).toBe(200);
    expect(expectForbidden(await readTypes(auth)).details).toMatchObject({ resource: "entity_type", action: "read" });
    expect(await permissionsOf(auth)).toEqual(["entity:read"]);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: ["entity_type:read"] } })).status).toBe(200);
    expect((await readTypes(auth)).status).toBe(200);
  });

  it("a role deleted: its tokens lose its permissions at once", async () => {
    const t = await createTenant();
    const { role, auth } = await roleToken(t.auth, ["entity_type:read"]);
    await warm(auth, 200);
    expect((await call("DELETE", `/access/roles/${role.id}`, { auth: t.auth })).status).toBe(200);
    expectForbidden(await readTypes(auth));
    expect(await permissionsOf(auth)).toEqual([]);
  });

  it("a grant added to and removed from an assigned policy", async () => {
    const t = await createTenant();
    const { policy, auth } = await policyOnRoleToken(t.auth, [{ resource: "entity", actions: ["read"] }]);
    await warm(auth, 403);
    const grant = await call("POST", "/access/grants", { auth: t.auth, body: { policy_id: policy.id, resource: "entity_type", actions: ["read"] } });
    expect(grant.status, grant.text).toBe(201);
    expect((await readTypes(auth)).status).toBe(200);
    expect((await call("DELETE", `/access/grants/${grant.json.data.id}`, { auth: t.auth })).status).toBe(200);
    expectForbidden(await readTypes(auth));
  });

  it("a policy's grants replaced and the policy deleted", async () => {
    const t = await createTenant();
    const { policy, auth } = await policyOnRoleToken(t.auth, [{ resource: "entity_type", actions: ["read"] }]);
    await warm(auth, 200);
    expect(
      (
        await call("PUT", `/access/policies/${policy.id}`, {
          auth: t.auth,
          body: { grants: [{ resource: "entity", actions: ["read"], resource_name: "Item" }] },
        })
      ).status,
    ).toBe(200);
    expectForbidden(await readTypes(auth));
    expect(await permissionsOf(auth)).toEqual(["entity:read:Item"]);
    expect((await call("DELETE", `/access/policies/${policy.id}`, { auth: t.auth })).status).toBe(200);
    expect(await permissionsOf(auth)).toEqual([]);
  });

  it("an assignment to a role added and removed", async () => {
    const t = await createTenant();
    const role = await createRole(t.auth, []);
    const { auth } = await tokenForRoles(t.auth, [role.name]);
    const policy = await createPolicy(t.auth, [{ resource: "entity_type", actions: ["read"] }]);
    await warm(auth, 403);
    await assign(t.auth, policy.id, { role_name: role.name });
    expect((await readTypes(auth)).status).toBe(200);
    const removed = await call("DELETE", `/access/policies/${policy.id}/assignments?role_name=${role.name}`, { auth: t.auth });
    expect(removed.status, removed.text).toBe(200);
    expectForbidden(await readTypes(auth));
  });

  it("an assignment to a user added and removed, seen by that user's token", async () => {
    const t = await createTenant();
    const user = await createUser(t.auth);
    const { auth } = await tokenForUser(t.auth, user.id);
    const policy = await createPolicy(t.auth, [{ resource: "entity_type", actions: ["read"] }]);
    await warm(auth, 403);
    await assign(t.auth, policy.id, { user_id: user.id });
    expect((await readTypes(auth)).status).toBe(200);
    expect((await call("DELETE", `/access/policies/${policy.id}/assignments?user_id=${user.id}`, { auth: t.auth })).status).toBe(200);
    expectForbidden(await readTypes(auth));
  });

  it("a user's roles replaced: a token minted for the user follows them", async () => {
    const t = await createTenant();
    const reader = await createRole(t.auth, ["entity_type:read"]);
    const user = await createUser(t.auth);
    const { auth } = await tokenForUser(t.auth, user.id);
    await warm(auth, 403);
    expect((await call("PUT", `/access/users/${user.id}/roles`, { auth: t.auth, body: { role_names: [reader.name] } })).status).toBe(200);
    expect((await readTypes(auth)).status).toBe(200);
    expect((await call("PUT", `/access/users/${user.id}/roles`, { auth: t.auth, body: { role_names: [] } })).status).toBe(200);
    expectForbidden(await readTypes(auth));
  });

  it("a user deactivated: its PAT and access tokens answer 401 at once; reactivated, they work again", async () => {
    const t = await createTenant();
    const reader = await createRole(t.auth, ["entity_type:read"]);
    const user = await createUser(t.auth, [reader.name]);
    const minted = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "u", user_id: user.id } });
    const { client_id, client_secret } = minted.json.data;
    const exchanged = await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id, client_secret } });
    expect(exchanged.status, exchanged.text).toBe(200);
    const pat = `Basic ${btoa(`${client_id}:${client_secret}`)}`;
    const bearer = `Bearer ${exchanged.json.access_token}`;
    await warm(pat, 200);
    await warm(bearer, 200);
    expect((await call("PUT", `/access/users/${user.id}`, { auth: t.auth, body: { is_active: false } })).json.data.is_active).toBe(false);
    for (const auth of [pat, bearer]) expect((await readTypes(auth)).status).toBe(401);
    expect((await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id, client_secret } })).status).toBe(401);
    expect((await call("PUT", `/access/users/${user.id}`, { auth: t.auth, body: { is_active: true } })).status).toBe(200);
    for (const auth of [pat, bearer]) expect((await readTypes(auth)).status).toBe(200);
  });

  it("a change in one tenant leaves another tenant's cached permissions as they were", async () => {
    const [t, other] = await Promise.all([createTenant(), createTenant()]);
    const { role, auth } = await roleToken(t.auth, ["entity_type:read"]);
    const { auth: otherAuth } = await roleToken(other.auth, ["entity_type:read"]);
    await warm(auth, 200);
    await warm(otherAuth, 200);
    expect((await call("PUT", `/access/roles/${role.id}`, { auth: t.auth, body: { permissions: [] } })).status).toBe(200);
    expectForbidden(await readTypes(auth));
    expect((await readTypes(otherAuth)).status).toBe(200);
  });
});
