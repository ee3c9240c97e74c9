// The consent rule of a shared spec as a pure function: which changes between
// the accepted document and a newer one widen what the consumer runs, and
// which version an unpinned consumer activation therefore uses.
import { describe, expect, it } from "vitest";
import { versionInUse, widenings } from "../../src/apps/consent";
import type { SpecDocument } from "../../src/definition/language/spec-schema";

const dashboards = {
  main: { surfaces: { dashboard: "home" }, pages: { home: { layout: [["w"]] } }, widgets: { w: { widgetComponent: "text", config: { text: "Hi" } } } },
};

const doc = (extra: Record<string, unknown> = {}): SpecDocument => ({ dashboards, ...extra }) as SpecDocument;

/** A document whose home page has these sources and whose widget `w` has these handlers. */
const page = (dataSources: Record<string, unknown>, actionHandlers: Record<string, unknown[]> = {}, extra: Record<string, unknown> = {}): SpecDocument =>
  doc({
    dashboards: {
      main: {
        surfaces: { dashboard: "home" },
        pages: { home: { layout: [["w"]], dataSources, widgets: { w: { widgetComponent: "button", actionHandlers } } } },
      },
    },
    ...extra,
  });

const policies = (grants: Record<string, unknown[]>, defaultPolicy?: string) => ({
  policies: Object.fromEntries(Object.entries(grants).map(([k, g]) => [k, { grants: g }])),
  ...(defaultPolicy && { defaultPolicy }),
});

const read = { resource: "entity", actions: ["read"], resourceName: "Order" };
const home = "dashboards.main.pages.home";
const click = `${home}.widgets.w.actionHandlers.click`;

