// POST /apps/run/{integrationId} through the gateway, set up the way an
// operator does it: a spec published, activated with its policy, a
// company registered, an integration and its app token minted.
import { describe, expect, it, vi } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { roleToken } from "../access/fixture";
import { insertSpec, putConfig, registerCompany } from "./fixture";
import { hostFor, hostProvider } from "./host-fixture";

const ORIGIN = "https://host.example";

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home", panel: { page: "home" } },
      pages: {
        home: {
          dataSources: { products: { $query: { typeName: "Product", sort: [{ path: ["name"], direction: "asc" }] } } },
          widgets: {
            title: { widgetComponent: "heading", config: { text: "{{ config.app.title }} for {{ identity.user_external_id }}" } },
            grid: { widgetComponent: "data_grid", dataSource: "products", config: { count: "{{ $count(page.dataSources.products) }}" } },
          },
          layout: [["title"], ["grid"]],
        },
      },
    },
  },
  providers: {
    host: {
      auth: { type: "bearer" },
      autoCreateUsers: true,
      identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
    },
  },
  policies: { viewer: { grants: [{ resource: "entity", actions: ["read"], resourceName: "Product" }] } },
  defaultPolicy: "viewer",
};

async function productType(t: TenantCreds) {
  await createProductType(t.auth);
  await createEntity(t.auth, "Product", "Bolt", { sku: "B-1", title: "Bolt", price: 2 });
  await createEntity(t.auth, "Product", "Anchor", { sku: "A-1", title: "Anchor", price: 9 });
}

/** A rendering integration of a fresh tenant: its ids and its app token. */
async function host() {
  const t = await createTenant();
  await productType(t);
  const published = await insertSpec(t, [spec]);
  expect((await putConfig(t, published.id, { config: { title: "Catalogue" } })).status).toBe(200);
  const company = await registerCompany(t, "host", "acme");
  const integration = await call("POST", `/apps/${published.id}/integrations`, {
    auth: t.auth,
    body: { external_company_id: company.id, allowed_origins: [ORIGIN] },
  });
  expect(integration.status, integration.text).toBe(201);
  const integrationId = integration.json.data.id as string;
  const token = await call("PUT", `/apps/${published.id}/integrations/${integrationId}/token`, { auth: t.auth });
  expect(token.status, token.text).toBe(201);
  return { t, specId: published.id, integrationId, token: token.json.raw_token as string };
}

