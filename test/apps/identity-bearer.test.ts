// Who a render acts for, with a bearer provider: the integration's app token
// as the credential, identity read from the posted body, headers and query,
// the company check, the app user found or provisioned, its permissions,
// and the Origin rules. resolveRenderIdentity is called as the render route
// will call it, against real rows (test/apps/identity-fixture.ts).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { checkOrigin, preflight } from "../../src/apps/render/identity";
import { addIntegration, bearerProvider, refusal, resolve, rotateToken, setIntegrationEnabled, setupApp } from "./identity-fixture";
import { call, systemQuery } from "../support/api";

const body = (app: { companyExternalId: string }, user = "u-1", extra: Record<string, unknown> = {}) => ({ company: app.companyExternalId, user: { id: user }, ...extra });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("bearer credential", () => {
  it("resolves the integration, its activation, spec version, company and a provisioned user", async () => {
    const app = await setupApp();
    const who = await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "u-1", { state: { x: 1 }, action: { widgetId: "w" }, context: { c: 1 } }) });
    expect(who).toMatchObject({
      tenantId: app.tenant.tenantId,
      integrationId: app.integrationId,
      activationId: app.activationId,
      specId: app.specId,
      specVersion: 1,
      provider: "host",
      externalCompanyId: app.companyId,
      companyExternalId: app.companyExternalId,
      identity: { user_external_id: "u-1", company_external_id: app.companyExternalId },
    });
    expect(who.principal).toMatchObject({ tenantId: app.tenant.tenantId, userId: who.userId, tokenId: "", identity: `app-user:${app.integrationId}:${who.userId}` });
    const [mapping] = await systemQuery(`SELECT user_id, provider, external_id FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId]);
    expect(mapping).toEqual({ user_id: who.userId, provider: "host", external_id: "u-1" });
    // The second render finds the same user.
    expect((await resolve(app.integrationId, { headers: bearer(app.token), body: body(app) })).userId).toBe(who.userId);
  });

  it("refuses a missing, malformed, unknown, revoked or other integration's token, and a PAT, with 401", async () => {
    const app = await setupApp();
    const revoked = app.token;
    const live = await rotateToken(app);
    const other = await addIntegration(app, `co-other-${crypto.randomUUID().slice(0, 6)}`);
    const unknown = `svc_at_${"ab".repeat(32)}`;
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      notBearer: { Authorization: live },
      malformed: bearer("svc_at_xyz"),
      unknown: bearer(unknown),
      revoked: bearer(revoked),
      otherIntegration: bearer(other.token),
      patBasic: { Authorization: app.tenant.auth },
      patSecretAsBearer: bearer(app.tenant.clientSecret),
    };
    for (const [name, headers] of Object.entries(cases)) {
      const e = await refusal(resolve(app.integrationId, { headers, body: body(app) }));
      expect([name, e.status, e.code]).toEqual([name, 401, "UNAUTHORIZED"]);
    }
    // An integration id nobody has is refused the same way.
    expect((await refusal(resolve(crypto.randomUUID(), { headers: bearer(live), body: body(app) }))).status).toBe(401);
    expect((await refusal(resolve("not-a-uuid", { headers: bearer(live), body: body(app) }))).status).toBe(401);
    expect(await systemQuery(`SELECT 1 FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId])).toEqual([]);
    // The token the rotation answered is the one that works.
    expect((await resolve(app.integrationId, { headers: bearer(live), body: body(app) })).integrationId).toBe(app.integrationId);
  });

  it("reads the token from auth.header, with or without Bearer, and not from Authorization then", async () => {
    const app = await setupApp({ provider: bearerProvider({ auth: { type: "bearer", header: "X-App-Token" } }) });
    expect((await resolve(app.integrationId, { headers: { "x-app-token": app.token }, body: body(app) })).integrationId).toBe(app.integrationId);
    expect((await resolve(app.integrationId, { headers: { "X-App-Token": `Bearer ${app.token}` }, body: body(app) })).integrationId).toBe(app.integrationId);
    expect((await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app) }))).status).toBe(401);
  });
});

