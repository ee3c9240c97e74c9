// Who a render acts for, with a bearer provider: the integration's app token
// as the credential, identity read from the posted body, headers and query,
// the company check, the app user found or provisioned, its permissions,
// and the Origin rules. resolveRenderIdentity is called as the render route
// will call it, against real rows (test/apps/identity-fixture.ts).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Database } from "../../src/db/client";
import { checkOrigin } from "../../src/apps/render/identity";
import { preflight } from "../../src/apps/host/cors";
import { addIntegration, bearerProvider, refusal, resolve, rotateToken, run, setIntegrationEnabled, setupApp, type App } from "./identity-fixture";
import { call, systemQuery } from "../support/api";
import { assign, createPolicy, createRole } from "../access/fixture";

const body = (app: { companyExternalId: string }, user = "u-1", extra: Record<string, unknown> = {}) => ({
  company: app.companyExternalId,
  user: { id: user },
  ...extra,
});
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("bearer credential", () => {
  it("resolves the integration, its activation, spec version, company and a provisioned user", async () => {
    const app = await setupApp();
    const who = await resolve(app.integrationId, {
      headers: bearer(app.token),
      body: body(app, "u-1", { state: { x: 1 }, action: { widgetId: "w" }, context: { c: 1 } }),
    });
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
    expect(who.principal).toMatchObject({
      tenantId: app.tenant.tenantId,
      userId: who.userId,
      tokenId: "",
      identity: `app-user:${app.integrationId}:${who.userId}`,
    });
    const [mapping] = await systemQuery(`SELECT user_id, provider, company_external_id, external_id FROM external_users WHERE tenant_id = $1`, [
      app.tenant.tenantId,
    ]);
    expect(mapping).toEqual({ user_id: who.userId, provider: "host", company_external_id: app.companyExternalId, external_id: "u-1" });
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
      expect([
        listed.status,
        listed.headers.get("access-control-allow-origin"),
        listed.headers.get("access-control-allow-methods"),
        listed.headers.get("access-control-allow-headers"),
      ]).toEqual([204, "https://host.example", "POST, OPTIONS", "Authorization, Content-Type, X-App-Token"]);
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
    const posted = await call("POST", "/access/external-users", {
      auth: app.tenant.auth,
      body: { provider: "host", external_id: "pre", company_external_id: app.companyExternalId },
    });
    expect(posted.status).toBe(201);
    expect((await resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "pre") })).userId).toBe(posted.json.data.user_id);
    // Pre-provisioned for its company: another company's host naming the same id is an unknown person.
    const other = await addIntegration(app, `co-b-${crypto.randomUUID().slice(0, 6)}`);
    const e2 = await refusal(resolve(other.integrationId, { headers: bearer(other.token), body: { company: other.companyExternalId, user: { id: "pre" } } }));
    expect([e2.status, e2.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("with autoCreateUsers false a mapping posted without a company binds to the first company that renders it", async () => {
    const app = await setupApp({ provider: bearerProvider({ autoCreateUsers: false }) });
    const other = await addIntegration(app, `co-b-${crypto.randomUUID().slice(0, 6)}`);
    const posted = await call("POST", "/access/external-users", { auth: app.tenant.auth, body: { provider: "host", external_id: "pre" } });
    expect([posted.status, posted.json.data.company_external_id]).toEqual([201, null]);
    expect((await resolve(other.integrationId, { headers: bearer(other.token), body: { company: other.companyExternalId, user: { id: "pre" } } })).userId).toBe(
      posted.json.data.user_id,
    );
    expect((await refusal(resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "pre") }))).status).toBe(403);
    const got = await call("GET", `/access/external-users/${posted.json.data.id}`, { auth: app.tenant.auth });
    expect(got.json.data.company_external_id).toBe(other.companyExternalId);
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
    const renders = await Promise.all(
      Array.from({ length: 5 }, () =>
        resolve(app.integrationId, { headers: bearer(app.token), body: body(app, "rush", { user: { id: "rush", email: "rush@example.com" } }) }),
      ),
    );
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
    expect((await resolve(standard.integrationId, { headers: bearer(standard.token), body: body(standard, "s-1") })).principal.permissions).toEqual([
      "entity:read",
    ]);

    const governed = await setupApp({
      policies: { users: { grants: [{ resource: "entity", actions: ["read"] }] } },
      policyGrants: [
        { resource: "entity", actions: ["read", "update"], resource_name: "Order" },
        { resource: "app", actions: ["read"] },
      ],
    });
    const who = await resolve(governed.integrationId, { headers: bearer(governed.token), body: body(governed, "p-1") });
    expect(who.principal.permissions).toEqual(["app:read"]);
    expect(who.principal.scoped).toEqual([{ resource: "entity", actions: ["read", "update"], resourceName: "Order", resourceId: null, entityType: null }]);
    expect([who.principal.userId, who.principal.identity]).toEqual([who.userId, `app-user:${governed.integrationId}:${who.userId}`]);
  });
});

