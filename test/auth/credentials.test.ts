// Authentication on every non-public route: 401 with a WWW-Authenticate
// challenge for missing, malformed, wrong, expired or revoked credentials;
// 403 for a missing permission.
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, type TenantCreds } from "../support/api";

const PROTECTED = "/access/me/permissions";

async function mint(creds: TenantCreds, body: Record<string, unknown>) {
  const res = await call("POST", "/access/api-tokens", { auth: creds.auth, body });
  expect(res.status).toBe(201);
  const d = res.json.data;
  return { id: d.id as string, auth: basic(d.client_id, d.client_secret) };
}

function expectUnauthorized(res: { status: number; json: any; headers: Headers }) {
  const err = expectError(res, 401, "UNAUTHORIZED");
  expect(Object.keys(res.json)).toEqual(["error"]);
  expect(Object.keys(err).sort()).toEqual(["code", "details", "message", "status"]);
  expect(err.message.length).toBeGreaterThan(0);
  expect(err.details.request_id).toBe(res.headers.get("X-Request-Id"));
  // Names both schemes the route accepts, so a client learns what to send.
  expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="platform", Bearer realm="platform"');
  return err;
}

describe("401 UNAUTHORIZED envelope", () => {
  it("no Authorization header", async () => {
    expectUnauthorized(await call("GET", PROTECTED));
    expectUnauthorized(await call("GET", "/access/roles"));
    expectUnauthorized(await call("POST", "/access/roles", { body: { name: "x", permissions: [] } }));
  });

  it("an empty Authorization header", async () => {
    expectUnauthorized(await call("GET", PROTECTED, { headers: { Authorization: "" } }));
  });

  it("an unknown scheme, even with valid PAT credentials after it", async () => {
    const t = await createTenant();
    const b64 = t.auth.slice("Basic ".length);
    expectUnauthorized(await call("GET", PROTECTED, { auth: `Token ${b64}` }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: `Digest ${b64}` }));
    // Control: the same credentials under Basic are good.
    expect((await call("GET", PROTECTED, { auth: `Basic ${b64}` })).status).toBe(200);
  });

  it("a scheme with no credentials", async () => {
    expectUnauthorized(await call("GET", PROTECTED, { auth: "Basic" }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: "Bearer" }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: "Basic " }));
  });

  it("Basic credentials that are not base64", async () => {
    expectUnauthorized(await call("GET", PROTECTED, { auth: "Basic !!!not*base64!!!" }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: "Basic a" }));
  });

  it("Basic credentials without a colon, or with an empty client id", async () => {
    const t = await createTenant();
    expectUnauthorized(await call("GET", PROTECTED, { auth: `Basic ${btoa(t.clientId)}` }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: `Basic ${btoa(`${t.clientId}${t.clientSecret}`)}` }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: `Basic ${btoa(`:${t.clientSecret}`)}` }));
  });

  it("a wrong or empty secret for a real client id", async () => {
    const t = await createTenant();
    expectUnauthorized(await call("GET", PROTECTED, { auth: basic(t.clientId, `${t.clientSecret}x`) }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: basic(t.clientId, t.clientSecret.slice(0, -1)) }));
    expectUnauthorized(await call("GET", PROTECTED, { auth: basic(t.clientId, "") }));
  });

  it("an unknown client id", async () => {
    const t = await createTenant();
    expectUnauthorized(await call("GET", PROTECTED, { auth: basic("pat_ffffffffffffffffffffffff", t.clientSecret) }));
  });

  it("one tenant's client id with another tenant's secret", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expectUnauthorized(await call("GET", PROTECTED, { auth: basic(a.clientId, b.clientSecret) }));
  });

  it("a revoked token, while the tenant's other token keeps working", async () => {
    const t = await createTenant();
    const pat = await mint(t, { name: "to-revoke" });
    expect((await call("GET", PROTECTED, { auth: pat.auth })).status).toBe(200);
    expect((await call("DELETE", `/access/api-tokens/${pat.id}`, { auth: t.auth })).status).toBe(200);
    expectUnauthorized(await call("GET", PROTECTED, { auth: pat.auth }));
    expectUnauthorized(await call("POST", "/access/roles", { auth: pat.auth, body: { name: "x", permissions: [] } }));
    expect((await call("GET", PROTECTED, { auth: t.auth })).status).toBe(200);
  });

  it("checks credentials before the body: a bad body with bad credentials is 401, not 422", async () => {
    expectUnauthorized(await call("POST", "/access/roles", { auth: basic("pat_x", "sk_y"), body: { bogus: true } }));
  });

  it("does not write anything for an unauthenticated request", async () => {
    const t = await createTenant();
    expectUnauthorized(await call("POST", "/access/roles", { auth: basic(t.clientId, "sk_wrong"), body: { name: "ghost", permissions: [] } }));
    const roles = await call("GET", "/access/roles", { auth: t.auth });
    expect(roles.json.data.map((r: any) => r.name)).toEqual(["admin"]);
  });
});

