// Secret references held in app, integration and principal config, through
// POST /apps/run and POST /apps/{specId}/preview against the scripted
// outbound server: the upstream gets each secret's value (auth profile,
// headers, inline actions and jobs), the answer never shows it, and a
// missing one fails only the source or step that reads it.
import { describe, expect, it } from "vitest";
import { basic, call, systemQuery, type TenantCreds } from "../support/api";
import { scenario, type Scenario } from "../support/outbound";
import { hostFor, hostProvider, type Host } from "./host-fixture";

const TOKEN = "sk_live_crm_7f3a91";
const INTEGRATION_KEY = "int_key_2c9e40";
const COMPANY_KEY = "co_key_4b21e8";
const TEAM_KEY = "team_key_9d02c7";
const USER_KEY = "user_key_55e1aa";
const ALL = [TOKEN, INTEGRATION_KEY, COMPANY_KEY, TEAM_KEY, USER_KEY];

function specFor(s: Scenario) {
  return {
    auth: { crm: { type: "bearer", token: "{{ config.app.crmToken }}" } },
    jobs: {
      sync: {
        input: { key: "{{ config.company.key }}" },
        actions: [{ stepId: "call", name: "http", config: { url: s.url("/job"), headers: { "X-Company": "{{ input.key }}" } } }],
        output: "{{ outputs.call.body }}",
      },
    },
    dashboards: {
      main: {
        name: "Main",
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: {
              orders: {
                $http: {
                  url: s.url("/orders"),
                  auth: "crm",
                  headers: { "X-Integration": "{{ config.integration.key }}", "X-Company": "{{ config.company.key }}" },
                  rowsPath: "rows",
                },
              },
              people: { $http: { url: s.url("/people"), headers: { "X-Team": "{{ config.team.key }}", "X-User": "{{ config.user.key }}" } } },
            },
            layout: [["shown", "grid", "list", "act"]],
            widgets: {
              shown: {
                widgetComponent: "text",
                config: {
                  token: "{{ config.app.crmToken }}",
                  header: "Bearer {{ config.app.crmToken }}",
                  size: "{{ $length(config.app.crmToken) }}",
                  title: "{{ config.app.title }}",
                },
              },
              grid: { widgetComponent: "data_grid", dataSource: "orders" },
              list: { widgetComponent: "list", dataSource: "people" },
              act: {
                widgetComponent: "button",
                actionHandlers: {
                  push: [
                    {
                      kind: "actions",
                      stepId: "pushed",
                      input: { key: "{{ config.company.key }}" },
                      actions: [{ stepId: "call", name: "http", config: { url: s.url("/push"), auth: "crm", headers: { "X-Company": "{{ input.key }}" } } }],
                      output: "{{ outputs.call.body }}",
                    },
                    { kind: "debug", value: "{{ outputs.pushed }}" },
                  ],
                  job: [
                    { kind: "job", job: "sync", stepId: "synced" },
                    { kind: "debug", value: "{{ outputs.synced }}" },
                  ],
                },
              },
            },
          },
        },
      },
    },
    providers: hostProvider,
    // What the host sees of a failure is its code: the message names it.
    messages: { HTTP_AUTH_SECRET_MISSING: "{{ error.code }}: {{ error.message }}" },
  };
}

const upstream = () =>
  scenario({
    "/orders": [{ json: { rows: [{ id: 1, echo: TOKEN }] } }],
    "/people": [{ json: [{ name: "ada" }] }],
    "/push": [{ json: { got: TOKEN, ok: true } }],
    "/job": [{ json: { ok: true } }],
  });

async function ok(res: Awaited<ReturnType<typeof call>>) {
  expect(res.status, res.text).toBe(200);
  return res.json.data;
}

async function setSecret(t: TenantCreds, scope: string, name: string, value: string, principalId?: string) {
  const res = await call("POST", "/access/secrets", { auth: t.auth, body: { scope, name, value, ...(principalId && { principal_id: principalId }) } });
  expect(res.status, res.text).toBe(201);
}

async function putPrincipal(host: Host, type: string, id: string, config: object) {
  const res = await call("PUT", `/apps/${host.specId}/principals/${type}/${id}`, { auth: host.t.auth, body: { config } });
  expect(res.status, res.text).toBe(200);
}

/** The props of widget `id` wherever the answer's blocks hold it. */
function propsOf(answer: { surfaces: { blocks: unknown[] }[] }, id: string): Record<string, unknown> | undefined {
  const pending: unknown[] = answer.surfaces.flatMap((s) => s.blocks);
  while (pending.length) {
    const block = pending.pop() as { id?: string; props?: Record<string, unknown>; children?: unknown[] };
    if (block.id === id && block.props) return block.props;
    pending.push(...(block.children ?? []));
  }
  return undefined;
}

const path = (seen: { path: string }) => seen.path;