// A page whose button shows the render user's config and permissions (`show`) and writes its own config (`paint`).
const profile = {
  main: {
    name: "Main",
    surfaces: { dashboard: "home" },
    pages: {
      home: {
        layout: [["me"]],
        widgets: {
          me: {
            widgetComponent: "button",
            actionHandlers: {
              show: [
                { kind: "debug", value: "{{ config.user }}" },
                { kind: "debug", value: "{{ permissions }}" },
              ],
              paint: [{ kind: "setPrincipalConfig", principalType: "user", config: { color: "{{ payload.color }}" } }],
            },
          },
        },
      },
    },
  },
};

interface Host {
  integrationId: string;
  token: string;
  companyExternalId: string;
}

/** Company A's integration (the app's) and company B's, both of provider `host`. */
async function twoCompanies(setup: Parameters<typeof setupApp>[0] = {}): Promise<{ app: App; a: Host; b: Host }> {
  const app = await setupApp({ dashboards: profile, ...setup });
  const b = await addIntegration(app, `co-b-${crypto.randomUUID().slice(0, 6)}`);
  return { app, a: { integrationId: app.integrationId, token: app.token, companyExternalId: app.companyExternalId }, b };
}

const asHost = (host: Host, user: string, extra: Record<string, unknown> = {}) => ({ company: host.companyExternalId, user: { id: user }, ...extra });

async function act(host: Host, user: string, handler: string, payload: Record<string, unknown> = {}) {
  const res = await run(host.integrationId, host.token, asHost(host, user, { action: { widgetId: "me", handler, payload } }));
  expect(res.status, res.text).toBe(200);
  return res.json.data as { notifications: unknown[]; debug?: unknown[] };
}

const whoIs = async (host: Host, user: string) => (await resolve(host.integrationId, { headers: bearer(host.token), body: asHost(host, user) })).userId;

/**
 * A mapping as migration 0018 leaves one made before the company was part of
 * the key: company NULL, its tenant user already in use. Written directly,
 * as the code that made such rows no longer exists.
 */
async function legacyMapping(tenantId: string, externalId: string): Promise<string> {
  const [user] = await systemQuery(`INSERT INTO users (tenant_id, name) VALUES ($1, 'legacy') RETURNING id`, [tenantId]);
  await systemQuery(`INSERT INTO external_users (tenant_id, provider, external_id, user_id) VALUES ($1, 'host', $2, $3)`, [tenantId, externalId, user.id]);
  return user.id;
}

const mappingsOf = (tenantId: string, externalId: string) =>
  systemQuery(`SELECT company_external_id, user_id FROM external_users WHERE tenant_id = $1 AND external_id = $2 ORDER BY company_external_id`, [
    tenantId,
    externalId,
  ]);

describe("one person per company", () => {
  it("company B's host sending company A's user id acts as another tenant user: A's config neither read nor overwritten, A's roles not used", async () => {
    const { app, a, b } = await twoCompanies();
    await act(a, "u-1", "paint", { color: "red" });
    const userA = await whoIs(a, "u-1");
    await createRole(app.tenant.auth, ["entity:read"], "reader");
    expect((await call("PUT", `/access/users/${userA}/roles`, { auth: app.tenant.auth, body: { role_names: ["reader"] } })).status).toBe(200);

    expect((await act(b, "u-1", "show")).debug).toEqual([{}, []]);
    await act(b, "u-1", "paint", { color: "blue" });
    const userB = await whoIs(b, "u-1");
    expect(userB).not.toBe(userA);

    expect((await act(a, "u-1", "show")).debug).toEqual([{ color: "red" }, ["entity:read"]]);
    expect((await act(b, "u-1", "show")).debug).toEqual([{ color: "blue" }, []]);
    const stored = await call("GET", `/apps/${app.specId}/principals/user/${userA}`, { auth: app.tenant.auth });
    expect(stored.json.data.config).toEqual({ color: "red" });
    expect(await mappingsOf(app.tenant.tenantId, "u-1")).toEqual(
      [
        { company_external_id: a.companyExternalId, user_id: userA },
        { company_external_id: b.companyExternalId, user_id: userB },
      ].sort((x, y) => x.company_external_id.localeCompare(y.company_external_id)),
    );
  });

  it("a host naming another company than its integration's is still refused, and an unknown integration id is 401", async () => {
    const { a, b } = await twoCompanies();
    const e = await refusal(resolve(b.integrationId, { headers: bearer(b.token), body: asHost(a, "u-1") }));
    expect([e.status, e.details.company_external_id]).toEqual([403, a.companyExternalId]);
    expect((await refusal(resolve(crypto.randomUUID(), { headers: bearer(b.token), body: asHost(b, "u-1") }))).status).toBe(401);
  });

  it("a mapping made before the company was part of the key binds to the first company that renders it; the other company gets a distinct person", async () => {
    const { app, a, b } = await twoCompanies();
    const legacy = await legacyMapping(app.tenant.tenantId, "old");
    expect(await whoIs(b, "old")).toBe(legacy);
    const fromA = await whoIs(a, "old");
    expect(fromA).not.toBe(legacy);
    expect(await whoIs(b, "old")).toBe(legacy);
    expect(await whoIs(a, "old")).toBe(fromA);
    const rows = await mappingsOf(app.tenant.tenantId, "old");
    expect(Object.fromEntries(rows.map((r) => [r.company_external_id, r.user_id]))).toEqual({ [a.companyExternalId]: fromA, [b.companyExternalId]: legacy });
  });

  it("concurrent first renders of a legacy mapping from two companies bind it once: one company gets it, the other one person of its own", async () => {
    const { app, a, b } = await twoCompanies();
    const legacy = await legacyMapping(app.tenant.tenantId, "both");
    const renders = await Promise.all([a, b, a, b, a, b].map((host) => whoIs(host, "both")));
    const ofA = new Set(renders.filter((_, i) => i % 2 === 0));
    const ofB = new Set(renders.filter((_, i) => i % 2 === 1));
    expect([ofA.size, ofB.size]).toEqual([1, 1]);
    const [userA, userB] = [...ofA, ...ofB];
    expect(userA).not.toBe(userB);
    expect([userA, userB]).toContain(legacy);
    expect(await mappingsOf(app.tenant.tenantId, "both")).toHaveLength(2);
  });

  it("concurrent first renders of one person of one company make one user, with or without a legacy mapping", async () => {
    const { app, a } = await twoCompanies();
    const legacy = await legacyMapping(app.tenant.tenantId, "legacy-rush");
    const bound = await Promise.all(Array.from({ length: 5 }, () => whoIs(a, "legacy-rush")));
    expect(new Set(bound)).toEqual(new Set([legacy]));
    const fresh = await Promise.all(Array.from({ length: 5 }, () => whoIs(a, "new-rush")));
    expect(new Set(fresh).size).toBe(1);
    expect(await mappingsOf(app.tenant.tenantId, "legacy-rush")).toEqual([{ company_external_id: a.companyExternalId, user_id: legacy }]);
    expect(await mappingsOf(app.tenant.tenantId, "new-rush")).toEqual([{ company_external_id: a.companyExternalId, user_id: fresh[0] }]);
  });
});