describe("401 messages say what to send", () => {
  it("names both forms when the header is missing, and the accepted schemes for another one", async () => {
    expect(expectUnauthorized(await call("GET", PROTECTED)).message).toBe(
      "Authorization header is required: a PAT as Basic base64(client_id:client_secret), or an access token from POST /auth/token as Bearer",
    );
    expect(expectUnauthorized(await call("GET", PROTECTED, { auth: "Token abc" })).message).toBe("Unsupported authorization scheme token: use Basic or Bearer");
    expect(expectUnauthorized(await call("GET", PROTECTED, { auth: "Basic" })).message).toBe(
      "Malformed Authorization header: expected Basic <base64 of client_id:client_secret> or Bearer <access token>",
    );
  });
});

describe("unauthenticated routes need no credentials", () => {
  it("GET /healthz and POST /auth/token answer without Authorization", async () => {
    expect((await call("GET", "/healthz")).status).toBe(200);
    const t = await createTenant();
    const res = await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id: t.clientId, client_secret: t.clientSecret } });
    expect(res.status).toBe(200);
  });
});

describe("403 FORBIDDEN for a missing permission", () => {
  it("a token holding only entity:read cannot create a role", async () => {
    const t = await createTenant();
    const role = await call("POST", "/access/roles", { auth: t.auth, body: { name: "reader", permissions: ["entity:read"] } });
    expect(role.status).toBe(201);
    const reader = await mint(t, { name: "reader-token", role_names: ["reader"] });

    const res = await call("POST", "/access/roles", { auth: reader.auth, body: { name: "sneaky", permissions: ["*:*"] } });
    const err = expectError(res, 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ resource: "access", action: "create" });
    expect(err.message).toContain("access:create");

    const roles = await call("GET", "/access/roles", { auth: t.auth });
    expect(roles.json.data.map((r: any) => r.name).sort()).toEqual(["admin", "reader"]);
  });

  it("each access operation needs its own action", async () => {
    const t = await createTenant();
    expect((await call("POST", "/access/roles", { auth: t.auth, body: { name: "reader", permissions: ["entity:read"] } })).status).toBe(201);
    const reader = await mint(t, { name: "reader-token", role_names: ["reader"] });

    expect(expectError(await call("GET", "/access/roles", { auth: reader.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "access",
      action: "read",
    });
    expect(expectError(await call("GET", "/access/api-tokens", { auth: reader.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "access",
      action: "read",
    });
    expect(expectError(await call("POST", "/access/api-tokens", { auth: reader.auth, body: { name: "x" } }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "access",
      action: "create",
    });
    expect(expectError(await call("DELETE", `/access/api-tokens/${t.tokenId}`, { auth: reader.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "access",
      action: "delete",
    });
    // The admin token was not revoked by the refused call.
    expect((await call("GET", PROTECTED, { auth: t.auth })).status).toBe(200);
    // Reading one's own permissions needs no permission.
    expect((await call("GET", PROTECTED, { auth: reader.auth })).json).toEqual({ data: { permissions: ["entity:read"] } });
  });

  it("a wildcard action grants every action on its resource, and nothing on others", async () => {
    const t = await createTenant();
    expect((await call("POST", "/access/roles", { auth: t.auth, body: { name: "access-admin", permissions: ["access:*"] } })).status).toBe(201);
    const accessAdmin = await mint(t, { name: "aa", role_names: ["access-admin"] });
    expect((await call("POST", "/access/roles", { auth: accessAdmin.auth, body: { name: "made-by-aa", permissions: [] } })).status).toBe(201);
    expect((await call("GET", "/access/roles", { auth: accessAdmin.auth })).status).toBe(200);

    expect((await call("POST", "/access/roles", { auth: t.auth, body: { name: "entity-admin", permissions: ["entity:*"] } })).status).toBe(201);
    const entityAdmin = await mint(t, { name: "ea", role_names: ["entity-admin"] });
    expectError(await call("GET", "/access/roles", { auth: entityAdmin.auth }), 403, "FORBIDDEN");
  });

  it("a wildcard resource grants its action on every resource", async () => {
    const t = await createTenant();
    expect((await call("POST", "/access/roles", { auth: t.auth, body: { name: "read-all", permissions: ["*:read"] } })).status).toBe(201);
    const readAll = await mint(t, { name: "ra", role_names: ["read-all"] });
    expect((await call("GET", "/access/roles", { auth: readAll.auth })).status).toBe(200);
    expectError(await call("POST", "/access/roles", { auth: readAll.auth, body: { name: "x", permissions: [] } }), 403, "FORBIDDEN");
  });

  it("a token with no roles holds no permissions", async () => {
    const t = await createTenant();
    const bare = await mint(t, { name: "bare", role_names: [] });
    expect((await call("GET", PROTECTED, { auth: bare.auth })).json).toEqual({ data: { permissions: [] } });
    expectError(await call("GET", "/access/roles", { auth: bare.auth }), 403, "FORBIDDEN");
  });
});