/** An activated app whose config scopes reference secrets of every scope (the user's set for u-1 once it exists). */
async function configured(s: Scenario, options: { secrets: boolean }) {
  const host = await hostFor(specFor(s), { config: { crmToken: "{{ secrets.tenant.CRM_TOKEN }}", title: "Orders" } });
  const integration = await call("PUT", `/apps/${host.specId}/integrations/${host.integrationId}`, {
    auth: host.t.auth,
    body: { config: { key: "{{ secrets.tenant.INTEGRATION_KEY }}" } },
  });
  expect(integration.status, integration.text).toBe(200);
  await putPrincipal(host, "company", "acme", { key: "{{ secrets.company.COMPANY_KEY }}" });
  await putPrincipal(host, "team", "t-1", { key: "{{ secrets.team.TEAM_KEY }}" });
  // The first render provisions the app user whose config and secret the user scope reads.
  await ok(await host.render({ team: "t-1" }));
  const [{ user_id: userId }] = await systemQuery<{ user_id: string }>(`SELECT user_id FROM external_users WHERE tenant_id = $1 AND external_id = 'u-1'`, [
    host.t.tenantId,
  ]);
  await putPrincipal(host, "user", userId, { key: "{{ secrets.user.USER_KEY }}" });
  if (options.secrets) {
    await setSecret(host.t, "tenant", "CRM_TOKEN", TOKEN);
    await setSecret(host.t, "tenant", "INTEGRATION_KEY", INTEGRATION_KEY);
    await setSecret(host.t, "company", "COMPANY_KEY", COMPANY_KEY, "acme");
    await setSecret(host.t, "team", "TEAM_KEY", TEAM_KEY, "t-1");
    await setSecret(host.t, "user", "USER_KEY", USER_KEY, userId);
  }
  return host;
}

describe("secret references in config, rendered for a host", () => {
  it("send each scope's secret upstream (auth profile and headers) and answer it, and whatever was computed from it, as ***", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: true });
    const before = (await s.requests()).length;
    const res = await host.render({ team: "t-1" });
    const answer = await ok(res);
    const seen = (await s.requests()).slice(before);
    const orders = seen.find((r) => r.path === "/orders")!;
    const people = seen.find((r) => r.path === "/people")!;
    expect([orders.headers.authorization, orders.headers["x-integration"], orders.headers["x-company"]]).toEqual([
      `Bearer ${TOKEN}`,
      INTEGRATION_KEY,
      COMPANY_KEY,
    ]);
    expect([people.headers["x-team"], people.headers["x-user"]]).toEqual([TEAM_KEY, USER_KEY]);
    expect(propsOf(answer, "shown")).toEqual({ token: "***", header: "Bearer ***", size: "***", title: "Orders" });
    // The upstream echoed the token back: the row shows it masked.
    expect(answer.referenceData.grid.rows).toEqual([{ id: 1, echo: "***" }]);
    expect(answer.referenceData.list.rows).toEqual([{ name: "ada" }]);
    expect(answer.notifications).toEqual([]);
    for (const value of ALL) expect(res.text).not.toContain(value);
  });

  it("a missing secret fails only the sources reading it (HTTP_AUTH_SECRET_MISSING), sending nothing; the other widgets render", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: false });
    // Only the token behind the profile, and the user's key a header reads, are missing.
    await setSecret(host.t, "tenant", "INTEGRATION_KEY", INTEGRATION_KEY);
    await setSecret(host.t, "company", "COMPANY_KEY", COMPANY_KEY, "acme");
    await setSecret(host.t, "team", "TEAM_KEY", TEAM_KEY, "t-1");
    const res = await host.render({ team: "t-1" });
    const answer = await ok(res);
    const byId = [...answer.notifications].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
    expect(byId).toEqual([
      {
        id: "widget-error-grid",
        level: "ERROR",
        message: "HTTP_AUTH_SECRET_MISSING: The auth profile crm reads secrets that are not set: secrets.tenant.CRM_TOKEN",
        details: { code: "HTTP_AUTH_SECRET_MISSING", source: "orders" },
      },
      {
        id: "widget-error-list",
        level: "ERROR",
        message: "HTTP_AUTH_SECRET_MISSING: The $http of data source people reads secrets that are not set: secrets.user.USER_KEY",
        details: { code: "HTTP_AUTH_SECRET_MISSING", source: "people" },
      },
    ]);
    expect(propsOf(answer, "shown")).toEqual({ token: "***", header: "Bearer ***", size: "***", title: "Orders" });
    expect(propsOf(answer, "act")).toBeDefined();
    expect(await s.requests()).toEqual([]);
    expect(res.text).not.toContain("missing-secret");
    for (const value of ALL) expect(res.text).not.toContain(value);
  });
});