describe("email links never reach an administrator", () => {
  const claim = (host: Host, user: string, email: string) => run(host.integrationId, host.token, asHost(host, user, { user: { id: user, email } }));

  it("an email held by a user with *:* or any access permission, by role or by policy, makes a distinct person without them, with a WARNING", async () => {
    const { app, a } = await twoCompanies({ provider: bearerProvider({ allowEmailLink: true }) });
    const admin = app.tenant.auth;
    const holders: Record<string, string> = {};
    const holder = async (name: string, roles: string[] = []) => {
      const res = await call("POST", "/access/users", { auth: admin, body: { email: `${name}@example.com`, ...(roles.length && { role_names: roles }) } });
      expect(res.status, res.text).toBe(201);
      return (holders[name] = res.json.data.id);
    };
    await holder("root", ["admin"]);
    await holder("reader", [(await createRole(admin, ["access:read"])).name]);
    await holder("anyread", [(await createRole(admin, ["*:read"])).name]);
    const direct = await holder("direct");
    await assign(admin, (await createPolicy(admin, [{ resource: "access", actions: ["update"] }])).id, { user_id: direct });
    const bare = await createRole(admin, []);
    await holder("viarole", [bare.name]);
    await assign(admin, (await createPolicy(admin, [{ resource: "access", actions: ["*"] }])).id, { role_name: bare.name });

    for (const name of Object.keys(holders)) {
      const answer = await claim(a, `ext-${name}`, `${name.toUpperCase()}@example.com`);
      expect(answer.status, answer.text).toBe(200);
      expect([name, answer.json.data.notifications]).toEqual([name, [{ id: "email-link-refused", level: "WARNING", message: expect.any(String) }]]);
      const who = await whoIs(a, `ext-${name}`);
      expect([name, who === holders[name]]).toEqual([name, false]);
      const [user] = await systemQuery(`SELECT email FROM users WHERE id = $1`, [who]);
      expect(user.email).toBeNull();
      const permissions = (await resolve(a.integrationId, { headers: bearer(a.token), body: asHost(a, `ext-${name}`) })).principal.permissions;
      expect([name, permissions]).toEqual([name, []]);
      // Later renders find the distinct person and say nothing more.
      expect((await claim(a, `ext-${name}`, `${name}@example.com`)).json.data.notifications).toEqual([]);
    }
  });

  it("an email held by a user without access permissions still links, with no warning", async () => {
    const { app, a } = await twoCompanies({ provider: bearerProvider({ allowEmailLink: true }) });
    const role = await createRole(app.tenant.auth, ["entity:*", "app:read"]);
    const res = await call("POST", "/access/users", { auth: app.tenant.auth, body: { email: "clerk@example.com", role_names: [role.name] } });
    expect(res.status, res.text).toBe(201);
    const answer = await claim(a, "ext-clerk", "clerk@example.com");
    expect([answer.status, answer.json.data.notifications]).toEqual([200, []]);
    expect(await whoIs(a, "ext-clerk")).toBe(res.json.data.id);
  });
});