describe("widenings", () => {
  it("finds nothing between a document and itself, or a copy with its keys in another order", () => {
    const a = doc({
      ...policies({ viewer: [read] }, "viewer"),
      providers: { host: { auth: { type: "bearer" } } },
      jobs: { j: { actions: [{ name: "pipe", config: { a: 1, b: 2 } }] } },
    });
    expect(widenings(a, a)).toEqual([]);
    const reordered = doc({
      jobs: { j: { actions: [{ config: { b: 2, a: 1 }, name: "pipe" }] } },
      providers: { host: { auth: { type: "bearer" } } },
      ...policies({ viewer: [{ resourceName: "Order", actions: ["read"], resource: "entity" }] }, "viewer"),
    });
    expect(widenings(a, reordered)).toEqual([]);
  });

  it("lets everything a host sees change freely: widgets, labels, pages, functions, messages, config values", () => {
    const next = doc({
      dashboards: {
        main: {
          surfaces: { dashboard: "home", panel: "side" },
          pages: { home: { layout: [["w", "x"]] }, side: { layout: [] } },
          widgets: { w: { widgetComponent: "text", config: { text: "Bye" } }, x: { widgetComponent: "badge" } },
        },
      },
      functions: { twice: "function($a) { $a * 2 }" },
      messages: { FORBIDDEN: "No" },
      config: { app: { limit: 5 } },
    });
    expect(widenings(doc(), next)).toEqual([]);
  });

  describe("policies", () => {
    it("flags a grant added to a policy, to a new policy, or an action added to a grant", () => {
      const accepted = doc(policies({ viewer: [read] }));
      expect(widenings(accepted, doc(policies({ viewer: [read, { resource: "workflow", actions: ["read"] }] })))).toEqual([
        { code: "policy_widened", path: "policies.viewer.grants[1]" },
      ]);
      expect(widenings(accepted, doc(policies({ viewer: [read], admin: [{ resource: "access", actions: ["update"] }] })))).toEqual([
        { code: "policy_widened", path: "policies.admin.grants[0]" },
      ]);
      expect(widenings(accepted, doc(policies({ viewer: [{ ...read, actions: ["read", "delete"] }] })))).toEqual([
        { code: "policy_widened", path: "policies.viewer.grants[0]" },
      ]);
    });

    it("flags a grant losing its narrowing or narrowed to something else, and a grant moved to another policy", () => {
      const accepted = doc(policies({ viewer: [read], other: [] }));
      expect(widenings(accepted, doc(policies({ viewer: [{ resource: "entity", actions: ["read"] }] })))).toEqual([
        { code: "policy_widened", path: "policies.viewer.grants[0]" },
      ]);
      expect(widenings(accepted, doc(policies({ viewer: [{ ...read, resourceName: "Invoice" }] })))).toEqual([
        { code: "policy_widened", path: "policies.viewer.grants[0]" },
      ]);
      expect(widenings(accepted, doc(policies({ viewer: [], other: [read] })))).toEqual([{ code: "policy_widened", path: "policies.other.grants[0]" }]);
    });

    it("accepts narrowing: fewer actions, a narrowed grant, a removed grant or policy, a grant split in two", () => {
      const accepted = doc(policies({ viewer: [{ resource: "entity", actions: ["read", "update"] }], editor: [{ resource: "app", actions: ["read"] }] }));
      expect(widenings(accepted, doc(policies({ viewer: [{ resource: "entity", actions: ["read"] }] })))).toEqual([]);
      expect(widenings(accepted, doc(policies({ viewer: [read, { resource: "entity", actions: ["update"], resourceName: "Order" }] })))).toEqual([]);
      expect(widenings(accepted, doc(policies({ viewer: [], editor: [{ resource: "app", actions: ["read"], resourceName: "$app_config" }] })))).toEqual([]);
      expect(widenings(accepted, doc())).toEqual([]);
    });

    it("treats $app_config as the activation whichever field names it", () => {
      const accepted = doc(policies({ p: [{ resource: "app", actions: ["read"], resourceName: "$app_config" }] }));
      expect(widenings(accepted, doc(policies({ p: [{ resource: "app", actions: ["read"], resourceId: "$app_config" }] })))).toEqual([]);
      expect(widenings(accepted, doc(policies({ p: [{ resource: "app", actions: ["read"], resourceId: "7d6f0c0e-0000-4000-8000-000000000000" }] })))).toEqual([
        { code: "policy_widened", path: "policies.p.grants[0]" },
      ]);
    });

    it("flags a defaultPolicy moved to a policy that gives more, not to one that gives as much or less", () => {
      const both = policies({ viewer: [read], editor: [read, { resource: "entity", actions: ["update"] }] });
      expect(widenings(doc({ ...both, defaultPolicy: "viewer" }), doc({ ...both, defaultPolicy: "editor" }))).toEqual([
        { code: "policy_widened", path: "defaultPolicy" },
      ]);
      expect(widenings(doc({ ...both, defaultPolicy: "editor" }), doc({ ...both, defaultPolicy: "viewer" }))).toEqual([]);
      expect(widenings(doc(both), doc({ ...both, defaultPolicy: "viewer" }))).toEqual([{ code: "policy_widened", path: "defaultPolicy" }]);
      expect(widenings(doc({ ...both, defaultPolicy: "viewer" }), doc(both))).toEqual([]);
    });
  });

  it("flags a provider added, or changed where it decides whom the app acts for; not one removed or narrowed", () => {
    const bearer = { auth: { type: "bearer" }, identity: { user_external_id: { source: "body", path: "u" } } };
    const accepted = doc({ providers: { host: bearer } });
    expect(widenings(accepted, doc({ providers: { host: bearer, other: bearer } }))).toEqual([{ code: "provider_added", path: "providers.other" }]);
    expect(widenings(accepted, doc({ providers: { host: { ...bearer, autoCreateUsers: true, allowEmailLink: true } } }))).toEqual([
      { code: "provider_added", path: "providers.host.autoCreateUsers" },
      { code: "provider_added", path: "providers.host.allowEmailLink" },
    ]);
    expect(widenings(accepted, doc({ providers: { host: { ...bearer, identity: { user_external_id: { source: "body", path: "other" } } } } }))).toEqual([
      { code: "provider_added", path: "providers.host.identity" },
    ]);
    expect(widenings(accepted, doc())).toEqual([]);
    expect(widenings(doc({ providers: { host: { ...bearer, autoCreateUsers: true } } }), accepted)).toEqual([]);
  });

  it("flags an identity-token provider whose keys, issuer or audience changed (the spec owner could sign for the consumer's users)", () => {
    const oidc = {
      auth: { type: "oidc", issuerPattern: "^https://login\\.example/", audience: "app", jwksUriTemplate: "https://login.example/{tid}/keys" },
      identity: { user_external_id: { source: "jwt_claim", path: "sub" } },
    };
    const accepted = doc({ providers: { sso: oidc } });
    expect(widenings(accepted, doc({ providers: { sso: { ...oidc, auth: { ...oidc.auth, jwksUriTemplate: "https://owner.example/keys" } } } }))).toEqual([
      { code: "provider_added", path: "providers.sso.auth" },
    ]);
    expect(widenings(accepted, doc({ providers: { sso: { ...oidc, auth: { ...oidc.auth, audience: ["app", "other"] } } } }))).toEqual([
      { code: "provider_added", path: "providers.sso.auth" },
    ]);
    expect(
      widenings(
        accepted,
        doc({
          providers: {
            sso: {
              identity: oidc.identity,
              auth: { jwksUriTemplate: oidc.auth.jwksUriTemplate, audience: "app", issuerPattern: oidc.auth.issuerPattern, type: "oidc" },
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  describe("outbound requests", () => {
    const http = (url: unknown, auth?: unknown) => ({ $http: { url, ...(auth !== undefined && { auth }) } });

    it("flags a $http source to a URL the accepted version never called, new or changed", () => {
      const accepted = page({ orders: http("https://api.example/orders") });
      expect(widenings(accepted, page({ orders: http("https://evil.example/orders") }))).toEqual([
        { code: "outbound_changed", path: `${home}.dataSources.orders.$http.url` },
      ]);
      expect(widenings(accepted, page({ orders: http("https://api.example/orders"), more: http("{{ config.app.url }}") }))).toEqual([
        { code: "outbound_changed", path: `${home}.dataSources.more.$http.url` },
      ]);
      expect(widenings(page({}), doc({ pages: { extra: { dataSources: { s: http("https://api.example") } } } }))).toEqual([
        { code: "outbound_changed", path: "pages.extra.dataSources.s.$http.url" },
      ]);
    });

    it("lets a source move, be renamed, be removed or change its method, headers and paging", () => {
      const accepted = page({ orders: http("https://api.example/orders") });
      expect(
        widenings(accepted, page({ list: { $http: { url: "https://api.example/orders", method: "POST", headers: { "X-A": "1" } }, $pipe: "$rows" } })),
      ).toEqual([]);
      expect(widenings(accepted, doc({ pages: { other: { dataSources: { o: http("https://api.example/orders") } } } }))).toEqual([]);
      expect(widenings(accepted, page({}))).toEqual([]);
    });

    it("flags an accepted URL called with an auth it was never sent with", () => {
      const accepted = page({ a: http("https://api.example", "apiKey"), b: http("https://stats.example") });
      expect(widenings(accepted, page({ a: http("https://api.example", "apiKey"), b: http("https://stats.example", "apiKey") }))).toEqual([
        { code: "outbound_changed", path: `${home}.dataSources.b.$http.auth` },
      ]);
      expect(widenings(accepted, page({ a: http("https://api.example", { type: "bearer", token: "{{ config.app.t }}" }) }))).toEqual([
        { code: "outbound_changed", path: `${home}.dataSources.a.$http.auth` },
      ]);
      expect(widenings(accepted, page({ a: http("https://api.example"), b: http("https://stats.example") }))).toEqual([]);
    });

    it("flags an auth profile added or changed, not one removed", () => {
      const key = { type: "apiKey", in: "header", name: "X-Key", value: "{{ config.app.key }}" };
      const accepted = doc({ auth: { main: key } });
      expect(widenings(accepted, doc({ auth: { main: key, other: key } }))).toEqual([{ code: "outbound_changed", path: "auth.other" }]);
      expect(widenings(accepted, doc({ auth: { main: { ...key, name: "X-Other" } } }))).toEqual([{ code: "outbound_changed", path: "auth.main" }]);
      expect(widenings(accepted, doc())).toEqual([]);
    });

    it("counts an http action of an actions command as a request, wherever the command sits", () => {
      const call = (url: string) => ({
        kind: "actions",
        actions: [
          { name: "pipe", config: {} },
          { name: "http", config: { url } },
        ],
      });
      const accepted = page({}, { click: [call("https://api.example")] });
      expect(widenings(accepted, page({}, { click: [{ kind: "notify", level: "INFO", message: "x" }, call("https://api.example")] }))).toEqual([]);
      expect(widenings(accepted, page({}, { click: [{ kind: "notify", level: "INFO", message: "x", onSuccess: [call("https://evil.example")] }] }))).toEqual([
        { code: "outbound_changed", path: `${click}[0].onSuccess[0].actions[1].config.url` },
      ]);
    });
  });

  it("flags a jobs entry added or changed (a slot filled inline included), not one removed or a slot written as {} instead of null", () => {
    const inline = { actions: [{ name: "pipe", config: { value: 1 } }] };
    const accepted = doc({ jobs: { slot: null, body: inline } });
    expect(widenings(accepted, doc({ jobs: { slot: {}, body: inline } }))).toEqual([]);
    expect(widenings(accepted, doc({ jobs: { slot: null, body: inline, more: null } }))).toEqual([{ code: "job_changed", path: "jobs.more" }]);
    expect(widenings(accepted, doc({ jobs: { slot: inline, body: { actions: [{ name: "pipe", config: { value: 2 } }] } } }))).toEqual([
      { code: "job_changed", path: "jobs.slot" },
      { code: "job_changed", path: "jobs.body" },
    ]);
    expect(widenings(accepted, doc({ jobs: { slot: null } }))).toEqual([]);
  });

  describe("permission sets", () => {
    const actions = (extra: Record<string, unknown> = {}) => ({ kind: "actions", actions: [{ name: "pipe", config: {} }], ...extra });

    it("flags dataMutation or an additionalAllowed writing action the accepted commands never allowed", () => {
      const accepted = page({}, { click: [actions()] });
      expect(widenings(accepted, page({}, { click: [actions({ permissionSet: "dataMutation" })] }))).toEqual([
        { code: "permission_set_widened", path: `${click}[0].permissionSet` },
      ]);
      expect(widenings(accepted, page({}, { click: [actions({ additionalAllowed: ["upsertEntity"] })] }))).toEqual([
        { code: "permission_set_widened", path: `${click}[0].additionalAllowed` },
      ]);
      expect(widenings(accepted, page({}, { click: [{ kind: "job", job: "j", additionalAllowed: ["invokeWorkflow"] }] }))).toEqual([
        { code: "permission_set_widened", path: `${click}[0].additionalAllowed` },
      ]);
    });

    it("lets commands allow what some accepted command already allowed, and narrow freely", () => {
      const accepted = page({}, { click: [actions({ permissionSet: "dataMutation", denied: ["invokeWorkflow"] })] });
      expect(
        widenings(
          accepted,
          page(
            {},
            {
              click: [actions(), actions({ additionalAllowed: ["upsertEntity"] })],
              other: [actions({ permissionSet: "dataMutation", denied: ["invokeWorkflow"] })],
            },
          ),
        ),
      ).toEqual([]);
      expect(widenings(accepted, page({}, { click: [actions({ permissionSet: "dataMutation" })] }))).toEqual([
        { code: "permission_set_widened", path: `${click}[0].permissionSet` },
      ]);
      expect(
        widenings(
          accepted,
          page({}, { click: [actions({ permissionSet: "dataMutation", denied: ["invokeWorkflow"], additionalAllowed: ["invokeWorkflow"] })] }),
        ),
      ).toEqual([]);
      expect(widenings(accepted, page({}))).toEqual([]);
    });

    it("lets a readonly command appear where the accepted version had none", () => {
      expect(widenings(page({}), page({}, { click: [actions(), { kind: "job", job: "j" }] }))).toEqual([]);
    });

    it("allows nothing beyond readonly to a readonly command that lists a readonly action in additionalAllowed", () => {
      expect(widenings(page({}, { click: [actions()] }), page({}, { click: [actions({ additionalAllowed: ["http"] })] }))).toEqual([]);
    });
  });

  it("reports every widening of a version at once, in the order of the codes", () => {
    const accepted = doc(policies({ viewer: [read] }));
    const next = page(
      { s: { $http: { url: "https://new.example" } } },
      { click: [{ kind: "actions", actions: [], permissionSet: "dataMutation" }] },
      {
        ...policies({ viewer: [read, { resource: "access", actions: ["read"] }] }),
        providers: { host: { auth: { type: "bearer" } } },
        jobs: { j: null },
      },
    );
    expect(widenings(accepted, next).map((w) => w.code)).toEqual([
      "policy_widened",
      "provider_added",
      "outbound_changed",
      "job_changed",
      "permission_set_widened",
    ]);
  });
});

describe("versionInUse", () => {
  const v = (version: number, document: SpecDocument) => ({ version, document });
  const accepted = v(1, doc(policies({ viewer: [read] })));
  const label = doc({ ...policies({ viewer: [read] }), functions: { f: "function() { 1 }" } });
  const wider = doc(policies({ viewer: [read, { resource: "entity", actions: ["delete"] }] }));

  it("follows the latest when nothing newer widens, and stays when nothing is newer", () => {
    expect(versionInUse(accepted, [])).toEqual({ version: 1 });
    expect(versionInUse(accepted, [v(2, label), v(3, doc())])).toEqual({ version: 3 });
  });

  it("holds a widening latest, using the newest version before it that widens nothing", () => {
    expect(versionInUse(accepted, [v(2, wider)])).toEqual({
      version: 1,
      pending: { version: 2, changes: [{ code: "policy_widened", path: "policies.viewer.grants[1]" }] },
    });
    expect(versionInUse(accepted, [v(2, label), v(3, wider)])).toEqual({
      version: 2,
      pending: { version: 3, changes: [{ code: "policy_widened", path: "policies.viewer.grants[1]" }] },
    });
  });

  it("compares every version with the accepted one: a label change after a widening still waits, a widening undone follows", () => {
    const widerRelabelled = { ...wider, functions: { f: "function() { 2 }" } } as SpecDocument;
    expect(versionInUse(accepted, [v(2, wider), v(3, widerRelabelled)]).pending?.version).toBe(3);
    expect(versionInUse(accepted, [v(2, wider), v(3, label)])).toEqual({ version: 3 });
  });
});