const render = (integrationId: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  call("POST", `/apps/run/${integrationId}`, { auth: token === undefined ? undefined : `Bearer ${token}`, body, headers });

describe("POST /apps/run/{integrationId}", () => {
  it("renders every placement of the dashboard for the host's user, with its widgets' rows and the state to post back", async () => {
    const { t, integrationId, token } = await host();
    const res = await render(integrationId, token, { user: "u-1", company: "acme", context: { locale: "en" } }, { Origin: ORIGIN });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    const { surfaces, referenceData, state, notifications } = res.json.data;
    expect(surfaces.map((s: { type: string; page: string }) => [s.type, s.page])).toEqual([
      ["dashboard", "home"],
      ["panel", "home"],
    ]);
    expect(surfaces[0].blocks).toEqual([
      { component: "row", children: [{ id: "title", widgetComponent: "heading", props: { text: "Catalogue for u-1" } }] },
      { component: "row", children: [{ id: "grid", widgetComponent: "data_grid", props: { count: 2 } }] },
    ]);
    expect(referenceData.grid.total).toBe(2);
    expect(referenceData.grid.rows.map((r: { name: string }) => r.name)).toEqual(["Anchor", "Bolt"]);
    expect(state).toMatchObject({ dashboard: "main", page: null, modals: [] });
    expect(notifications).toEqual([]);
    // The first render provisioned the host's user and its mapping.
    const mapped = await systemQuery(`SELECT provider, external_id FROM external_users WHERE tenant_id = $1`, [t.tenantId]);
    expect(mapped).toEqual([{ provider: "host", external_id: "u-1" }]);

    const again = await render(integrationId, token, { user: "u-1", company: "acme", state }, { Origin: ORIGIN });
    expect(again.status, again.text).toBe(200);
    expect(again.json.data.state).toEqual(state);
  });

  it("answers a listed origin's preflight with the CORS grant, an unlisted one without it", async () => {
    const { integrationId } = await host();
    const listed = await call("OPTIONS", `/apps/run/${integrationId}`, { headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST" } });
    expect(listed.status).toBe(204);
    expect(listed.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    expect(listed.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    const other = await call("OPTIONS", `/apps/run/${integrationId}`, { headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" } });
    expect(other.status).toBe(204);
    expect(other.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("refuses bad credentials, other companies and origins, a rotated token at once, and bodies it cannot take", async () => {
    const { t, specId, integrationId, token } = await host();
    const body = { user: "u-1", company: "acme" };
    expectError(await render(integrationId, undefined, body), 401, "UNAUTHORIZED");
    expectError(await render(integrationId, `svc_at_${"0".repeat(64)}`, body), 401, "UNAUTHORIZED");
    expectError(await call("POST", `/apps/run/${integrationId}`, { auth: t.auth, body }), 401, "UNAUTHORIZED");
    expectError(await render(crypto.randomUUID(), token, body), 401, "UNAUTHORIZED");
    expectError(await render(integrationId, token, { user: "u-1", company: "globex" }), 403, "FORBIDDEN");
    expectError(await render(integrationId, token, body, { Origin: "https://evil.example" }), 403, "FORBIDDEN");
    expectError(await render(integrationId, token, { ...body, action: { widgetId: "grid", handler: "open" } }), 422, "UNPROCESSABLE_ENTITY");
    expectError(await render(integrationId, token, [body]), 422, "VALIDATION_FAILED");
    expectError(
      await call("POST", `/apps/run/${integrationId}`, {
        auth: `Bearer ${token}`,
        rawBody: `{"user":"u\\u0000","company":"acme"}`,
        headers: { "Content-Type": "application/json" },
      }),
      422,
      "VALIDATION_FAILED",
    );
    expectError(
      await call("POST", `/apps/run/${integrationId}`, {
        auth: `Bearer ${token}`,
        rawBody: `{"state":${"[".repeat(10000)}${"]".repeat(10000)}}`,
        headers: { "Content-Type": "application/json" },
      }),
      422,
      "VALIDATION_FAILED",
    );

    const rotated = await call("PUT", `/apps/${specId}/integrations/${integrationId}/token?rotate=true`, { auth: t.auth });
    expect(rotated.status).toBe(200);
    expectError(await render(integrationId, token, body), 401, "UNAUTHORIZED");
    expect((await render(integrationId, rotated.json.raw_token, body)).status).toBe(200);
  });

  it("drops a widget whose source the app user may not read, with its notification, and answers the rest", async () => {
    const { t, specId, integrationId, token } = await host();
    // The activation's policy no longer lets app users read products.
    const narrowed = await call("PUT", `/definition/specs/${specId}`, {
      auth: t.auth,
      body: {
        name: (await call("GET", `/definition/specs/${specId}`, { auth: t.auth })).json.data.name,
        spec_document: { ...spec, policies: { viewer: { grants: [{ resource: "entity", actions: ["read"], resourceName: "Order" }] } } },
      },
    });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect((await putConfig(t, specId, {})).status).toBe(200);
    const res = await render(integrationId, token, { user: "u-2", company: "acme" });
    expect(res.status, res.text).toBe(200);
    const blocks = res.json.data.surfaces[0].blocks.flatMap((b: { children: { id: string }[] }) => b.children.map((w) => w.id));
    expect(blocks).toEqual(["title"]);
    expect(res.json.data.notifications.map((n: { id: string; level: string }) => [n.id, n.level])).toContainEqual(["widget-error-grid", "ERROR"]);
    expect(res.json.data.referenceData.grid).toBeUndefined();
  });
});

describe("POST /apps/{specId}/preview", () => {
  const preview = (t: { auth: string }, specId: string, body?: unknown) =>
    call("POST", `/apps/${specId}/preview`, { auth: t.auth, ...(body !== undefined && { body }) });

  it("renders the activation's spec for the caller, with the identity and config patches given, saving nothing", async () => {
    const { t, specId } = await host();
    const before = await systemQuery(`SELECT count(*)::int AS n FROM external_users WHERE tenant_id = $1`, [t.tenantId]);
    const res = await preview(t, specId, { identity: { user_external_id: "author" }, config: { app: { title: "Draft" } } });
    expect(res.status, res.text).toBe(200);
    const blocks = res.json.data.surfaces[0].blocks;
    expect(blocks[0].children[0].props).toEqual({ text: "Draft for author" });
    expect(res.json.data.referenceData.grid.total).toBe(2);
    // The stored config is unchanged, and no user or mapping was provisioned.
    expect((await call("GET", `/apps/${specId}/config`, { auth: t.auth })).json.data.config).toEqual({ title: "Catalogue" });
    expect(await systemQuery(`SELECT count(*)::int AS n FROM external_users WHERE tenant_id = $1`, [t.tenantId])).toEqual(before);
    // With no body: the stored config, no identity.
    const bare = await preview(t, specId);
    expect(bare.status, bare.text).toBe(200);
    expect(bare.json.data.surfaces[0].blocks[0].children[0].props).toEqual({ text: "Catalogue for " });
  });

  it("renders a document or a kept version given instead, checked as a publish checks it", async () => {
    const { t, specId } = await host();
    const draft = { ...spec, dashboards: { main: { ...spec.dashboards.main, surfaces: { dashboard: "home" } } } };
    const res = await preview(t, specId, { spec_document: draft, identity: { user_external_id: "a" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.surfaces.map((s: { type: string }) => s.type)).toEqual(["dashboard"]);
    expect((await preview(t, specId, { spec_version: 1 })).status).toBe(200);
    const bad = expectError(await preview(t, specId, { spec_document: { pages: {} } }), 422, "VALIDATION_FAILED");
    expect(bad.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expectError(await preview(t, specId, { spec_version: 9 }), 422, "VALIDATION_FAILED");
    expectError(await preview(t, specId, { action: { widgetId: "grid", handler: "open" } }), 422, "UNPROCESSABLE_ENTITY");
    expectError(await preview(t, specId, { config: { nowhere: {} } }), 422, "VALIDATION_FAILED");
  });

  it("needs app:read, and an activation of a spec the tenant can see", async () => {
    const { t, specId } = await host();
    const reader = await roleToken(t.auth, ["entity:read"]);
    expectError(await preview(reader, specId, {}), 403, "FORBIDDEN");
    expectError(await preview(t, crypto.randomUUID(), {}), 404, "NOT_FOUND");
    const stranger = await createTenant();
    expectError(await preview(stranger, specId, {}), 404, "NOT_FOUND");
    const unactivated = await insertSpec(t, [spec]);
    expectError(await preview(t, unactivated.id, {}), 404, "NOT_FOUND");
  });
});

describe("a widget a failure drops, and a posted state that is no object", () => {
  const failing = {
    dashboards: {
      main: {
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: { bad: { $rows: "{{ 'not rows' }}" } },
            widgets: { broken: { widgetComponent: "data_grid", dataSource: "bad" }, fine: { widgetComponent: "text", config: { text: "ok" } } },
            layout: [["broken", "fine"]],
          },
        },
      },
    },
    providers: hostProvider,
  };
  const CAUSE = "The $rows of data source bad must give an array";

  it("starts a fresh state for a state that is absent, null or not an object, at the host and in the preview", async () => {
    const h = await hostFor(failing);
    for (const state of [null, "home", [1], 3]) {
      const res = await h.render({ state });
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.state).toEqual({ dashboard: "main", page: null, params: {}, data: {}, widgets: {}, modals: [] });
      const previewed = await call("POST", `/apps/${h.specId}/preview`, { auth: h.t.auth, body: { state } });
      expect(previewed.status, previewed.text).toBe(200);
      expect(previewed.json.data.state.page).toBeNull();
    }
  });

  it("says what dropped the widget (code and source) to the host, its message to the author's preview only, and logs it as one line", async () => {
    const h = await hostFor(failing);
    const logged = vi.spyOn(console, "log");
    try {
      const res = await h.render();
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.notifications).toEqual([
        {
          id: "widget-error-broken",
          level: "ERROR",
          message: "The widget broken could not be shown.",
          details: { code: "UNPROCESSABLE_ENTITY", source: "bad" },
        },
      ]);
      const lines = logged.mock.calls
        .map(([line]) => (typeof line === "string" && line.startsWith("{") ? JSON.parse(line) : {}))
        .filter((line) => line.msg === "app widget dropped");
      expect(lines).toEqual([
        expect.objectContaining({
          level: "warn",
          integration: h.integrationId,
          spec: h.specId,
          widget: "broken",
          source: "bad",
          code: "UNPROCESSABLE_ENTITY",
          message: CAUSE,
        }),
      ]);
    } finally {
      logged.mockRestore();
    }
    const previewed = await call("POST", `/apps/${h.specId}/preview`, { auth: h.t.auth, body: {} });
    expect(previewed.json.data.notifications).toEqual([
      {
        id: "widget-error-broken",
        level: "ERROR",
        message: "The widget broken could not be shown.",
        details: { code: "UNPROCESSABLE_ENTITY", source: "bad", message: CAUSE },
      },
    ]);
  });
});