describe("identity extractors", () => {
  it("reads body paths, headers case-insensitively, query parameters and smart values, and never the reserved keys", async () => {
    const app = await setupApp({
      provider: bearerProvider({
        identity: {
          user_external_id: { source: "header", path: "X-User-Id" },
          company_external_id: { source: "query", path: "company" },
          user_email: { source: "body", path: "profile.mail" },
          team_id: { source: "body", path: "team" },
          greeting: "{{ 'hi ' & headers.`x-user-id` & ' of ' & query.company }}",
          plan: { $jsonata: "$uppercase(body.plan)" },
          constant: "fixed",
          from_state: { source: "body", path: "state.secret" },
          absent: { source: "body", path: "nope.deeper" },
          broken: { $jsonata: "$error('boom')" },
        },
      }),
    });
    const who = await resolve(app.integrationId, {
      headers: { ...bearer(app.token), "x-USER-id": "ext-7" },
      query: { company: app.companyExternalId },
      body: { profile: { mail: "seven@example.com" }, team: "t-1", plan: "gold", state: { secret: "s" } },
    });
    expect(who.identity).toEqual({
      user_external_id: "ext-7",
      company_external_id: app.companyExternalId,
      user_email: "seven@example.com",
      team_id: "t-1",
      greeting: `hi ext-7 of ${app.companyExternalId}`,
      plan: "GOLD",
      constant: "fixed",
    });
    const [user] = await systemQuery(`SELECT email FROM users WHERE id = $1`, [who.userId]);
    expect(user.email).toBe("seven@example.com");
  });

  it("refuses a request naming no user or no company with 401, and another company with 403", async () => {
    const app = await setupApp();
    const headers = bearer(app.token);
    expect((await refusal(resolve(app.integrationId, { headers, body: { company: app.companyExternalId } }))).status).toBe(401);
    expect((await refusal(resolve(app.integrationId, { headers, body: { user: { id: "u" } } }))).status).toBe(401);
    const e = await refusal(resolve(app.integrationId, { headers, body: { company: "someone-else", user: { id: "u" } } }));
    expect([e.status, e.code, e.details.company_external_id]).toEqual([403, "FORBIDDEN", "someone-else"]);
    expect(await systemQuery(`SELECT 1 FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId])).toEqual([]);
  });
});

describe("what stops a render", () => {
  it("a disabled integration, an inactive company and an inactive external user answer 403", async () => {
    const app = await setupApp();
    const first = await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "u-1") });

    await setIntegrationEnabled(app, false);
    const disabled = await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app) }));
    expect([disabled.status, disabled.code]).toEqual([403, "FORBIDDEN"]);
    await setIntegrationEnabled(app, true);

    expect((await call("PUT", `/access/external-companies/${app.companyId}`, { auth: app.tenant.auth, body: { is_active: false } })).status).toBe(200);
    expect((await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app) }))).status).toBe(403);
    expect((await call("PUT", `/access/external-companies/${app.companyId}`, { auth: app.tenant.auth, body: { is_active: true } })).status).toBe(200);

    const [mapping] = await systemQuery(`SELECT id FROM external_users WHERE user_id = $1`, [first.userId]);
    expect((await call("PUT", `/access/external-users/${mapping.id}`, { auth: app.tenant.auth, body: { is_active: false } })).status).toBe(200);
    const inactive = await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "u-1") }));
    expect([inactive.status, inactive.code, inactive.details]).toEqual([403, "FORBIDDEN", { code: "EXTERNAL_USER_INACTIVE", external_user_id: mapping.id }]);
    // Others still render.
    expect((await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "u-2") })).userId).not.toBe(first.userId);
  });

  it("the Origin must be listed exactly; a request without one is not checked", async () => {
    const app = await setupApp({ allowedOrigins: ["https://host.example"] });
    const ok = await resolve(app.integrationId, { headers: { ...bearer(app.token), Origin: "https://host.example" }, body: body(app) });
    expect(ok.integrationId).toBe(app.integrationId);
    expect((await resolve(app.integrationId, { headers: bearer(app.token), body: body(app) })).userId).toBe(ok.userId);
    for (const origin of ["https://host.example:8443", "http://host.example", "https://evil.example", "null"]) {
      const e = await refusal(resolve(app.integrationId, { headers: { ...bearer(app.token), Origin: origin }, body: body(app) }));
      expect([origin, e.status, e.code]).toEqual([origin, 403, "FORBIDDEN"]);
    }
    expect(() => checkOrigin({ allowedOrigins: [] }, "https://a.example")).toThrow(/allowed_origins/);
    expect(() => checkOrigin({ allowedOrigins: [] }, null)).not.toThrow();
  });

  it("answers preflights with the CORS grant for a listed origin only", async () => {
    const app = await setupApp({ allowedOrigins: ["https://host.example"], provider: bearerProvider({ auth: { type: "bearer", header: "X-App-Token" } }) });
    const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
    try {
      const listed = await preflight(database, app.integrationId, new Headers({ Origin: "https://host.example", "Access-Control-Request-Method": "POST" }));
      expect([listed.status, listed.headers.get("access-control-allow-origin"), listed.headers.get("access-control-allow-methods"), listed.headers.get("access-control-allow-headers")]).toEqual([
        204,
        "https://host.example",
        "POST, OPTIONS",
        "Authorization, Content-Type, X-App-Token",
      ]);
      for (const [id, origin] of [
        [app.integrationId, "https://evil.example"],
        [crypto.randomUUID(), "https://host.example"],
      ]) {
        const res = await preflight(database, id, new Headers({ Origin: origin }));
        expect([res.status, res.headers.get("access-control-allow-origin")]).toEqual([204, null]);
      }
    } finally {
      await database.close();
    }
  });
});

describe("app users", () => {
  it("with autoCreateUsers false an unknown user is 403 and a pre-provisioned one renders", async () => {
    const app = await setupApp({ provider: bearerProvider({ autoCreateUsers: false }) });
    const e = await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "pre") }));
    expect([e.status, e.code]).toEqual([403, "FORBIDDEN"]);
    expect(await systemQuery(`SELECT 1 FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId])).toEqual([]);
    const posted = await call("POST", "/access/external-users", { auth: app.tenant.auth, body: { provider: "host", external_id: "pre" } });
    expect(posted.status).toBe(201);
    expect((await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "pre") })).userId).toBe(posted.json.data.user_id);
  });

  it("allowEmailLink false: an email already held makes a distinct user without email, the mapping keeps the email", async () => {
    const app = await setupApp();
    const holder = await call("POST", "/access/users", { auth: app.tenant.auth, body: { email: "Ann@Example.com" } });
    expect(holder.status).toBe(201);
    const who = await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "ann", { user: { id: "ann", email: "ann@example.com" } }) });
    expect(who.userId).not.toBe(holder.json.data.id);
    const [user] = await systemQuery(`SELECT email FROM users WHERE id = $1`, [who.userId]);
    const [mapping] = await systemQuery(`SELECT email FROM external_users WHERE user_id = $1`, [who.userId]);
    expect([user.email, mapping.email]).toEqual([null, "ann@example.com"]);
  });

  it("allowEmailLink true on bearer links to the holder of the email, unbounded", async () => {
    const app = await setupApp({ provider: bearerProvider({ allowEmailLink: true }) });
    const holder = await call("POST", "/access/users", { auth: app.tenant.auth, body: { email: "bob@example.com" } });
    const who = await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "bob", { user: { id: "bob", email: "bob@example.com" } }) });
    expect(who.userId).toBe(holder.json.data.id);
  });

  it("concurrent first renders of one new user make one user and one mapping", async () => {
    const app = await setupApp();
    const renders = await Promise.all(Array.from({ length: 5 }, () => resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "rush", { user: { id: "rush", email: "rush@example.com" } }) })));
    expect(new Set(renders.map((r) => r.userId)).size).toBe(1);
    const mappings = await systemQuery(`SELECT user_id FROM external_users WHERE tenant_id = $1 AND external_id = 'rush'`, [app.tenant.tenantId]);
    const users = await systemQuery(`SELECT id FROM users WHERE tenant_id = $1 AND id <> $2`, [app.tenant.tenantId, app.tenant.userId]);
    expect([mappings.length, users.length, users[0].id]).toEqual([1, 1, renders[0].userId]);
  });

  it("standard mode: the user's role bindings; with spec policies: the activation's policy, for every user alike", async () => {
    const standard = await setupApp();
    const plain = await resolve(standard.integrationId, { headers: bearer(standard.token), body: body(standard, "s-1") });
    expect([plain.principal.permissions, plain.principal.scoped]).toEqual([[], []]);
    const role = await call("POST", "/access/roles", { auth: standard.tenant.auth, body: { name: "viewer", permissions: ["entity:read"] } });
    expect(role.status).toBe(201);
    expect((await call("PUT", `/access/users/${plain.userId}/roles`, { auth: standard.tenant.auth, body: { role_names: ["viewer"] } })).status).toBe(200);
    expect((await resolve(standard.integrationId, { headers: bearer(standard.token), body: body(standard, "s-1") })).principal.permissions).toEqual(["entity:read"]);

    const governed = await setupApp({ policies: { users: { grants: [{ resource: "entity", actions: ["read"] }] } }, policyGrants: [{ resource: "entity", actions: ["read", "update"], resource_name: "Order" }, { resource: "app", actions: ["read"] }] });
    const who = await resolve(governed.integrationId, { headers: bearer(governed.token), body: body(governed, "p-1") });
    expect(who.principal.permissions).toEqual(["app:read"]);
    expect(who.principal.scoped).toEqual([{ resource: "entity", actions: ["read", "update"], resourceName: "Order", resourceId: null, entityType: null }]);
    expect([who.principal.userId, who.principal.identity]).toEqual([who.userId, `app-user:${governed.integrationId}:${who.userId}`]);
  });
});