describe("secret references in a user's own config", () => {
  it("reach the user's own secrets only: a tenant or company reference there resolves as missing and nothing is sent", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: true });
    const [{ user_id: userId }] = await systemQuery<{ user_id: string }>(`SELECT user_id FROM external_users WHERE tenant_id = $1 AND external_id = 'u-1'`, [
      host.t.tenantId,
    ]);
    // What an app user could write into its own config through setPrincipalConfig.
    await putPrincipal(host, "user", userId, { key: "{{ secrets.tenant.CRM_TOKEN }}" });
    const before = (await s.requests()).length;
    const res = await host.render({ team: "t-1" });
    const answer = await ok(res);
    expect(answer.notifications).toEqual([
      {
        id: "widget-error-list",
        level: "ERROR",
        message: "HTTP_AUTH_SECRET_MISSING: The $http of data source people reads secrets that are not set: secrets.tenant.CRM_TOKEN",
        details: { code: "HTTP_AUTH_SECRET_MISSING", source: "people" },
      },
    ]);
    const seen = (await s.requests()).slice(before);
    expect(seen.map(path)).toEqual(["/orders"]);
    expect(seen[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    await putPrincipal(host, "user", userId, { key: "{{ secrets.company.COMPANY_KEY }}" });
    const company = await ok(await host.render({ team: "t-1" }));
    expect(company.notifications.map((n: { id: string }) => n.id)).toEqual(["widget-error-list"]);
    for (const value of ALL) expect(res.text).not.toContain(value);
  });
});

describe("secret references in config, in commands", () => {
  it("an inline action's auth profile and input, and a job's input, get the values; the outputs answer them as ***", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: true });
    const before = (await s.requests()).length;
    const pushed = await host.render({ team: "t-1", action: { widgetId: "act", handler: "push" } });
    const answer = await ok(pushed);
    expect(answer.debug).toEqual([{ got: "***", ok: true }]);
    const job = await ok(await host.render({ team: "t-1", action: { widgetId: "act", handler: "job" } }));
    expect(job.debug).toEqual([{ ok: true }]);
    const seen = (await s.requests()).slice(before);
    const push = seen.find((r) => r.path === "/push")!;
    expect([push.headers.authorization, push.headers["x-company"]]).toEqual([`Bearer ${TOKEN}`, COMPANY_KEY]);
    expect(seen.find((r) => r.path === "/job")!.headers["x-company"]).toBe(COMPANY_KEY);
    for (const value of ALL) expect(pushed.text).not.toContain(value);
  });

  it("a step reading a missing secret fails alone (a job's input: Missing secrets.; its profile: HTTP_AUTH_SECRET_MISSING); the screens still render", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: false });
    const job = await ok(await host.render({ team: "t-1", action: { widgetId: "act", handler: "job" } }));
    expect(job.notifications).toContainEqual({ id: "step-error-synced", level: "ERROR", message: "The job step synced failed: Missing secrets." });
    expect(job.debug).toBeUndefined();
    await setSecret(host.t, "company", "COMPANY_KEY", COMPANY_KEY, "acme");
    const pushed = await ok(await host.render({ team: "t-1", action: { widgetId: "act", handler: "push" } }));
    expect(pushed.notifications).toContainEqual({
      id: "step-error-pushed",
      level: "ERROR",
      message: "HTTP_AUTH_SECRET_MISSING: The auth profile crm reads secrets that are not set: secrets.tenant.CRM_TOKEN",
    });
    expect(pushed.debug).toBeUndefined();
    expect(propsOf(pushed, "shown")?.token).toBe("***");
    expect((await s.requests()).map(path)).toEqual([]);
  });
});

describe("secret references in config, in an author's preview", () => {
  it("resolve for a caller who may change the activation; for an app:read caller every reference is missing", async () => {
    const s = await upstream();
    const host = await configured(s, { secrets: true });
    const before = (await s.requests()).length;
    const preview = (auth: string) => call("POST", `/apps/${host.specId}/preview`, { auth, body: { identity: { company_external_id: "acme" } } });
    const owner = await preview(host.t.auth);
    const answer = await ok(owner);
    const orders = (await s.requests()).slice(before).find((r) => r.path === "/orders")!;
    expect([orders.headers.authorization, orders.headers["x-company"]]).toEqual([`Bearer ${TOKEN}`, COMPANY_KEY]);
    expect(propsOf(answer, "shown")?.token).toBe("***");
    for (const value of ALL) expect(owner.text).not.toContain(value);

    const role = `reader-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call("POST", "/access/roles", { auth: host.t.auth, body: { name: role, permissions: ["app:read"] } })).status).toBe(201);
    const minted = await call("POST", "/access/api-tokens", { auth: host.t.auth, body: { name: role, role_names: [role] } });
    expect(minted.status, minted.text).toBe(201);
    const sent = (await s.requests()).length;
    const reader = await ok(await preview(basic(minted.json.data.client_id, minted.json.data.client_secret)));
    // Without an integration the integration's key is no header; the company's is, and it is missing for this caller.
    expect(reader.notifications).toContainEqual({
      id: "widget-error-grid",
      level: "ERROR",
      message: "HTTP_AUTH_SECRET_MISSING: The $http of data source orders reads secrets that are not set: secrets.company.COMPANY_KEY",
      // The author's preview also reads the cause's own message.
      details: {
        code: "HTTP_AUTH_SECRET_MISSING",
        source: "orders",
        message: "The $http of data source orders reads secrets that are not set: secrets.company.COMPANY_KEY",
      },
    });
    expect(propsOf(reader, "shown")?.token).toBe("***");
    expect((await s.requests()).slice(sent).map(path)).not.toContain("/orders");
  });
});
